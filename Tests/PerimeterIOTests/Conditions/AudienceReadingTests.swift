import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `properties.devices`, `properties.groups` and groups files (SPEC §5.6): read, or refused with file,
/// line and field.
@Suite struct AudienceReadingTests {
    static func feature(_ properties: String) -> String {
        #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":100,"# + properties + "}}"
    }

    @Test func devicesAndGroupsAreRead() throws {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + Self.feature(#""devices":["ben","ana","ben"],"groups":["crew"]"#) + "\n]}\n"
        let (definitions, problems) = ConditionsReader.parse(Data(text.utf8), file: "c.geojson")
        #expect(problems.isEmpty)
        #expect(definitions.first?.audience == ConditionAudience(devices: ["ana", "ben"], groups: ["crew"]))
    }

    @Test(arguments: [
        (#""devices":"ana""#, "properties.devices", "expected a non-empty array of device names, got a string"),
        (#""devices":[]"#, "properties.devices", "expected a non-empty array of device names, got an array"),
        (#""groups":["crew",7]"#, "properties.groups[1]", "expected a non-empty string, got a number"),
        (#""groups":[""]"#, "properties.groups[0]", "expected a non-empty string, got a string"),
        (#""device":["ana"]"#, "properties.device", #"unknown property "device" — did you mean "devices"?"#),
    ])
    func badAudiencesAreNamed(_ properties: String, field: String, message: String) {
        let problems = ConditionsReaderTests.problems([Self.feature(properties)])
        #expect(problems.map { "\($0.line ?? 0) \($0.field ?? "") \($0.message)" } == ["2 features[0] (id \"a\").\(field) \(message)"])
    }

    @Test func aGroupsFileIsRead() throws {
        let path = try Fixture.write("device,group\r\nana,crew\n\nben,crew\nana,crew\n\"dan, jr\",night\n", named: "groups.csv")
        let members = try GroupsReader.read(contentsOf: path)
        #expect(members == ["crew": ["ana", "ben"], "night": ["dan, jr"]])
    }

    @Test(arguments: [
        ("devices,groups\nana,crew\n", "1 - expected the header \"device,group\", got \"devices,groups\""),
        ("device,group\nana\n", "2 - expected 2 cells (device,group), got 1"),
        ("device,group\nana,crew,x\n", "2 - expected 2 cells (device,group), got 3"),
        ("device,group\n,crew\n", "2 device a device name cannot be empty"),
        ("device,group\nana,\n", "2 group a group name cannot be empty"),
        ("", "0 - empty: expected the header \"device,group\""),
    ])
    func aBadGroupsFileIsNamed(_ text: String, expected: String) throws {
        let path = try Fixture.write(text, named: "groups.csv")
        #expect(throws: InputErrors.self) { try GroupsReader.read(contentsOf: path) }
        do {
            _ = try GroupsReader.read(contentsOf: path)
        } catch {
            #expect(error.errors.map { "\($0.line ?? 0) \($0.field ?? "-") \($0.message)" } == [expected])
            #expect(error.errors.allSatisfy { $0.file == path })
        }
    }
}
