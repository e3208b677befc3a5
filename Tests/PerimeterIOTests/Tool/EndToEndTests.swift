import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The tool and the library on the bundled fixtures, byte for byte against the expected events that
/// the independent Python oracle (`scripts/reference_monitor.py`) produced.
@Suite struct EndToEndTests {
    /// The `perimeter` executable built next to the test bundle.
    static var tool: URL {
        get throws {
            var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent("perimeter")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
            let fallback = Fixture.root.appendingPathComponent(".build/debug/perimeter")
            guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
                throw ToolMissing()
            }
            return fallback
        }
    }

    struct ToolMissing: Error, CustomStringConvertible {
        var description: String { "the perimeter executable was not built next to the tests (run swift build first)" }
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try tool
        process.arguments = arguments
        process.currentDirectoryURL = Fixture.root
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    static let cases: [(observations: String, expected: String, flags: [String])] = [
        ("city/observations.jsonl", "city/expected-events.jsonl", []),
        ("city/observations.csv", "city/expected-events-csv.jsonl", []),
        ("city/observations.jsonl", "city/expected-events-confirm10-h20.jsonl", ["--confirmation", "10", "--hysteresis", "20"]),
    ]

    @Test(arguments: cases.indices)
    func toolReproducesTheExpectedEventsByteForByte(_ i: Int) throws {
        let c = Self.cases[i]
        let out = Fixture.temporaryPath("events.jsonl")
        let run = try Self.run(["evaluate", "--conditions", "Fixtures/city/conditions.geojson",
                                "--observations", "Fixtures/" + c.observations, "--out", out] + c.flags)
        #expect(run.status == 0, "\(run.stderr)")
        let produced = try String(contentsOfFile: out, encoding: .utf8)
        let expected = try Fixture.text(c.expected)
        #expect(produced == expected)
        #expect(run.stderr.contains("197 records read, 0 rejected, \(expected.split(separator: "\n").count) events"))
    }

    @Test func standardInputStreamsToStandardOutput() throws {
        let input = try Fixture.text("city/observations.jsonl")
        let run = try Self.run(["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", "-"], stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try Fixture.text("city/expected-events.jsonl")))
        // Standard input has no extension: CSV is recognised from its header.
        let csv = try Self.run(["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", "-"],
                               stdin: try Fixture.text("city/observations.csv"))
        #expect(csv.stdout == (try Fixture.text("city/expected-events-csv.jsonl")))
    }

    @Test func outputIsDeterministic() throws {
        let args = ["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", "Fixtures/city/observations.jsonl"]
        let first = try Self.run(args), second = try Self.run(args)
        #expect(first.stdout == second.stdout)
        #expect(!first.stdout.isEmpty)
    }

    @Test func libraryBatchEvaluationEqualsTheTool() throws {
        var engine = try Fixture.engine("city/conditions.geojson")
        var reader = try ObservationReader(path: Fixture.path("city/observations.jsonl"))
        let out = Fixture.temporaryPath("library.jsonl")
        var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out))
        let summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs)
        _ = consume outputs
        #expect(summary.recordsRead == 197)
        #expect(summary.rejected == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == (try Fixture.text("city/expected-events.jsonl")))
    }

    /// Many devices starting against many conditions that start `unknown`: each device's first fix
    /// settles all 300 circles, and its first beacon timer all 30 beacons. Batches are cut where the
    /// devices' starts would pass the event budget — with the same events, and the same bad records
    /// with their texts, as in whole batches — so that the events held at once stay near the budget.
    @Test func batchesAreCutAtTheEventBudget() throws {
        func engine() throws -> MonitoringEngine { try Self.gridEngine(circles: 300, beacons: 30) }
        var rng = SplitMix64(seed: 77)
        var lines: [String] = []
        for round in 0..<6 {
            for d in 0..<200 {
                let t = 1_772_352_000 + round * 20 + d % 7
                let lat = 48.80 + .random(in: 0...0.1, using: &rng), lon = 2.30 + .random(in: 0...0.075, using: &rng)
                if round == 4 {  // devices that start late, so that batches are cut around what follows
                    lines.append(#"{"type":"fix","device":"late\#(d)","t":\#(t),"lat":\#(lat),"lon":\#(lon),"accuracy":10}"#)
                }
                if round == 4 && d % 50 == 3 {  // out of order: refused, and quarantined with its own text
                    lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(t - 100),"lat":\#(lat),"lon":\#(lon),"accuracy":\#(d)}"#)
                } else if round == 2 {
                    lines.append(#"{"type":"sighting","device":"d\#(d)","t":\#(t),"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":\#(d % 30),"minor":1,"rssi":-70}"#)
                } else {
                    lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(t),"lat":\#(lat),"lon":\#(lon),"accuracy":10}"#)
                }
            }
        }
        let input = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "budget.jsonl")
        func run(budget: Int) throws -> (EvaluationSummary, events: String, bad: String) {
            var engine = try engine()
            var reader = try ObservationReader(path: input)
            let out = Fixture.temporaryPath("budget-events.jsonl"), bad = Fixture.temporaryPath("budget-bad.jsonl")
            var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out), quarantine: try BufferedOutput(path: bad))
            let summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: .quarantine,
                                                  eventBudget: budget)
            _ = consume outputs
            return (summary, try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: bad, encoding: .utf8))
        }
        let whole = try run(budget: .max), cut = try run(budget: 2_000)
        #expect(whole.0.largestWrite >= 200 * 300)
        #expect(cut.0.largestWrite <= 2_000 + 330 + 200)
        #expect(cut.events == whole.events)
        #expect(cut.0.events == whole.0.events)
        #expect(whole.0.events > 400 * 300)
        #expect(cut.0.rejected == 4)
        #expect(cut.bad == whole.bad)
        #expect(cut.bad.contains(#""accuracy\":53}"#))
    }

    /// `circles` circles of 300 m on a grid 20 columns wide, 500-odd m apart, from (48.80, 2.30), and
    /// `beacons` beacon conditions of one UUID with majors 0, 1, ….
    static func gridEngine(circles: Int, beacons: Int, policy: MonitoringPolicy = MonitoringPolicy()) throws -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy)
        for i in 0..<circles {
            let centre = Coordinate(latitude: 48.80 + Double(i % 20) * 0.005, longitude: 2.30 + Double(i / 20) * 0.005)
            try engine.add(.circle(try CircularGeographicCondition(center: centre, radius: 300)), identifier: "c\(i)")
        }
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        for i in 0..<beacons { try engine.add(.beacon(BeaconIdentityCondition(uuid: uuid, major: UInt16(i))), identifier: "b\(i)") }
        return engine
    }

    /// The shape of the largest run checked by hand (`Benchmarks/RESULTS.md`, "Tenth session": 10⁹
    /// events, the same bytes on one thread and two) at a size a test can afford: devices that start
    /// as fresh installs against conditions that start unknown, so that every start brings hundreds
    /// of dropped events; a budget that cuts the first batches to a few devices each (run on one
    /// shard), then batches of thousands of records from hundreds of devices (run on several); runs
    /// of sightings and of fixes. One thread with whole batches, and two or three with cut ones,
    /// write the same bytes.
    @Test func threadsAndBudgetCutsWriteTheSameBytes() throws {
        func engine(threads: Int) throws -> MonitoringEngine {
            var policy = MonitoringPolicy()
            policy.initialAuthorization = .notDetermined
            var engine = try Self.gridEngine(circles: 200, beacons: 100, policy: policy)
            engine.batchThreads = threads
            return engine
        }
        var rng = SplitMix64(seed: 79)
        var lines: [String] = []
        for second in 0..<60 {
            for d in 0..<600 {
                let t = 1_772_352_000 + second
                if (second / 20) % 2 == 1 {  // runs of 12,000: two shards each
                    lines.append(#"{"type":"sighting","device":"d\#(d)","t":\#(t),"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":\#(Int.random(in: 0..<150, using: &rng)),"minor":1,"rssi":-70}"#)
                } else {
                    let lat = 48.80 + .random(in: 0...0.1, using: &rng), lon = 2.30 + .random(in: 0...0.05, using: &rng)
                    lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(t),"lat":\#(lat),"lon":\#(lon),"accuracy":10}"#)
                }
            }
        }
        let input = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "threads.jsonl")
        func run(threads: Int, budget: Int) throws -> (EvaluationSummary, events: String) {
            var engine = try engine(threads: threads)
            var reader = try ObservationReader(path: input)
            reader.threads = threads
            let out = Fixture.temporaryPath("threads-events-\(threads).jsonl")
            var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out))
            let summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, eventBudget: budget)
            _ = consume outputs
            return (summary, try String(contentsOfFile: out, encoding: .utf8))
        }
        let one = try run(threads: 1, budget: .max)
        #expect(one.0.events > 600 * 300)
        for threads in [2, 3] {
            let cut = try run(threads: threads, budget: 3_000)
            #expect(cut.0.largestWrite < one.0.largestWrite / 4)
            #expect(cut.0.events == one.0.events)
            #expect(cut.events == one.events)
        }
    }

    /// Streamed or not, the same events come back from `process` and the same records are kept; the
    /// stream carries them all, or (not streamed) ends at once with none.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func monitorActorYieldsTheSameEventsAndKeepsRecords(streamsEvents: Bool) async throws {
        let monitor = try await Fixture.monitor("city/conditions.geojson", name: "city", streamsEvents: streamsEvents)
        if !streamsEvents {
            // Not streamed: the stream has ended before anything is processed (else this waits).
            var early = 0
            for await _ in monitor.events { early += 1 }
            #expect(early == 0)
        }
        let collector = Task { () -> [MonitorEvent] in
            var all: [MonitorEvent] = []
            for await event in monitor.events { all.append(event) }
            return all
        }
        var reader = try ObservationReader(path: Fixture.path("city/observations.jsonl"))
        var returned: [MonitorEvent] = []
        while let next = reader.next() {
            let record = try next.get()
            returned += try await monitor.process(record.observation, device: record.device)
        }
        returned += await monitor.finish()
        let streamed = await collector.value
        #expect(streamed == (streamsEvents ? returned : []))
        // The monitor's causes are record indices, which equal line numbers in this file.
        #expect(returned.map(EventEncoding.jsonLine).joined() == (try Fixture.text("city/expected-events.jsonl")))

        let last = try #require(returned.last(where: { $0.device == "dave" && $0.identifier == "store-any" }))
        let record = try #require(await monitor.record(for: "store-any", device: "dave"))
        #expect(record.lastEvent == last)
        #expect(record.state == last.state)
        #expect(await monitor.record(for: "nope") == nil)
    }
}

