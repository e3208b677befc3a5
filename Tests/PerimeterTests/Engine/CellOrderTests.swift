import PerimeterTestSupport
import Testing

@testable import Perimeter

/// The batch path's counting sort against the standard library's sort.
@Suite struct CellOrderTests {
    /// Cells that fit one 16-bit pass, cells that need two, and the all-ones key of a point that is no
    /// position; duplicates of a cell many times over; empty and single batches.
    @Test(arguments: [0, 1, 2, 1_000, 100_000])
    func countingSortEqualsSort(count: Int) {
        var rng = SplitMix64(seed: UInt64(count) + 1)
        for cellRange in [UInt64(40), 1 << 16, 1 << 24] {
            var keys = (0..<count).map { k -> UInt64 in
                let cell = Int.random(in: 0..<50, using: &rng) == 0 ? UInt64(UInt32.max) : .random(in: 0..<cellRange, using: &rng)
                return cell << 32 | UInt64(k)
            }
            let expected = keys.sorted()
            CellOrder.sort(&keys)
            #expect(keys.count == expected.count)
            #expect(zip(keys, expected).filter { $0 != $1 }.count == 0)
        }
    }

    /// A shard's outputs put back in record order: a stable sort by record, each value moved once
    /// (strings, so that a value lost or doubled would show, as would a wrong release).
    @Test(arguments: [0, 1, 2, 7, 5_000])
    func outputsSortByRecordStably(count: Int) {
        var rng = SplitMix64(seed: UInt64(count) + 11)
        for recordRange in [1, 3, 70_000] {
            var records = (0..<count).map { _ in Int32.random(in: 0..<Int32(recordRange), using: &rng) }
            var values = records.indices.map { "value \($0) of record \(records[$0]) " + String(repeating: "x", count: $0 % 40) }
            let expected = zip(records, values).enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
            var keys: [UInt64] = [42]
            StateShard.sortByRecord(&values, &records, keys: &keys)
            #expect(firstDifference(values, expected.map(\.element.1)) == nil)
            #expect(firstDifference(records, expected.map(\.element.0)) == nil)
        }
    }
}
