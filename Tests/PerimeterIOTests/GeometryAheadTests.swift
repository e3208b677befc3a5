import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The batch path's choice of fixes whose geometry it computes ahead (`StateShard.geometryAhead`):
/// it leaves out fixes that the least anchor of the fix before would answer, which is sound only if
/// no valid anchor falls below `FixAnchor.leastBudget`.
@Suite struct GeometryAheadTests {
    static func walks(_ engine: inout MonitoringEngine, rng: inout SplitMix64) -> [FixRecord] {
        let ids = (0..<50).map { engine.deviceID("d\($0)") }
        return BatchPathTests.walks(ids, steps: 20_000, from: BatchPathTests.paris, stride: 0.0005, rng: &rng) { rng in
            [5.0, 8, 20, 40, 90].randomElement(using: &rng)!
        }
    }

    /// Every anchor a fix leaves keeps at least the least budget for its margin.
    @Test func noAnchorFallsBelowTheLeastBudget() throws {
        var rng = SplitMix64(seed: 91)
        var engine = try BatchPathTests.parisEngine(confirmation: 0, rng: &rng)
        let records = Self.walks(&engine, rng: &rng)
        var events: [MonitorEvent] = []
        var anchors = 0, negative = 0
        for r in records {
            let answered = engine.fixesAnsweredByAnchor
            try engine.process(.fix(r.fix), device: r.device, cause: r.cause, into: &events)
            guard engine.fixesAnsweredByAnchor == answered, let anchor = engine.devicesForTesting[Int(r.device.index)].anchor else {
                continue
            }
            anchors += 1
            if anchor.budget < 0 { negative += 1 }
            let least = FixAnchor.leastBudget(margin: engine.policy.margin(for: r.fix))
            #expect(anchor.budget >= least, "fix \(r.cause): budget \(anchor.budget) < \(least)")
        }
        // Anchors below zero (a device inside a boundary's margin on its other side) are what the
        // bound is about: the walk must produce many.
        #expect(anchors > 5000)
        #expect(negative > 500)
    }

    /// Without pairs waiting for confirmation, the fixes chosen ahead are nearly all a batch needs,
    /// and the events are those of one call per fix; with confirmation, invalid anchors send some
    /// fixes to the late path, with the same events.
    @Test(arguments: [0.0, 3.0])
    func chosenFixesCoverTheBatch(confirmation: Double) throws {
        var rng = SplitMix64(seed: 92)
        var engine = try BatchPathTests.parisEngine(confirmation: confirmation, rng: &rng)
        let records = Self.walks(&engine, rng: &rng)
        var sequential = engine, batched = engine
        batched.batchGeometryFirst = true
        batched.batchThreads = 2
        var expected: [MonitorEvent] = [], got: [MonitorEvent] = []
        for r in records { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expected) }
        for start in stride(from: 0, to: records.count, by: 4096) {
            try batched.process(Array(records[start..<min(start + 4096, records.count)]), into: &got)
        }
        #expect(firstDifference(got, expected) == nil)
        #expect(batched.fixesAnsweredByAnchor == sequential.fixesAnsweredByAnchor)
        let needing = records.count - batched.fixesAnsweredByAnchor
        if confirmation == 0 {
            #expect(batched.fixesMissedByGeometryAhead * 100 <= needing)
        } else {
            #expect(batched.fixesMissedByGeometryAhead > 0)
        }
    }
}
