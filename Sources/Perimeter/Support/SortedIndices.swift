/// Binary searches in ascending arrays of condition numbers (the catalogue's lists, a device's).
enum SortedIndices {
    /// The position of the first element ≥ `value` in an ascending array.
    static func firstIndex(in sorted: [Int32], notBelow value: Int32) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Whether ascending `sorted` holds `value`.
    static func contains(_ sorted: [Int32], _ value: Int32) -> Bool {
        let k = firstIndex(in: sorted, notBelow: value)
        return k < sorted.count && sorted[k] == value
    }
}
