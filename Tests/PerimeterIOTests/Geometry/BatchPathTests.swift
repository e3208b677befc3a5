import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The batch path computes geometry out of order (or only where anchors cannot answer); its events
/// must equal one call per fix.
@Suite struct BatchPathTests {
    static let paris = Coordinate(latitude: 48.85, longitude: 2.35)

    /// 300 conditions round Paris: circles starting in a random state, and small star-shaped polygons.
    static func parisEngine(confirmation: Double, rng: inout SplitMix64) throws -> MonitoringEngine {
        var policy = MonitoringPolicy()
        policy.confirmation = confirmation
        var engine = MonitoringEngine(policy: policy)
        for i in 0..<300 {
            let c = Coordinate(latitude: paris.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: paris.longitude + .random(in: -0.03...0.03, using: &rng))
            if i % 2 == 0 {
                try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...400, using: &rng))), identifier: "c\(i)",
                               assuming: [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!)
            } else {
                let polygon = PolygonLocatorTests.spiky(Int.random(in: 8...30, using: &rng), centre: c,
                                                        radius: .random(in: 0.0005...0.004, using: &rng), rng: &rng)
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
            }
        }
        return engine
    }

    /// `steps` fixes of the devices `ids` taking turns, a round a second, each on a random walk from
    /// `origin` of up to `stride` degrees of latitude (1.6 times that of longitude) per fix.
    static func walks(_ ids: [DeviceID], steps: Int, from origin: Coordinate, stride: Double, rng: inout SplitMix64,
                      accuracy: (inout SplitMix64) -> Double) -> [FixRecord] {
        var positions = Array(repeating: origin, count: ids.count)
        return (0..<steps).map { step in
            let d = step % ids.count
            positions[d].latitude += .random(in: -stride...stride, using: &rng)
            positions[d].longitude += .random(in: -1.6 * stride...1.6 * stride, using: &rng)
            let fix = Fix(time: T0.t.adding(TimeSpan(seconds: Double(step / ids.count))), coordinate: positions[d],
                          horizontalAccuracy: accuracy(&rng))
            return FixRecord(device: ids[d], fix: fix, cause: step)
        }
    }

    /// (Batches of 64 fixes from 50 devices run in record order; larger ones device by device.)
    @Test(arguments: [(1, 4096), (2, 20_000), (1, 64)])
    func batchEqualsOneCallPerFix(threads: Int, chunk: Int) throws {
        var rng = SplitMix64(seed: 77)
        let engine = try Self.parisEngine(confirmation: 3, rng: &rng)
        let origin = Self.paris
        var sequential = engine
        var batched = engine
        batched.batchThreads = threads
        let ids = (0..<50).map { batched.deviceID("d\($0)") }
        _ = (0..<50).map { sequential.deviceID("d\($0)") }
        let records = Self.walks(ids, steps: 20_000, from: origin, stride: 0.0005, rng: &rng) { rng in
            [-1.0, 0, 8, 40, 90, 200].randomElement(using: &rng)!
        }
        var expected: [MonitorEvent] = []
        for r in records { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expected) }
        var got: [MonitorEvent] = []
        for start in stride(from: 0, to: records.count, by: chunk) {
            try batched.process(Array(records[start..<min(start + chunk, records.count)]), into: &got)
        }
        #expect(firstDifference(got, expected) == nil)
        #expect(expected.count > 1000)
        #expect(batched.fixesAnsweredByAnchor == sequential.fixesAnsweredByAnchor)
        #expect(batched.fixesAnsweredByAnchor > 1000)
        #expect(batched.fixesMeasuredNearAnchor == sequential.fixesMeasuredNearAnchor)
        var expectedChanges: [AuthorizationChange] = [], gotChanges: [AuthorizationChange] = []
        sequential.takeAuthorizationChanges(into: &expectedChanges)
        batched.takeAuthorizationChanges(into: &gotChanges)
        #expect(firstDifference(gotChanges, expectedChanges) == nil)
        #expect(gotChanges.count == 50)

        // A refused fix stops the batch at the same place, with the same events before it.
        let more = records.prefix(10_000).map { r in
            var r = r
            r.fix.time = Timestamp(nanosecondsSinceEpoch: r.fix.time.nanosecondsSinceEpoch + 1_000_000_000_000)
            return r
        }
        var bad = records[0]  // far older than its device's latest fix
        bad.cause = 999_999
        let tail = Array(more[..<9000]) + [bad] + Array(more[9000...])
        var seqEvents: [MonitorEvent] = [], batchEvents: [MonitorEvent] = []
        var seqProblem: ObservationProblem?
        for r in tail {
            do { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &seqEvents) } catch { seqProblem = error; break }
        }
        do {
            try batched.process(tail, into: &batchEvents)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.index == 9000)
            #expect(error.problem == seqProblem)
        }
        #expect(firstDifference(batchEvents, seqEvents) == nil)
    }

    /// Each shard finds its own devices' first refused fix; the batch stops at the earliest of them,
    /// whichever shard holds it and whatever the problem (bad values, or older than the device's
    /// previous fix), with the events of exactly the fixes before it.
    @Test(arguments: [(6_002, 9_001), (9_001, 6_002), (6_001, nil)])
    func batchStopsAtTheEarliestRefusalOfAnyShard(outOfOrderAt: Int, badValueAt: Int?) throws {
        var rng = SplitMix64(seed: 78)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 48.85, longitude: 2.35)
        for i in 0..<200 {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: origin.longitude + .random(in: -0.03...0.03, using: &rng))
            try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 100...800, using: &rng))),
                           identifier: "c\(i)")
        }
        var sequential = engine
        var batched = engine
        batched.batchThreads = 3
        let ids = (0..<48).map { batched.deviceID("d\($0)") }
        _ = (0..<48).map { sequential.deviceID("d\($0)") }
        var records = Self.walks(ids, steps: 13_000, from: origin, stride: 0.001, rng: &rng) { _ in 10 }
        // Devices 0, 1 and 2 modulo 3 are three shards' (13,000 fixes make three workers).
        #expect(records[outOfOrderAt].device.index % 3 != (badValueAt.map { records[$0].device.index % 3 } ?? -1))
        records[outOfOrderAt].fix.time = T0.t.adding(TimeSpan(seconds: -1))
        if let badValueAt { records[badValueAt].fix.coordinate.latitude = 91 }
        let first = min(outOfOrderAt, badValueAt ?? .max)

        var expected: [MonitorEvent] = []
        var expectedProblem: ObservationProblem?
        for r in records {
            do { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expected) } catch {
                expectedProblem = error
                break
            }
        }
        var got: [MonitorEvent] = []
        do {
            try batched.process(records, into: &got)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.index == first)
            #expect(error.problem == expectedProblem)
            #expect(error.problem.field == (first == outOfOrderAt ? "t" : "lat"))
        }
        #expect(expected.count > 500)
        #expect(firstDifference(got, expected) == nil)
        // The fixes after the refused one were not applied: the rest of the batch gives the same
        // events as one call per fix.
        var rest: [MonitorEvent] = [], expectedRest: [MonitorEvent] = []
        let after = Array(records[(first + 1)...]).filter { $0.cause != outOfOrderAt && $0.cause != badValueAt }
        for r in after { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expectedRest) }
        try batched.process(after, into: &rest)
        #expect(firstDifference(rest, expectedRest) == nil)
    }
}
