import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
/// The per-device exit queue against a sorted list: pushes and pops in any mix give the entries back
/// in (due, condition) order.
@Suite struct ExitQueueTests {
    /// Random steps against a sorted list — of every 100, `pushes` push `entry(&rng)` and `pops` pop —
    /// checking the first entry and the next due instant throughout, and the order when drained.
    private func exercise(seed: UInt64, steps: Int, pushes: Int, pops: Int,
                          entry: (inout SplitMix64) -> ExitQueue.Entry) {
        var rng = SplitMix64(seed: seed)
        var queue = ExitQueue(), list: [ExitQueue.Entry] = []
        for step in 0..<steps {
            switch Int.random(in: 0..<(pushes + pops), using: &rng) {
            case ..<pushes:
                let e = entry(&rng)
                queue.push(e)
                list.append(e)
            default:
                list.sort()
                #expect(queue.first == list.first)
                #expect(queue.popFirst() == (list.isEmpty ? nil : list.removeFirst()))
            }
            if step % 1000 == 0 { #expect(queue.count == list.count) }
            #expect(queue.nextDue == list.min()?.due ?? .distantFuture)
        }
        list.sort()
        var drained: [ExitQueue.Entry] = []
        while let e = queue.popFirst() { drained.append(e) }
        #expect(drained == list)
        #expect(queue.nextDue == .distantFuture)
    }

    /// Pushes in any order: the heap beside the sorted run.
    @Test func queueEqualsASortedList() {
        exercise(seed: 61, steps: 20_000, pushes: 60, pops: 40) { rng in
            ExitQueue.Entry(due: Timestamp(nanosecondsSinceEpoch: .random(in: 0...50, using: &rng) * 1_000_000_000),
                            condition: .random(in: 0..<40, using: &rng))
        }
    }

    /// A queue that never empties (a beacon seen every second) still lets go of what it popped.
    @Test func queueThatNeverEmptiesKeepsFewEntries() {
        var queue = ExitQueue()
        for second in 0..<10_000 {
            queue.push(.init(due: Timestamp(nanosecondsSinceEpoch: Int64(second + 30) * 1_000_000_000), condition: 0))
            if second >= 30 { _ = queue.popFirst() }
        }
        #expect(queue.count == 30)
        #expect(queue.storedCount <= 4 * 64)
    }

    /// As a device pushes them: dues that only advance, several conditions per instant (so ties come
    /// after larger conditions, near and far back), and now and then a range timer or an earlier due —
    /// the sorted run, its insertions, the heap beside it and the pops between them.
    @Test func queueInDueOrderEqualsASortedList() {
        var now: Int64 = 0
        exercise(seed: 62, steps: 50_000, pushes: 61, pops: 39) { rng in
            if Int.random(in: 0..<4, using: &rng) == 0 { now += .random(in: 0...3, using: &rng) }
            let isRange = Int.random(in: 0..<50, using: &rng) == 0
            let due = isRange || Int.random(in: 0..<50, using: &rng) == 0 ? now + .random(in: -5...40, using: &rng) : now
            let condition = Int32.random(in: 0..<(Int.random(in: 0..<3, using: &rng) == 0 ? 4 : 40), using: &rng)
            return ExitQueue.Entry(due: Timestamp(nanosecondsSinceEpoch: due * 1_000_000_000), condition: condition,
                                   rangeEnd: isRange ? condition + 5 : -1)
        }
    }
}
