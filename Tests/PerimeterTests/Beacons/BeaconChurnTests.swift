import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// Beacon conditions added, removed and re-added under the same identifiers between records, while
/// devices' sightings and fixes (which advance stream time and so fire exits, SPEC §2) come one at a
/// time and in batches on one and three threads; against a plain reading of SPEC §2 of the test's own,
/// in whole nanoseconds. Times step by quarter seconds, so that exits tie with records, with each
/// other and with additions.
@Suite struct BeaconChurnTests {
    static let timeout: Int64 = 30_000_000_000

    typealias Spec = BeaconSpec

    enum Record {
        case sighting(device: Int, t: Int64, BeaconIdentity)
        case fix(device: Int, t: Int64)

        var device: Int { switch self { case .sighting(let d, _, _), .fix(let d, _): d } }
        var t: Int64 { switch self { case .sighting(_, let t, _), .fix(_, let t): t } }

        var observation: Observation {
            let time = Timestamp(nanosecondsSinceEpoch: T.base.nanosecondsSinceEpoch + t)
            return switch self {
            case .sighting(_, _, let identity): .sighting(BeaconSighting(time: time, identity: identity, rssi: -60))
            case .fix: .fix(Fix(time: time, coordinate: Coordinate(latitude: 48.85, longitude: 2.35), horizontalAccuracy: 10))
            }
        }
    }

    enum Step {
        case add([Spec])
        case remove([String])
        /// Records given to the batch paths as one batch (all sightings or all fixes).
        case records([Record])
    }

    static func describe(_ e: MonitorEvent) -> String {
        "\(e.device) \(e.identifier) \(e.state.rawValue) \(e.date.nanosecondsSinceEpoch - T.base.nanosecondsSinceEpoch) "
            + "\(e.refinement.map { "\($0)" } ?? "nil") #\(e.cause)"
    }

