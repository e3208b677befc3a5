import Foundation
import PerimeterPropertySupport
import PropertyBased
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// SPEC §4, "same input ⇒ byte-identical output", across thread counts: the batch paths shard devices
/// across threads only for batches of at least 4,096 records per worker (`selectShards`,
/// `BatchEvaluation.parallelRecords`), so each small random scenario (`ScenarioGen`) is expanded into
/// a long stream — its fixes and its sightings each repeated, as one phase of 8–17k records, over many
/// devices jittered apart — and run on 1 thread and on 2–4; the two outputs must be the same bytes.
/// Shrinking acts on the small scenario and the expansion's two knobs.
@Suite(.shrinking) struct ThreadCountProperties {
    /// How a scenario is stretched: over how many devices, and how many records each phase has.
    struct Expansion: Sendable, CustomStringConvertible {
        var devices: Int
        var phaseRecords: Int
        var description: String { "\(devices) devices, phases of \(phaseRecords) records" }
    }

    /// Index 0 is the plainest: 64 devices, phases just past two workers' 8,192 records.
    static var expansion: Generator<Expansion, some SendableSequenceType> {
        zip(Gen.int(in: 0...3), Gen.int(in: 0...2)).map { d, p in
            Expansion(devices: [64, 5, 700, 2][d], phaseRecords: [8_300, 12_400, 16_500][p])
        }
    }

    /// The long stream: each device `dN-j` (copy j of the scenario's device `dN`) first gets the
    /// scenario's other records (its authorization prelude, app and settings records) at time 0, then
    /// three phases — the scenario's fixes, its sightings, its fixes again — cycled for
    /// `phaseRecords / devices` steps, each step one record per device in device order, with the
    /// scenario's own time gaps. Copies are moved up to 2 grid units apart (and sighted beacons' minor
    /// shifted) so that devices' events differ.
    static func expand(_ scenario: Scenario, _ expansion: Expansion) -> [Numbered] {
        let copies = (0..<expansion.devices).map { (j: Int) -> (name: String, dx: Double, dy: Double) in
            (name: "-\(j)", dx: Double(j % 5 - 2), dy: Double((j / 5) % 5 - 2))
        }
        var out: [RecordSpec] = []
        for record in scenario.records where !record.isFix && !record.isSighting {
            for copy in copies {
                out.append(RecordSpec(device: record.device + copy.name, seconds: 0, observation: moved(record.observation, to: 0)))
            }
        }
        let fixes = scenario.records.filter(\.isFix), sightings = scenario.records.filter(\.isSighting)
        var seconds = 1
        for phase in [fixes, sightings, fixes] where !phase.isEmpty {
            let gaps = phase.indices.map { k in k == 0 ? 1 : phase[k].seconds - phase[k - 1].seconds }
            for step in 0..<(expansion.phaseRecords + copies.count - 1) / copies.count {
                let record = phase[step % phase.count]
                seconds += gaps[step % phase.count]
                for (j, copy) in copies.enumerated() {
                    var observation = moved(record.observation, to: seconds)
                    switch observation {
                    case .fix(var fix):
                        let (x, y) = gridPosition(fix.coordinate)
                        fix.coordinate = Grid.coordinate(x + copy.dx, y + copy.dy)
                        observation = .fix(fix)
                    case .sighting(var sighting):
                        sighting.identity.minor = UInt16((Int(sighting.identity.minor) + j) % 3)
                        observation = .sighting(sighting)
                    default: break
                    }
                    out.append(RecordSpec(device: record.device + copy.name, seconds: seconds, observation: observation))
                }
            }
        }
        return out.enumerated().map { Numbered(cause: $0, record: $1) }
    }

    static func gridPosition(_ c: Coordinate) -> (Double, Double) {
        let y = (c.latitude - Grid.origin.latitude) * Geodesy.metresPerDegree / Grid.unit
        let x = (c.longitude - Grid.origin.longitude) * Geodesy.metresPerDegree * cos(Grid.origin.latitude * .pi / 180) / Grid.unit
        return (x.rounded(), y.rounded())
    }

    /// The observation at `seconds` instead of its own time.
    static func moved(_ observation: Observation, to seconds: Int) -> Observation {
        let t = Grid.time(seconds)
        switch observation {
        case .fix(var f): f.time = t; return .fix(f)
        case .sighting(var s): s.time = t; return .sighting(s)
        case .app(var a): a.time = t; return .app(a)
        case .request(var r): r.time = t; return .request(r)
        case .answer(var a): a.time = t; return .answer(a)
        case .settings(var s): s.time = t; return .settings(s)
        case .session(var s): s.time = t; return .session(s)
        case .config(var c): c.time = t; return .config(c)
        case .appConfig(var c): c.time = t; return .appConfig(c)
        }
    }

    /// The scenarios: a dozen records at most, since each is repeated thousands of times, with at least
    /// one fix and one sighting, so that both batch paths run long batches.
    static var scenarios: Generator<Scenario, some SendableSequenceType> {
        ScenarioGen.scenario(ScenarioGen.Options(maxRecords: 12)).filter { s in
            s.records.contains(where: \.isFix) && s.records.contains(where: \.isSighting)
        }
    }

