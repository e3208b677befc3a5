import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The authorization scenarios of `Fixtures/scenarios/` (taken from the talks), each run through the
/// tool and through the library's `Monitor`, against the events the Python oracle produced.
@Suite struct ScenarioTests {
    static let names = Fixture.folders(in: "scenarios", holding: "expected-events.jsonl")

    static func flags(_ name: String, folder: String = "scenarios") throws -> [String] {
        let path = Fixture.path("\(folder)/\(name)/args.txt")
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
            case "--profile": policy.profile = try #require(PlatformProfile(named: value))
            case "--condition-limit": policy.profile = policy.profile.withConditionLimit(try #require(Int(value)))
            case "--loitering-delay": policy.profile = policy.profile.withLoiteringDelay(try #require(Double(value)))
            case "--relaunch-window": policy.profile = policy.profile.withRelaunchWindow(try #require(Double(value)))
            default: Issue.record("unknown scenario flag \(flags[i])")
            }
            i += 2
        }
        return policy
    }

    /// The cases the scenarios are there for (`scripts/make_scenarios.py`, `Fixtures/scenarios/README.md`):
    /// each folder's name, what it shows, and how many event lines its records (observation lines)
    /// give.
    static let cases: [(name: String, shows: String, lines: Int, records: Int)] = [
        ("01-always-granted", "always: delivered in the background and after termination", 5, 7),
        ("02-when-in-use", "when-in-use: the grace period, the indicator, dropped after them", 8, 15),
        ("03-provisional-allow-always", "provisional always: held, then delivered on Allow Always", 5, 11),
        ("04-provisional-keep-while-using", "provisional always: Keep While Using drops the held event", 6, 11),
        ("05-provisional-displaced", "holding capacity 1: a second held event displaces the first", 5, 10),
        ("06-provisional-expired", "maximum holding age: expired strictly beyond date + age", 3, 11),
        ("07-allow-once", "Allow Once: lapses to notDetermined when use ends", 8, 18),
        ("08-reduced-accuracy", "reduced accuracy, a temporary full-accuracy grant, precise on in Settings", 9, 18),
        ("09-location-services-off", "location services off: dropped, denied globally", 5, 6),
        ("10-always-request-once", "the provisional period is entered once", 4, 11),
        ("11-deny", "the first prompt open, then Don't Allow", 4, 10),
        ("12-settings-never-or-always-while-held", "Settings never or always while an event is held", 6, 14),
        ("13-settings-when-in-use-or-ask-while-held", "Settings whenInUse or askNextTime while an event is held", 8, 20),
        ("14-request-not-in-foreground", "requests outside the foreground raise no prompt", 5, 15),
        ("15-beacon-exit-grace", "beacon exits' verdicts at their due instant around the grace period", 10, 16),
        ("16-immediate-always-prompt", "from when-in-use, the always prompt at once", 5, 24),
        ("17-holding-capacity-2", "holding capacity 2: an exit held before a fix, displacing", 8, 9),
        ("18-expiry-before-exit", "an expiry before an exit at the same instant", 5, 11),
        ("19-allow-once-for-always", "Allow Once answering a request for always", 5, 14),
        ("20-holding-capacity-0", "holding capacity 0: displaced at once, the prompt still opens", 3, 9),
        ("21-restricted", "restricted: dropped; location services off first", 3, 7),
    ]

    /// Every case is there under its name, with its expected events (as many lines as its records
    /// give) and its records; and no folder is there that no case names.
    @Test func thereAreScenariosForEveryCaseTheIssueLists() throws {
        for (name, shows, lines, records) in Self.cases {
            guard Self.names.contains(name) else {
                Issue.record("no scenario \(name) (\(shows)) with expected events")
                continue
            }
            let expected = try Fixture.text("scenarios/\(name)/expected-events.jsonl").split(separator: "\n")
            let observations = try Fixture.text("scenarios/\(name)/observations.jsonl").split(separator: "\n")
            #expect(expected.count == lines && observations.count == records,
                    "\(name) (\(shows)): \(expected.count) expected event lines from \(observations.count) records, not \(lines) from \(records)")
        }
        let unnamed = Set(Self.names).subtracting(Self.cases.map(\.name))
        #expect(unnamed.isEmpty, "scenarios no case names: \(unnamed.sorted())")
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
