import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The authorization scenarios of `Fixtures/scenarios/` (taken from the talks), each run through the
/// tool and through the library's `Monitor`, against the events the Python oracle produced.
@Suite struct ScenarioTests {
    static let names: [String] = {
        let dir = Fixture.path("scenarios")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return entries.filter { FileManager.default.fileExists(atPath: "\(dir)/\($0)/expected-events.jsonl") }.sorted()
    }()

    static func flags(_ name: String) throws -> [String] {
        let path = Fixture.path("scenarios/\(name)/args.txt")
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The policy the tool would build from the scenario's flags.
    static func policy(_ flags: [String]) throws -> MonitoringPolicy {
        var policy = MonitoringPolicy()
        var i = 0
        while i + 1 < flags.count {
            let value = flags[i + 1]
            switch flags[i] {
            case "--initial-authorization": policy.initialAuthorization = try #require(InitialAuthorization(rawValue: value))
            case "--holding-capacity": policy.holdingCapacity = try #require(Int(value))
            case "--maximum-holding-age": policy.maximumHoldingAge = try #require(Double(value))
            case "--grace-period": policy.gracePeriod = try #require(Double(value))
            case "--beacon-exit-timeout": policy.beaconExitTimeout = try #require(Double(value))
            case "--hysteresis": policy.hysteresis = try #require(Double(value))
            case "--confirmation": policy.confirmation = try #require(Double(value))
            case "--profile": policy.profile = try #require(PlatformProfile(rawValue: value))
            default: Issue.record("unknown scenario flag \(flags[i])")
            }
            i += 2
        }
        return policy
    }

    @Test func thereAreScenariosForEveryCaseTheIssueLists() {
        #expect(Self.names.count >= 10)
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/scenarios/\(name)"
        let run = try EndToEndTests.run(["evaluate", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl"] + (try Self.flags(name)))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try Fixture.text("scenarios/\(name)/expected-events.jsonl")))
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) async throws {
        let monitor = try await Fixture.monitor("scenarios/\(name)/conditions.geojson", name: name,
                                                policy: try Self.policy(try Self.flags(name)))
        var reader = try ObservationReader(path: Fixture.path("scenarios/\(name)/observations.jsonl"))
        var events: [MonitorEvent] = []
        while let next = reader.next() {
            let record = try next.get()
            #expect(await monitor.recordCount + 1 == record.line, "the scenario files have no blank lines")
            events += try await monitor.process(record.observation, device: record.device)
        }
        events += await monitor.finish()
        #expect(events.map(EventEncoding.jsonLine).joined() == (try Fixture.text("scenarios/\(name)/expected-events.jsonl")))
    }
}
