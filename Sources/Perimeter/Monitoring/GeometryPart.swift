import Dispatch

/// One worker's share of a batch's stateless geometry: the candidates and sides of a contiguous run of
/// the batch's cell order.
///
/// `@unchecked Sendable`: each part is written by exactly one worker inside `compute`, and read only
/// after every worker has finished.
final class GeometryPart: @unchecked Sendable {
    var candidates: [Int32] = []
    var sides: [Side?] = []
    /// For each fix of the run: its index in the batch and its range in `candidates`.
    var ranges: [(fix: Int32, start: Int32, end: Int32)] = []

    static func compute(order: [UInt64], batch: [FixRecord], catalog: ConditionCatalog, policy: MonitoringPolicy,
                        workers: Int) -> [GeometryPart] {
        let parts = (0..<workers).map { _ in GeometryPart() }
        let count = catalog.geographic.count
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let part = parts[w]
            let low = order.count * w / workers, high = order.count * (w + 1) / workers
            var stamps = [UInt32](repeating: 0, count: count)
            var candidates: [Int32] = [], sides: [Side?] = []
            part.ranges.reserveCapacity(high - low)
            for (n, entry) in order[low..<high].enumerated() {
                let k = Int(entry & 0xFFFF_FFFF)
                let fix = batch[k].fix
                guard fix.isValid, !fix.coordinate.latitude.isNaN else { continue }
                candidates.removeAll(keepingCapacity: true)
                sides.removeAll(keepingCapacity: true)
                var frame = FixFrame(fix.coordinate, margin: policy.margin(for: fix))
                catalog.collectSides(&frame, stamps: &stamps, stamp: UInt32(n + 1), candidates: &candidates, sides: &sides)
                let start = Int32(part.candidates.count)
                part.candidates.append(contentsOf: candidates)
                part.sides.append(contentsOf: sides)
                part.ranges.append((Int32(k), start, Int32(part.candidates.count)))
            }
        }
        return parts
    }
}
