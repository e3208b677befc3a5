import CBuiltins

/// The geometry of a run of fixes computed ahead, in cell order, so that fixes of the same place are
/// evaluated together while their conditions' data is in cache: each fix's candidates and readings,
/// then looked up by the fix's position in the batch.
struct GeometryAhead {
    private var candidates: [Int32] = []
    private var readings: [Reading] = []
    private var start: [Int32]
    private var end: [Int32]

    /// - Parameter order: the fixes to evaluate, as (cell sort key << 32 | position in `batch`), sorted.
    init(order: [UInt64], batch: [FixRecord], catalog: ConditionCatalog, policy: MonitoringPolicy) {
        start = [Int32](repeating: -1, count: batch.count)
        end = [Int32](repeating: 0, count: batch.count)
        var stamps = [UInt32](repeating: 0, count: catalog.geographic.count)
        for (n, entry) in order.enumerated() {
            // (The records are read in cell order, not in theirs: each is asked for some fixes ahead.)
            if n + StateShard.recordsAhead < order.count {
                let later = Int(order[n + StateShard.recordsAhead] & 0xFFFF_FFFF)
                batch.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + later) }
            }
            let k = Int(entry & 0xFFFF_FFFF)
            let fix = batch[k].fix
            guard fix.isValid else { continue }
            var frame = FixFrame(fix.coordinate, margin: policy.margin(for: fix))
            start[k] = Int32(candidates.count)
            catalog.collectReadings(&frame, stamps: &stamps, stamp: UInt32(n + 1), candidates: &candidates, readings: &readings)
            end[k] = Int32(candidates.count)
        }
    }

    /// Asks for where fix `k`'s geometry is, ahead of `prefetchGeometry(_:)` and `load(_:into:)`.
    @inline(__always)
    func prefetchBounds(_ k: Int) {
        start.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + k) }
        end.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + k) }
    }

    /// Asks for fix `k`'s candidates and readings, ahead of `load(_:into:)`.
    @inline(__always)
    func prefetchGeometry(_ k: Int) {
        let first = Int(start[k])
        guard first >= 0, first < candidates.count else { return }
        candidates.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + first) }
        readings.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + first) }
    }

    /// Puts fix `k`'s candidates and readings in `scratch`; false if they were not computed.
    func load(_ k: Int, into scratch: inout EvaluationScratch) -> Bool {
        guard start[k] >= 0 else { return false }
        let range = Int(start[k])..<Int(end[k])
        scratch.candidates.removeAll(keepingCapacity: true)
        scratch.readings.removeAll(keepingCapacity: true)
        scratch.candidates.append(contentsOf: candidates[range])
        scratch.readings.append(contentsOf: readings[range])
        return true
    }
}
