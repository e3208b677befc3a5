import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The session scenarios of `Fixtures/sessions/` (docs/sessions.md: explicit and implicit sessions,
/// `appConfig`, the relaunch window, the indicator), each through the tool — events, the summary's
/// request counts, or the bad record that stops the run — and through the library's `Monitor`,
/// against the Python oracle (`scripts/make_session_fixtures.py`).
@Suite struct SessionScenarioTests {
    static let names = Fixture.folders(in: "sessions", holding: "expected-events.jsonl")

    static func file(_ name: String, _ file: String) -> String? {
        try? Fixture.text("sessions/\(name)/\(file)")
    }

    @Test func theScenariosAreThere() {
        #expect(Self.names.count == 13, "\(Self.names)")
        #expect(Self.names.filter { Self.file($0, "expected-error.txt") != nil }.count == 4)
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/sessions/\(name)"
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl", "--summary", summary]
                                        + (try ScenarioTests.flags(name, folder: "sessions")))
        #expect(run.stdout == Self.file(name, "expected-events.jsonl"))
        if let error = Self.file(name, "expected-error.txt") {
            #expect(run.status != 0)
            #expect(run.stderr.contains(error.trimmingCharacters(in: .newlines)), "\(run.stderr)")
        } else {
            #expect(run.status == 0, "\(run.stderr)")
            let requests = try #require(Self.file(name, "expected-summary.txt")).trimmingCharacters(in: .newlines)
            #expect(try String(contentsOfFile: summary, encoding: .utf8).contains(requests))
        }
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) async throws {
        let monitor = try await Fixture.monitor("sessions/\(name)/conditions.geojson", name: name,
                                                policy: try ScenarioTests.policy(try ScenarioTests.flags(name, folder: "sessions")))
        var reader = try ObservationReader(path: Fixture.path("sessions/\(name)/observations.jsonl"))
        var events: [MonitorEvent] = []
        var refusedAt: Int?
        reading: while let next = reader.next() {
            let record: ObservationRecord
            switch next {
            case .success(let read): record = read
            case .failure(let problem):  // (a value the reader refuses, before any monitor sees it)
                refusedAt = problem.line
                break reading
            }
            do {
                events += try await monitor.process(record.observation, device: record.device)
            } catch {
                events += error.events
                refusedAt = record.line
                break reading
            }
        }
        if refusedAt == nil { events += await monitor.finish() }
        #expect(events.map(EventEncoding.jsonLine).joined() == Self.file(name, "expected-events.jsonl"))
        let error = Self.file(name, "expected-error.txt")
        #expect(refusedAt.map { "observations.jsonl:\($0):" } == error.map { String($0.prefix { $0 != " " }) })
    }
}
