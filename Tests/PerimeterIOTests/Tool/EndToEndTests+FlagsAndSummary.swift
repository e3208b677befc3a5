import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The tool's flags and its summary, end to end.
extension EndToEndTests {
    /// A duration flag beyond 64-bit nanoseconds means never (it once overflowed to zero: held events
    /// expired and beacon exits fired at once); NaN and negative ones are refused.
    @Test func hugeDurationFlagsMeanNever() throws {
        func evaluate(_ scenario: String, _ flags: [String]) throws -> Run {
            let dir = "Fixtures/scenarios/\(scenario)"
            return try Self.run(["evaluate", "--conditions", "\(dir)/conditions.geojson", "--observations", "\(dir)/observations.jsonl"] + flags)
        }
        let expiring = try evaluate("06-provisional-expired", ["--initial-authorization", "notDetermined", "--maximum-holding-age", "600"])
        #expect(expiring.stdout.contains(#""reason":"expired""#))
        let kept = try evaluate("06-provisional-expired", ["--initial-authorization", "notDetermined", "--maximum-holding-age", "1e300"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(!kept.stdout.contains(#""reason":"expired""#))
        #expect(kept.stdout.contains(#""date":"2026-03-02T09:20:00Z","delivery":"delivered""#))  // Allow Always delivers it

        let exiting = try evaluate("01-always-granted", [])
        #expect(exiting.stdout.contains(#""identifier":"desk","state":"unsatisfied""#))
        let staying = try evaluate("01-always-granted", ["--beacon-exit-timeout", "1e300"])
        #expect(staying.status == 0, "\(staying.stderr)")
        #expect(staying.stdout.contains(#""identifier":"desk","state":"satisfied""#))
        #expect(!staying.stdout.contains(#""identifier":"desk","state":"unsatisfied""#))

        for bad in [["--maximum-holding-age", "nan"], ["--beacon-exit-timeout=-1"]] {
            let run = try evaluate("01-always-granted", bad)
            #expect(run.status != 0)
            #expect(run.stderr.contains("must be a finite number of seconds"), "\(run.stderr)")
        }
    }
}

extension EndToEndTests {
    /// SPEC §4: the summary goes to standard error or a file. `--summary FILE` writes the same text
    /// there instead; a path that cannot be written stops the run before any event, naming it.
    @Test func summaryGoesToAFileInsteadOfStandardError() throws {
        let arguments = ["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", "Fixtures/city/observations.jsonl"]
        let plain = try Self.run(arguments)
        let path = Fixture.temporaryPath("summary.txt")
        let run = try Self.run(arguments + ["--summary", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == plain.stdout)
        #expect(!run.stderr.contains("records read"), "\(run.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("197 records read, 0 rejected, 105 events (105 delivered, 0 held, 0 dropped) in "), "\(text)")
        #expect(text.hasSuffix(" records/s\n"))
        #expect(plain.stderr.contains("perimeter: " + text.prefix { $0 != "(" }))

        let unwritable = Fixture.temporaryPath("no-such-directory") + "/summary.txt"
        let refused = try Self.run(arguments + ["--summary", unwritable])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("perimeter: error: \(unwritable): cannot create"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
    }
}

/// Through the tool, what the library's tests cover: the summary's counts by reason and of requests,
/// `--authorization-out`, and a grace period other than the default.
extension EndToEndTests {
    static func scenario(_ name: String, _ flags: [String]) throws -> Run {
        let dir = "Fixtures/scenarios/\(name)"
        return try run(["evaluate", "--conditions", "\(dir)/conditions.geojson", "--observations", "\(dir)/observations.jsonl"] + flags)
    }

    /// Scenario 14: three requests made outside the foreground (background, grace period, indicator)
    /// and one in it; four events dropped notDetermined.
    @Test func summaryCountsReasonsAndRequestsMadeOutsideTheForeground() throws {
        let run = try Self.scenario("14-request-not-in-foreground", ["--initial-authorization", "notDetermined"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("perimeter: 15 records read, 0 rejected, 5 events (1 delivered, 0 held, 4 dropped) in "), "\(run.stderr)")
        #expect(run.stderr.contains("\nperimeter: by reason: notDetermined 4\n"), "\(run.stderr)")
        #expect(run.stderr.contains("\nperimeter: requests: 1 prompted, 3 insufficientlyInUse, 0 noEffect\n"), "\(run.stderr)")
        // Held events: counted as held, then by their final verdict; those still held at the end.
        let held = try Self.scenario("05-provisional-displaced", ["--initial-authorization", "notDetermined"])
        #expect(held.stderr.contains("perimeter: by reason: displaced 1, provisionalAlways 2\n"), "\(held.stderr)")
    }

    /// Scenario 07 (Allow Once): every change of the device's authorization, dated when it happened —
    /// the lapse at the end of the grace period, not at the record that noticed it — as the library
    /// reports it.
    @Test func authorizationOutWritesEveryChangeAsTheLibraryReportsIt() async throws {
        let path = Fixture.temporaryPath("authorization.jsonl")
        let run = try Self.scenario("07-allow-once", ["--initial-authorization", "notDetermined", "--authorization-out", path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let summary = try lines.map { line in
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            func flag(_ key: String) -> Int { (o[key] as? Bool) == true ? 1 : 0 }
            return "\(o["date"]!) \(o["status"]!) temporary=\(flag("temporary")) inUse=\(flag("inUse")) cause=\(o["cause"]!)"
        }
        #expect(summary == ["2026-03-02T09:00:00Z notDetermined temporary=0 inUse=0 cause=1",
                            "2026-03-02T09:00:00Z notDetermined temporary=0 inUse=1 cause=1",
                            "2026-03-02T09:00:10Z whenInUse temporary=1 inUse=1 cause=3",
                            "2026-03-02T09:04:05Z notDetermined temporary=0 inUse=0 cause=10",
                            "2026-03-02T09:11:00Z notDetermined temporary=0 inUse=1 cause=11",
                            "2026-03-02T09:13:10Z whenInUse temporary=0 inUse=1 cause=15",
                            "2026-03-02T09:15:05Z whenInUse temporary=0 inUse=0 cause=18"])

        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        let monitor = try await Fixture.monitor("scenarios/07-allow-once/conditions.geojson", name: "07", policy: policy)
        let changes = Task { () -> [AuthorizationChange] in
            var all: [AuthorizationChange] = []
            for await change in monitor.authorizationChanges { all.append(change) }
            return all
        }
        var reader = try ObservationReader(path: Fixture.path("scenarios/07-allow-once/observations.jsonl"))
        while let next = reader.next() {
            let record = try next.get()
            try await monitor.process(record.observation, device: record.device)
        }
        await monitor.finish()
        #expect(await changes.value.map(AuthorizationChangeEncoding.jsonLine) == lines.map { $0 + "\n" })
    }

    /// Scenario 02 with a 30 s grace period: the exit 30 s after leaving the foreground is delivered
    /// (inclusive), the entry three minutes after is not, and the indicator still has no grace.
    @Test func gracePeriodFlagChangesWhatIsInUse() throws {
        func verdicts(_ run: Run) -> [String] {
            run.stdout.split(separator: "\n").map { line in
                let date = line.split(separator: "\"date\":\"")[1].prefix(19)
                let delivery = line.split(separator: "\"delivery\":\"")[1].prefix { $0 != "\"" }
                return "\(date.suffix(8)) \(delivery)"
            }
        }
        let standard = try Self.scenario("02-when-in-use", ["--initial-authorization", "notDetermined"])
        let longer = try Self.scenario("02-when-in-use", ["--initial-authorization", "notDetermined", "--grace-period", "30"])
        #expect(longer.status == 0, "\(longer.stderr)")
        #expect(verdicts(standard) == ["09:01:00 delivered", "09:01:30 delivered", "09:02:03 delivered", "09:02:30 dropped",
                                       "09:05:00 dropped", "09:08:00 delivered", "09:15:00 delivered", "09:20:02 dropped"])
        #expect(verdicts(longer) == ["09:01:00 delivered", "09:01:30 delivered", "09:02:03 delivered", "09:02:30 delivered",
                                     "09:05:00 dropped", "09:08:00 delivered", "09:15:00 delivered", "09:20:02 dropped"])
        let shorter = try Self.scenario("02-when-in-use", ["--initial-authorization", "notDetermined", "--grace-period", "2"])
        #expect(verdicts(shorter)[2] == "09:02:03 dropped")
    }
}
