import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The conditions-per-device scenarios of `Fixtures/audiences/` (docs/audiences.md: `devices`,
/// `groups`, a groups file, limits counted per device), each run through the tool on one and three
/// threads and through the library's `Monitor`, against the events of the Python oracle
/// (`scripts/make_audience_fixtures.py`).
@Suite struct AudienceScenarioTests {
    static let names = Fixture.folders(in: "audiences", holding: "expected-events.jsonl")

    @Test func theScenariosAreThere() {
        #expect(Self.names.count == 10, "\(Self.names)")
    }

    /// The scenario's flags, with `--groups` when it has a groups file.
    static func flags(_ name: String) throws -> [String] {
        let groups = Fixture.path("audiences/\(name)/groups.csv")
        return try ScenarioTests.flags(name, folder: "audiences")
            + (FileManager.default.fileExists(atPath: groups) ? ["--groups", groups] : [])
    }

    @Test(arguments: names, [1, 3])
    func throughTheTool(_ name: String, threads: Int) throws {
        let dir = "Fixtures/audiences/\(name)"
        let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl", "--threads", "\(threads)"]
                                        + (try Self.flags(name)))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try Fixture.text("audiences/\(name)/expected-events.jsonl")))
    }

    /// Through a store: the recording in two runs of `evaluate --state`, the second restoring the
    /// conditions' audiences and the groups from the store (schema version 3), gives the same events
    /// as one run, and finds the conditions unchanged.
    @Test(arguments: names)
    func inTwoRunsThroughAStore(_ name: String) throws {
        let dir = "Fixtures/audiences/\(name)"
        let lines = try Fixture.text("audiences/\(name)/observations.jsonl").split(separator: "\n", omittingEmptySubsequences: false)
        let half = lines.count / 2
        let first = try Fixture.write(lines[..<half].joined(separator: "\n") + "\n", named: "first.jsonl")
        let second = try Fixture.write(lines[half...].joined(separator: "\n"), named: "second.jsonl")
        let state = Fixture.temporaryPath("state.db")
        var events = ""
        for (k, part) in [first, second].enumerated() {
            let out = Fixture.temporaryPath("out\(k).jsonl")
            let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson", "--observations", part,
                                             "--state", state, "--out", out] + (try Self.flags(name)))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stderr.contains("changed"), "\(run.stderr)")
            // (A run that goes on from a store numbers its records after those the store has read.)
            events += try String(contentsOfFile: out, encoding: .utf8)
        }
        #expect(events == (try Fixture.text("audiences/\(name)/expected-events.jsonl")))
    }

    /// What the tool says of audiences it cannot serve or that look wrong: a ranged beacon with an
    /// audience is refused (naming file and line); group conditions without a groups file, and a
    /// group the file gives no member, are warned of; `validate --groups` checks the file.
    @Test func theToolSaysWhatItCannotDoOrDoubts() throws {
        let conditions = try Fixture.write("""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"gate","geometry":null,"properties":{"beacon":{"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"},"ranging":true,"devices":["ana"]}},
            {"type":"Feature","id":"depot","geometry":{"type":"Point","coordinates":[4.83,45.75]},"properties":{"radius":100,"groups":["drivers"]}}
            ]}

            """, named: "scoped.geojson")
        let observations = try Fixture.write(#"{"type":"fix","device":"ana","t":0,"lat":45.75,"lon":4.83,"accuracy":5}"# + "\n", named: "o.jsonl")
        let range = try EndToEndTests.run(["range", "--conditions", conditions, "--observations", observations])
        #expect(range.status != 0)
        #expect(range.stderr.contains("\(conditions):2: feature \"gate\": ranging is for every device"), "\(range.stderr)")
        let alone = try EndToEndTests.run(["evaluate", "--conditions", conditions, "--observations", observations])
        #expect(alone.status == 0)
        #expect(alone.stderr.contains("\(conditions):3: feature \"depot\" is for groups (properties.groups) but no --groups file"), "\(alone.stderr)")
        let groups = try Fixture.write("device,group\nana,driver\n", named: "groups.csv")
        let misspelt = try EndToEndTests.run(["evaluate", "--conditions", conditions, "--observations", observations, "--groups", groups])
        #expect(misspelt.stderr.contains("\(groups): no device is in group \"drivers\", which feature \"depot\" (line 3) is for"), "\(misspelt.stderr)")
        let validate = try EndToEndTests.run(["validate", "--conditions", conditions, "--groups", groups])
        #expect(validate.status == 0)
        #expect(validate.stdout == "\(conditions): 2 conditions OK (1 circles, 0 polygons, 1 beacons; 2 for some devices only)\n\(groups): 1 memberships OK (1 groups)\n")
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) async throws {
        let monitor = try await Fixture.monitor("audiences/\(name)/conditions.geojson", name: name,
                                                policy: try ScenarioTests.policy(try ScenarioTests.flags(name, folder: "audiences")))
        let groups = Fixture.path("audiences/\(name)/groups.csv")
        if FileManager.default.fileExists(atPath: groups) { await monitor.setGroups(try GroupsReader.read(contentsOf: groups)) }
        var reader = try ObservationReader(path: Fixture.path("audiences/\(name)/observations.jsonl"))
        var events: [MonitorEvent] = []
        while let next = reader.next() {
            let record = try next.get()
            events += try await monitor.process(record.observation, device: record.device)
        }
        events += await monitor.finish()
        #expect(events.map(EventEncoding.jsonLine).joined() == (try Fixture.text("audiences/\(name)/expected-events.jsonl")))
    }
}
