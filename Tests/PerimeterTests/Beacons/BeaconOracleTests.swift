import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The engine's beacon state machines (sparse pairs, range timers, an exit queue whose entries move
/// only when they come due) against a plain reading of SPEC §2: every pair of every device held
/// explicitly, and every exit found by scanning them all.
@Suite struct BeaconOracleTests {
    typealias Spec = BeaconSpec

    static func describe(_ e: MonitorEvent) -> String {
        let seconds = Double(e.date.nanosecondsSinceEpoch - T.base.nanosecondsSinceEpoch) / 1e9
        return "\(e.device) \(e.identifier) \(e.state.rawValue) \(seconds) \(e.refinement.map { "\($0)" } ?? "nil") #\(e.cause)"
    }

    /// 40 conditions of all three forms and starting states; 9,000 sightings of 12 devices at whole
    /// seconds (so that exits tie with each other and with sightings), some seconds apart and some
    /// minutes, of beacons that each match several conditions.
    @Test(arguments: [0, 1, 2])
    func engineEqualsThePlainReading(seed: UInt64) throws {
        var rng = SplitMix64(seed: 90 + seed)
        let timeout = 30.0
        let specs = (0..<40).map { i -> Spec in
            let uuid = i % 3 == 0 ? T.otherUUID : T.uuid
            let major = UInt16.random(in: 0..<4, using: &rng), minor = UInt16.random(in: 0..<3, using: &rng)
            let initial: ConditionState = [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!
            return switch i % 4 {
            case 0: Spec(uuid: uuid, assuming: initial)
            case 1: Spec(uuid: uuid, major: major, assuming: initial)
            default: Spec(uuid: uuid, major: major, minor: minor, assuming: initial)
            }
        }
        var policy = MonitoringPolicy()
        policy.beaconExitTimeout = timeout
        var engine = MonitoringEngine(policy: policy)
        for (i, s) in specs.enumerated() { try engine.add(s.condition, identifier: "b\(i)", assuming: s.assuming) }
        var batched = engine
        batched.batchThreads = 3

        var oracle = Oracle(specs: specs, timeout: timeout)
        var time = [Double](repeating: 0, count: 12)
        var records: [(device: Int, t: Double, identity: BeaconIdentity)] = []
        for _ in 0..<9_000 {
            let d = Int.random(in: 0..<12, using: &rng)
            time[d] += [0, 1, 1, 2, 5, 10, 29, 30, 31, 45, 120].randomElement(using: &rng)!
            let identity = BeaconIdentity(uuid: Int.random(in: 0..<3, using: &rng) == 0 ? T.otherUUID : T.uuid,
                                          major: .random(in: 0..<4, using: &rng), minor: .random(in: 0..<3, using: &rng))
            records.append((d, time[d], identity))
        }

        var one: [MonitorEvent] = []
        for (k, r) in records.enumerated() {
            oracle.sighting("d\(r.device)", at: r.t, r.identity, cause: k)
            try engine.process(.sighting(BeaconSighting(time: T.at(r.t), identity: r.identity, rssi: -60)), device: "d\(r.device)",
                               cause: k, into: &one)
        }
        oracle.finish()
        engine.finish(into: &one)

        let ids = (0..<12).map { batched.deviceID("d\($0)") }
        let sightings = records.enumerated().map { k, r in
            SightingRecord(device: ids[r.device], sighting: BeaconSighting(time: T.at(r.t), identity: r.identity, rssi: -60), cause: k)
        }
        var batch: [MonitorEvent] = []
        try batched.process(sightings, into: &batch)
        batched.finish(into: &batch)

        #expect(oracle.events.count > 3_000)
        #expect(oracle.events.contains { $0.contains(" unsatisfied ") })
        #expect(firstDifference(one.map(Self.describe), oracle.events) == nil)
        #expect(firstDifference(batch.map(Self.describe), oracle.events) == nil)
    }
}
