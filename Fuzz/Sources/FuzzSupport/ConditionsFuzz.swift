import Foundation
import Perimeter
import PerimeterIO

/// The conditions reader's target. Whatever the bytes:
/// - `ConditionsReader.parse` returns (no crash, no hang, no sanitizer report), on 1 and 2 threads
///   with the same definitions and problems (2 threads split only files of more than 64 features);
/// - every problem names the file it was given and a line inside it (or none);
/// - with `repair`, a file that had no problems reads the same;
/// - what it accepts an engine takes (no duplicate the reader let through), and probes at the
///   conditions' own coordinates (circle centres and rims, polygon vertices and edge midpoints,
///   matching beacons) give the same events one record at a time as through the engine's batch paths.
public enum ConditionsFuzz {
    static let file = "fuzz.geojson"

    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let data = Data(buffer: bytes)
        let one = ConditionsReader.parse(data, file: file, repair: false, threads: 1)
        let two = ConditionsReader.parse(data, file: file, repair: false, threads: 2)
        if one.0 != two.0 || one.1 != two.1 {
            Fuzz.finding("""
                the conditions reader's answer depends on its threads:
                  1 thread: \(describe(one))
                  2 threads: \(describe(two))
                """)
        }
        let lines = bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        checkProblems(one.1, lines: lines)
        let repaired = ConditionsReader.parse(data, file: file, repair: true, threads: 1)
        checkProblems(repaired.1, lines: lines)
        if one.1.isEmpty && (repaired.0 != one.0 || !repaired.1.isEmpty) {
            Fuzz.finding("""
                a file without problems reads differently with repair:
                  without: \(describe(one))
                  with: \(describe(repaired))
                """)
        }
        for definitions in [one.0, repaired.0] where !definitions.isEmpty {
            probe(definitions)
        }
    }

    static func describe(_ answer: ([ConditionDefinition], [InputError])) -> String {
        Fuzz.short("\(answer.0.count) definitions \(answer.0.map { "\($0.identifier)@\($0.line)" }), "
                   + "\(answer.1.count) problems \(answer.1.map(\.description))", 2000)
    }

    static func checkProblems(_ problems: [InputError], lines: Int) {
        for problem in problems {
            guard problem.file == file, problem.line.map({ (1...lines).contains($0) }) ?? true else {
                Fuzz.finding("a problem names a line outside the file (\(lines) lines) or another file: \(Fuzz.short(problem.description))")
            }
        }
    }

    // MARK: - Probes

    static let base: Int64 = 1_772_352_000 * 1_000_000_000  // 2026-03-01T08:00:00Z
    static let mostProbes = 256

    /// Records at the conditions' own coordinates, as `(isFix, observation)` for devices "p" (in this
    /// order) and "q" (in reverse order), a second apart.
    static func probes(_ definitions: [ConditionDefinition]) -> [Observation] {
        var points: [Coordinate] = [], beacons: [BeaconIdentity] = []
        func add(_ c: Coordinate) {
            guard points.count < mostProbes else { return }
            points.append(Coordinate(latitude: min(90, max(-90, c.latitude)), longitude: min(180, max(-180, c.longitude))))
        }
        for definition in definitions {
            switch definition.condition {
            case .circle(let circle):
                add(circle.center)
                let degrees = circle.radius / 111_195
                add(Coordinate(latitude: circle.center.latitude + degrees, longitude: circle.center.longitude))
                add(Coordinate(latitude: circle.center.latitude, longitude: circle.center.longitude - degrees * 0.999))
            case .polygon(let polygon):
                for part in polygon.polygons {
                    for ring in part.rings {
                        for (a, b) in zip(ring, ring.dropFirst()).prefix(24) {
                            add(a)
                            add(Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2))
                        }
                    }
                }
            case .beacon(let beacon):
                if beacons.count < 32 {
                    beacons.append(BeaconIdentity(uuid: beacon.uuid, major: beacon.major ?? 7, minor: beacon.minor ?? 9))
                }
            }
        }
        var observations: [Observation] = []
        let accuracies = [5.0, 0, 65, 1500, -1]
        for (k, point) in points.enumerated() {
            let time = Timestamp(nanosecondsSinceEpoch: base + Int64(observations.count) * 1_000_000_000)
            observations.append(.fix(Fix(time: time, coordinate: point, horizontalAccuracy: accuracies[k % accuracies.count])))
        }
        for (k, beacon) in beacons.enumerated() {
            let time = Timestamp(nanosecondsSinceEpoch: base + Int64(observations.count) * 1_000_000_000)
            observations.append(.sighting(BeaconSighting(time: time, identity: beacon, rssi: k % 3 == 0 ? 0 : -70)))
        }
        return observations
    }

    static func probe(_ definitions: [ConditionDefinition]) {
        let conditions = definitions.map { ($0.condition, $0.identifier, $0.assuming) }
        var sequential = MonitoringEngine(), batched = MonitoringEngine()
        batched.batchThreads = 2
        do {
            try sequential.add(contentsOf: conditions)
            try batched.add(contentsOf: conditions)
        } catch {
            Fuzz.finding("the engine refuses conditions the reader accepted: \(error)")
        }
        let observations = probes(definitions)
        // p: the probes in order; q: in reverse order, the same times. Interleaved p, q, p, q, ….
        var records: [(device: String, observation: Observation)] = []
        for (k, o) in observations.enumerated() {
            records.append(("p", o))
            records.append(("q", retimed(observations[observations.count - 1 - k], like: o)))
        }

        var expected: [MonitorEvent] = []
        for (k, r) in records.enumerated() {
            do throws(ObservationProblem) {
                try sequential.process(r.observation, device: r.device, cause: k + 1, into: &expected)
            } catch {
                Fuzz.finding("the engine refuses a probe: \(r.observation): \(error)")
            }
        }
        sequential.finish(into: &expected)

        // The batch paths: runs of fixes and of sightings, each as one batch.
        var got: [MonitorEvent] = []
        let ids = ["p": batched.deviceID("p"), "q": batched.deviceID("q")]
        var start = 0
        while start < records.count {
            let isFix: (Observation) -> Bool = { if case .fix = $0 { true } else { false } }
            let fixRun = isFix(records[start].observation)
            var end = start
            while end < records.count && isFix(records[end].observation) == fixRun { end += 1 }
            do throws(BatchProblem) {
                if fixRun {
                    try batched.process((start..<end).map { k in
                        guard case .fix(let fix) = records[k].observation else { fatalError() }
                        return FixRecord(device: ids[records[k].device]!, fix: fix, cause: k + 1)
                    }, into: &got)
                } else {
                    try batched.process((start..<end).map { k in
                        guard case .sighting(let s) = records[k].observation else { fatalError() }
                        return SightingRecord(device: ids[records[k].device]!, sighting: s, cause: k + 1)
                    }, into: &got)
                }
            } catch {
                Fuzz.finding("the engine's batch path refuses a probe the one-at-a-time path took: \(error)")
            }
            start = end
        }
        batched.finish(into: &got)
        EventsOracle.compare(got: got, expected: expected, "probes of the conditions through the batch paths",
                             context: "conditions: \(definitions.map { "\($0.identifier): \($0.condition)" })")
    }

    static func retimed(_ o: Observation, like other: Observation) -> Observation {
        let time: Timestamp
        switch other {
        case .fix(let f): time = f.time
        case .sighting(let s): time = s.time
        default: return o
        }
        switch o {
        case .fix(var f): f.time = time; return .fix(f)
        case .sighting(var s): s.time = time; return .sighting(s)
        default: return o
        }
    }
}

/// Events compared as the tool writes them (`EventEncoding`).
public enum EventsOracle {
    public static func encode(_ events: [MonitorEvent]) -> [String] { events.map(EventEncoding.jsonLine) }

    public static func compare(got: [MonitorEvent], expected: [MonitorEvent], _ what: String, context: String) {
        compare(got: encode(got).joined(), expected: encode(expected).joined(), what, context: context)
    }

    /// `got` and `expected` are JSON Lines texts.
    public static func compare(got: String, expected: String, _ what: String, context: String) {
        guard got != expected else { return }
        let a = got.split(separator: "\n", omittingEmptySubsequences: false)
        let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let k = Fuzz.firstDifference(a, b)
        Fuzz.finding("""
            \(what): the events differ from the one-record-at-a-time oracle's at line \(k + 1) \
            (\(a.count - 1) lines vs \(b.count - 1) expected)
              got:      \(k < a.count ? String(a[k]) : "(none)")
              expected: \(k < b.count ? String(b[k]) : "(none)")
            \(Fuzz.short(context, 3000))
            """)
    }
}
