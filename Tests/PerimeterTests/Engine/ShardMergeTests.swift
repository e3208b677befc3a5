import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The shards' outputs come back in record order: `MonitoringEngine.mergeByRecord` against a stable
/// sort of every value by its record.
@Suite struct ShardMergeTests {
    @Test(arguments: [1, 2, 3, 5])
    func mergeEqualsAStableSortByRecord(lists count: Int) {
        var rng = SplitMix64(seed: UInt64(40 + count))
        // Records 0..<3000, each in one list, with 0 to 3 values (most none, as most records have no event).
        var lists = [[String]](repeating: [], count: count), records = [[Int32]](repeating: [], count: count)
        var all: [(record: Int32, value: String)] = []
        for record in Int32(0)..<3000 {
            let w = Int.random(in: 0..<count, using: &rng)
            let values = [0, 0, 0, 0, 1, 2, 3].randomElement(using: &rng)!
            for v in 0..<values {
                lists[w].append("\(record).\(v)")
                records[w].append(record)
                all.append((record, "\(record).\(v)"))
            }
        }
        var merged = ["before"]
        MonitoringEngine.mergeByRecord(lists, records, into: &merged)
        let expected = ["before"] + all.enumerated().sorted { ($0.element.record, $0.offset) < ($1.element.record, $1.offset) }
            .map(\.element.value)
        #expect(merged == expected)
        #expect(merged.count > 1500)
    }
}