extension EndToEndTests {
    /// The pipelined batch path (fixes applied on a worker while the next batch is read) against one
    /// record at a time: the same event lines and the same quarantine lines, in the same order, over
    /// several batches with bad records (out of order, bad values) and other records among them.
    /// Batches (read in parallel blocks, evaluated and encoded on several threads with `threads` > 1)
    /// against one record at a time. The second half is plain fixes only: long runs, large batches.
    @Test(arguments: [1, 3])
    func pipelinedBatchesEqualOneRecordAtATime(threads: Int) throws {
        var rng = SplitMix64(seed: 51)
        var lines: [String] = []
        var time = [Int](repeating: 1_772_352_000, count: 40)
        for k in 0..<60_000 {
            let d = Int.random(in: 0..<40, using: &rng)
            time[d] += Int.random(in: 1...20, using: &rng)
            let lat = 48.853 + .random(in: -0.01...0.01, using: &rng), lon = 2.349 + .random(in: -0.015...0.015, using: &rng)
            // Sightings: runs of them (every 40th stretch of 50 records), and single ones among fixes.
            let uuid = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "B9407F30-F5F8-466E-AFF9-25556B57FE6D", "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"][k % 3]
            if (k / 50) % 40 == 7 || k % 211 == 5 {
                lines.append(#"{"type":"sighting","device":"d\#(d)","t":\#(time[d]),"uuid":"\#(uuid)","major":\#(k % 4),"minor":\#(k % 3),"rssi":-70}"#)
                continue
            }
            switch k < 30_000 ? k % 997 : 0 {
            case 13: lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(time[d] - 500),"lat":\#(lat),"lon":\#(lon),"accuracy":5}"#)
            case 512: lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(time[d]),"lat":95,"lon":\#(lon),"accuracy":5}"#)
            case 700: lines.append(#"{"type":"app","device":"d\#(d)","t":\#(time[d]),"state":"background"}"#)
            default: lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(time[d]),"lat":\#(lat),"lon":\#(lon),"accuracy":\#(Int.random(in: 5...80, using: &rng))}"#)
            }
        }
        let input = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "pipelined.jsonl")

        var engine = try Fixture.engine("city/conditions.geojson")
        engine.batchThreads = threads
        var reader = try ObservationReader(path: input)
        reader.threads = threads
        let out = Fixture.temporaryPath("pipelined-events.jsonl"), bad = Fixture.temporaryPath("pipelined-bad.jsonl")
        var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out), quarantine: try BufferedOutput(path: bad))
        let summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: .quarantine)
        _ = consume outputs

        let (expectedEvents, expectedBad, _, _) = try Fixture.plainRun(input, engine: try Fixture.engine("city/conditions.geojson"))

        #expect(summary.rejected == 60)  // out of order, bad latitudes
        #expect(expectedEvents.contains("\"refinement\":{"))
        #expect(summary.recordsRead == 60_000)
        #expect(summary.events == expectedEvents.split(separator: "\n").count)
        #expect(try String(contentsOfFile: bad, encoding: .utf8) == expectedBad)
        let got = try String(contentsOfFile: out, encoding: .utf8)
        #expect(got == expectedEvents)
        #expect(got.split(separator: "\n").count > 2 * BatchEvaluation.parallelEncoding)
    }
}

extension EndToEndTests {
    /// `--threads` changes how the work is split, never the output; fewer than one is refused (as usage).
    @Test func threadsChangeNothingButTheSplit() throws {
        let arguments = ["evaluate", "--conditions", "Fixtures/city/conditions.geojson", "--observations", "Fixtures/city/observations.csv"]
        let one = try Self.run(arguments + ["--threads", "1"]), three = try Self.run(arguments + ["--threads", "3"])
        #expect(one.status == 0 && three.status == 0)
        #expect(one.stdout == three.stdout)
        #expect(!one.stdout.isEmpty)
        let none = try Self.run(arguments + ["--threads", "0"])
        #expect(none.status == 64)  // a usage error
        #expect(none.stderr.contains("--threads must be at least 1"), "\(none.stderr)")
    }
}
