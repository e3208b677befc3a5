import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The platform-profile scenarios of `Fixtures/profiles/` (docs/profiles.md: limits, unsupported
/// kinds, the `unmonitored` event, dwelling), each run through the tool and through the library's
/// `Monitor`, against the events of the Python oracle (`scripts/make_profile_fixtures.py`).
@Suite struct ProfileScenarioTests {
    static let names = Fixture.folders(in: "profiles", holding: "expected-events.jsonl")

    @Test func theScenariosAreThere() {
        #expect(Self.names.count == 9, "\(Self.names)")
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/profiles/\(name)"
        let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl"]
                                        + (try ScenarioTests.flags(name, folder: "profiles")))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try Fixture.text("profiles/\(name)/expected-events.jsonl")))
    }

    /// Through the batch path as well: the same events with several threads.
    @Test(arguments: names)
    func throughTheToolOnThreeThreads(_ name: String) throws {
        let dir = "Fixtures/profiles/\(name)"
        let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl", "--threads", "3"]
                                        + (try ScenarioTests.flags(name, folder: "profiles")))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try Fixture.text("profiles/\(name)/expected-events.jsonl")))
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) async throws {
        let monitor = try await Fixture.monitor("profiles/\(name)/conditions.geojson", name: name,
                                                policy: try ScenarioTests.policy(try ScenarioTests.flags(name, folder: "profiles")))
        var reader = try ObservationReader(path: Fixture.path("profiles/\(name)/observations.jsonl"))
        var events: [MonitorEvent] = []
        while let next = reader.next() {
            let record = try next.get()
            events += try await monitor.process(record.observation, device: record.device)
        }
        events += await monitor.finish()
        #expect(events.map(EventEncoding.jsonLine).joined() == (try Fixture.text("profiles/\(name)/expected-events.jsonl")))
    }
}