    /// The scenario: 16 devices; 24 conditions to start with (all forms, all starting states), then
    /// additions, removals and re-additions between records; records in runs of one kind, some a
    /// single record, devices' clocks stepping by 0, ¼ s, whole seconds, the timeout exactly, and
    /// minutes.
    static func scenario(seed: UInt64, records count: Int) -> (steps: [Step], devices: Int) {
        var rng = SplitMix64(seed: seed)
        let devices = 16
        var fresh = 0
        var live: [String] = []
        var gone: [String] = []
        func spec(_ id: String? = nil) -> Spec {
            let name = id ?? { fresh += 1; return "b\(fresh)" }()
            let uuid = Int.random(in: 0..<3, using: &rng) == 0 ? T.otherUUID : T.uuid
            let major = UInt16.random(in: 0..<3, using: &rng), minor = UInt16.random(in: 0..<3, using: &rng)
            let assuming: ConditionState = [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!
            return switch Int.random(in: 0..<3, using: &rng) {
            case 0: Spec(id: name, uuid: uuid, assuming: assuming)
            case 1: Spec(id: name, uuid: uuid, major: major, assuming: assuming)
            default: Spec(id: name, uuid: uuid, major: major, minor: minor, assuming: assuming)
            }
        }
        var steps: [Step] = []
        let initial = (0..<24).map { _ in spec() }
        live = initial.map(\.id)
        steps.append(.add(initial))
        var clock = (0..<devices).map { _ in Int64.random(in: 0..<240, using: &rng) * 250_000_000 }
        let steps4: [Int64] = [0, 250_000_000, 1_000_000_000, 2_000_000_000, 29_750_000_000, 30_000_000_000, 30_250_000_000,
                               45_000_000_000, 120_000_000_000]
        var emitted = 0
        func record(sighting: Bool) -> Record {
            // Devices 8… start one by one through the scenario, their clocks behind the others':
            // conditions added before their first record count from it, or from the addition if later.
            let d = Int.random(in: 0..<min(devices, 8 + emitted * 10 / count), using: &rng)
            clock[d] += steps4.randomElement(using: &rng)!
            if sighting {
                let identity = BeaconIdentity(uuid: Int.random(in: 0..<3, using: &rng) == 0 ? T.otherUUID : T.uuid,
                                              major: .random(in: 0..<3, using: &rng), minor: .random(in: 0..<3, using: &rng))
                return .sighting(device: d, t: clock[d], identity)
            }
            return .fix(device: d, t: clock[d])
        }
        while emitted < count {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1:  // add new ones, or re-add removed identifiers
                var added: [Spec] = []
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    if !gone.isEmpty && Bool.random(using: &rng) {
                        added.append(spec(gone.remove(at: Int.random(in: 0..<gone.count, using: &rng))))
                    } else {
                        added.append(spec())
                    }
                }
                live += added.map(\.id)
                steps.append(.add(added))
            case 2:  // remove some
                var ids: [String] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) where live.count > 4 {
                    ids.append(live.remove(at: Int.random(in: 0..<live.count, using: &rng)))
                }
                gone += ids
                steps.append(.remove(ids))
            default:  // a run of one kind, sometimes a single record
                let n = Bool.random(using: &rng) ? 1 : Int.random(in: 2...400, using: &rng)
                let sightings = Int.random(in: 0..<4, using: &rng) != 0
                steps.append(.records((0..<n).map { _ in
                    defer { emitted += 1 }
                    return record(sighting: sightings)
                }))
            }
        }
        return (steps, devices)
    }

    enum Path { case single, batch(threads: Int) }

    static func run(_ path: Path, steps: [Step], devices: Int) throws -> [MonitorEvent] {
        var policy = MonitoringPolicy()
        policy.beaconExitTimeout = Double(timeout) / 1e9
        var engine = MonitoringEngine(policy: policy)
        if case .batch(let threads) = path { engine.batchThreads = threads }
        let ids = (0..<devices).map { engine.deviceID("d\($0)") }
        var events: [MonitorEvent] = []
        var cause = 0
        for step in steps {
            switch step {
            case .add(let specs): for s in specs { try engine.add(s.condition, identifier: s.id, assuming: s.assuming) }
            case .remove(let identifiers):
                for id in identifiers {
                    let removed = engine.remove(id)
                    #expect(removed, "remove \(id)")
                }
            case .records(let records):
                switch path {
                case .single:
                    for r in records {
                        try engine.process(r.observation, device: ids[r.device], cause: cause, into: &events)
                        cause += 1
                    }
                case .batch:
                    if case .sighting = records[0] {
                        let batch = records.enumerated().map { k, r in
                            guard case .sighting(let sighting) = r.observation else { fatalError() }
                            return SightingRecord(device: ids[r.device], sighting: sighting, cause: cause + k)
                        }
                        try engine.process(batch, into: &events)
                    } else {
                        let batch = records.enumerated().map { k, r in
                            guard case .fix(let fix) = r.observation else { fatalError() }
                            return FixRecord(device: ids[r.device], fix: fix, cause: cause + k)
                        }
                        try engine.process(batch, into: &events)
                    }
                    cause += records.count
                }
            }
        }
        engine.finish(into: &events)
        return events
    }

    @Test(arguments: [0, 1, 2, 3])
    func engineEqualsThePlainReading(seed: UInt64) throws {
        let (steps, devices) = Self.scenario(seed: 300 + seed, records: 8_000)
        var oracle = Oracle(devices: devices)
        var cause = 0
        for step in steps {
            switch step {
            case .add(let specs): for s in specs { oracle.add(s) }
            case .remove(let identifiers): for id in identifiers { oracle.remove(id) }
            case .records(let records):
                for r in records {
                    oracle.apply(r, cause: cause)
                    cause += 1
                }
            }
        }
        oracle.finish()
        #expect(oracle.events.count > 2_000)
        #expect(oracle.events.filter { $0.contains(" unsatisfied ") }.count > 500)
        let single = try Self.run(.single, steps: steps, devices: devices)
        #expect(firstDifference(single.map(Self.describe), oracle.events) == nil, "one record at a time")
        for threads in [1, 3] {
            let batch = try Self.run(.batch(threads: threads), steps: steps, devices: devices)
            #expect(firstDifference(batch.map(Self.describe), oracle.events) == nil, "batches on \(threads) thread(s)")
        }
    }
}
