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
