import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Every kind of bad conditions file produces its named error: line, feature, field, reason.
@Suite struct ConditionsReaderTests {
    static func problems(_ features: [String]) -> [InputError] {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
        return ConditionsReader.parse(Data(text.utf8), file: "c.geojson").1
    }

    static let circle = #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":100}}"#

    @Test func readsTheMixedFixtureWithEveryKindAndWildcard() throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path("city/conditions.geojson"))
        var kinds: Set<String> = []
        for d in definitions {
            switch d.condition {
            case .circle: kinds.insert("circle")
            case .polygon(let p):
                kinds.insert(p.polygons.count > 1 ? "multipolygon" : "polygon")
                if p.polygons.contains(where: { !$0.holes.isEmpty }) { kinds.insert("hole") }
            case .beacon(let b):
                kinds.insert(b.major == nil ? "uuid" : b.minor == nil ? "uuid+major" : "uuid+major+minor")
            }
        }
        #expect(kinds == ["circle", "polygon", "multipolygon", "hole", "uuid", "uuid+major", "uuid+major+minor"])
        #expect(definitions.contains { $0.assuming == .satisfied })
    }

    @Test func duplicateIdentifierNamesBothLines() {
        let p = Self.problems([Self.circle, Self.circle])
        #expect(p.count == 1)
        #expect(p.first?.line == 3)
        #expect(p.first?.field == #"features[1] (id "a").id"#)
        #expect(p.first?.message.contains("duplicate identifier \"a\" (first used on line 2)") == true)
    }

    @Test func invalidPolygonCarriesGEOSReason() {
        let bowtie = #"{"type":"Feature","id":"bow","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]},"properties":{}}"#
        let p = Self.problems([bowtie])
        #expect(p.count == 1)
        #expect(p.first?.field == #"features[0] (id "bow").geometry"#)
        #expect(p.first?.message.contains("Self-intersection") == true, "\(p)")
        #expect(p.first?.line == 2)
    }

    @Test func repairOptionMakesTheBowtieValid() throws {
        let bowtie = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"bow","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]},"properties":{}}]}"#
        let (definitions, problems) = ConditionsReader.parse(Data(bowtie.utf8), file: "c", repair: true)
        #expect(problems.isEmpty)
        guard case .polygon(let p)? = definitions.first?.condition else { Issue.record("no polygon"); return }
        #expect(p.polygons.count == 2)  // the two triangles
        var engine = MonitoringEngine()
        try engine.add(.polygon(p), identifier: "bow")
        var events: [MonitorEvent] = []
        try engine.process(.fix(Fix(time: T0.t, coordinate: Coordinate(latitude: 0.5, longitude: 0.2), horizontalAccuracy: 0)),
                           device: "d", cause: 1, into: &events)
        #expect(events.map(\.state) == [.satisfied])
    }

    @Test func outOfRangeCoordinatesAreNamed() {
        let circle = #"{"type":"Feature","id":"far","geometry":{"type":"Point","coordinates":[200,10]},"properties":{"radius":5}}"#
        let polygon = #"{"type":"Feature","id":"poly","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,95],[0,0]]]},"properties":{}}"#
        let p = Self.problems([circle, polygon])
        #expect(p.count == 2)
        #expect(p[0].field == #"features[0] (id "far").geometry.coordinates"#)
        #expect(p[0].message.contains("out of range"))
        #expect(p[1].field == #"features[1] (id "poly").geometry.coordinates[0][2]"#)
        #expect(p[1].line == 3)
    }

    @Test(arguments: ["0", "-5", "1000001"])
    func radiusMustBePositiveAndAtMostAThousandKilometres(_ radius: String) {
        let p = Self.problems([#"{"type":"Feature","id":"r","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"radius":"# + radius + "}}"])
        #expect(p.count == 1)
        #expect(p.first?.field == #"features[0] (id "r").properties.radius"#)
        #expect(p.first?.message.contains("radius must be > 0") == true)
    }

    @Test func minorWithoutMajorIsAnError() {
        let beacon = #"{"type":"Feature","id":"b","geometry":null,"properties":{"beacon":{"uuid":"e2c56db5-dffb-48d2-b060-d0f5a71096e0","minor":3}}}"#
        let p = Self.problems([beacon])
        #expect(p.count == 1)
        #expect(p.first?.field == #"features[0] (id "b").properties.beacon.minor"#)
        #expect(p.first?.message.contains("minor without major") == true)
    }

    @Test func otherBadFeaturesAreNamedToo() {
        let cases: [(String, String)] = [
            (#"{"type":"Feature","geometry":null,"properties":{}}"#, "features[0].id"),
            (#"{"type":"Feature","id":"x","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}}"#, #"features[0] (id "x").geometry.type"#),
            (#"{"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}}"#, #"features[0] (id "x").properties.radius"#),
            (#"{"type":"Feature","id":"x","geometry":null,"properties":{"beacon":{"uuid":"nope"}}}"#, #"features[0] (id "x").properties.beacon.uuid"#),
            (#"{"type":"Feature","id":"x","geometry":null,"properties":{"beacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":70000}}}"#, #"features[0] (id "x").properties.beacon.major"#),
            (#"{"type":"Feature","id":"x","geometry":null,"properties":{"assuming":"maybe","beacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}}}"#, #"features[0] (id "x").properties.assuming"#),
            (#"{"type":"Feature","id":"x","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]},"properties":{}}"#, #"features[0] (id "x").geometry.coordinates[0]"#),
        ]
        for (feature, field) in cases {
            let p = Self.problems([feature])
            #expect(p.map(\.field) == [field], "\(feature)")
        }
    }

    /// A UTF-8 byte order mark before the collection is skipped; one later is not JSON.
    @Test func aByteOrderMarkFirstIsSkipped() {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + Self.circle + "\n]}"
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let (definitions, problems) = ConditionsReader.parse(Data(bom + Array(text.utf8)), file: "c.geojson")
        #expect(problems.isEmpty && definitions.count == 1)
        let (_, later) = ConditionsReader.parse(Data(Array(" ".utf8) + bom + Array(text.utf8)), file: "c.geojson")
        #expect(later.count == 1)
    }

    @Test func notJSONNamesTheLine() {
        let (_, problems) = ConditionsReader.parse(Data("{\"type\":\n\"FeatureCollection\",,}".utf8), file: "c.geojson")
        #expect(problems.count == 1)
        #expect(problems.first?.line == 2)
        #expect(problems.first?.description.hasPrefix("c.geojson:2: not JSON") == true)
    }

    @Test func validateCommandPrintsEveryProblem() throws {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + Self.circle + ",\n" + Self.circle + ",\n"
            + #"{"type":"Feature","id":"r","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"radius":-1}}"# + "\n]}"
        let path = try Fixture.write(text, named: "bad.geojson")
        let run = try EndToEndTests.run(["validate", "--conditions", path])
        #expect(run.status == 1)
        #expect(run.stdout.split(separator: "\n").count == 2)
        #expect(run.stdout.contains(":3: field \"features[1] (id \"a\").id\": duplicate identifier"))
        #expect(run.stdout.contains(":4: field \"features[2] (id \"r\").properties.radius\""))
        let good = try EndToEndTests.run(["validate", "--conditions", "Fixtures/natural-earth/countries.geojson"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("177 conditions OK"))
    }
}