    /// 6a. The engine's batch API, `process(_:into:)` with `[FixRecord]` / `[SightingRecord]` batches,
    /// with `batchThreads` 1 and 2–4: the events and authorization changes encoded are the same bytes.
    @Test func batchThreadsChangeNoByte() async {
        await propertyCheck(count: 12, input: Self.scenarios, Self.expansion, Gen.int(in: 2...4)) { scenario, expansion, threads in
            let records = Self.expand(scenario, expansion)
            func output(_ threads: Int) throws -> [UInt8] {
                var run = try ScenarioRun(scenario, batchThreads: threads)
                try run.feed(records, .batched)
                run.finish()
                var bytes: [UInt8] = []
                for event in run.events { EventEncoding.append(event, to: &bytes) }
                for change in run.changes { bytes += Array(AuthorizationChangeEncoding.jsonLine(change).utf8) }
                return bytes
            }
            // (Compared outside `#expect`, which would render megabytes of bytes on a failure.)
            let one = try output(1), many = try output(threads), same = one == many
            #expect(same, "\(expansion), 1 and \(threads) threads: \(Self.firstDifferentLine(one, many))")
        }
    }

    /// 6b. `BatchEvaluation.run`, as `perimeter evaluate` runs it (reader, batches, parallel encoding),
    /// over the expanded stream written as JSON Lines, on 1 thread and on 2–4 (engine and reader): the
    /// event, quarantine (refused answers) and authorization files are the same bytes.
    @Test func batchEvaluationThreadsChangeNoByte() async {
        await propertyCheck(count: 5, input: Self.scenarios, Self.expansion, Gen.int(in: 2...4)) { scenario, expansion, threads in
            let input = Self.temporaryPath("observations.jsonl")
            defer { try? FileManager.default.removeItem(atPath: input) }
            try Self.expand(scenario, expansion).map { Self.jsonLine($0.record) }.joined().write(toFile: input, atomically: true, encoding: .utf8)
            func output(_ threads: Int) throws -> [Data] {
                var engine = try scenario.engine(batchThreads: threads)
                var reader = try ObservationReader(path: input)
                reader.threads = threads
                let paths = ["events", "bad", "authorization"].map { Self.temporaryPath($0 + ".jsonl") }
                defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
                do {
                    var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: paths[0]),
                                                          quarantine: try BufferedOutput(path: paths[1]),
                                                          authorization: try BufferedOutput(path: paths[2]))
                    _ = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: .quarantine)
                }  // (the outputs are flushed and closed here)
                return try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            }
            let one = try output(1), many = try output(threads)
            for (name, (a, b)) in zip(["events", "quarantine", "authorization"], zip(one, many)) {
                let same = a == b
                #expect(same, "\(expansion), \(name) on 1 and \(threads) threads: \(Self.firstDifferentLine(Array(a), Array(b)))")
            }
        }
    }

    /// A record as a line of the observations file (SPEC §1), its time in Unix seconds.
    static func jsonLine(_ r: RecordSpec) -> String {
        var fields = ["\"device\":\"\(r.device)\"", "\"t\":\(r.observation.time.nanosecondsSinceEpoch / 1_000_000_000)"]
        func add(_ key: String, _ value: (some Any)?) {
            guard let value else { return }
            fields.append(value is String ? "\"\(key)\":\"\(value)\"" : "\"\(key)\":\(value)")
        }
        switch r.observation {
        case .fix(let f):
            add("type", "fix")
            add("lat", f.coordinate.latitude)
            add("lon", f.coordinate.longitude)
            add("accuracy", f.horizontalAccuracy)
        case .sighting(let s):
            add("type", "sighting")
            add("uuid", s.identity.uuid.uuidString)
            add("major", Int(s.identity.major))
            add("minor", Int(s.identity.minor))
            add("rssi", s.rssi)
        case .app(let a):
            add("type", "app")
            add("state", a.state.rawValue)
        case .request(let q):
            add("type", "request")
            add("what", q.kind.rawValue)
        case .answer(let a):
            add("type", "answer")
            add("choice", a.choice.rawValue)
            add("precise", a.precise)
        case .settings(let s):
            add("type", "settings")
            add("status", s.status?.rawValue)
            add("precise", s.precise)
            add("locationServices", s.locationServices)
        case .config(let c):
            add("type", "config")
            add("live", c.configuration.rawValue)
        case .session, .appConfig:
            Issue.record("scenarios have no session or appConfig records")
        }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("perimeter-properties-\(UUID().uuidString)-\(name)").path
    }

    /// The first line at which two outputs differ, for a message that does not print megabytes.
    static func firstDifferentLine(_ a: [UInt8], _ b: [UInt8]) -> String {
        let la = a.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let lb = b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let k = zip(la.indices, lb.indices).first(where: { la[$0.0] != lb[$0.1] })?.0 else {
            return la.count == lb.count ? "no line differs" : "\(la.count) and \(lb.count) lines, equal up to the shorter"
        }
        return "line \(k + 1): \(String(decoding: la[k], as: UTF8.self)) vs \(String(decoding: lb[k], as: UTF8.self))"
    }
}
