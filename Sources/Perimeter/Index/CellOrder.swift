/// Puts fixes in cell order, so that fixes of the same place are evaluated together.
enum CellOrder {
    /// Sorts keys of the form (cell << 32 | position) ascending, exactly as `sort()` would, given that
    /// the positions (the low halves) ascend as the keys were made: a stable counting sort on the
    /// cell alone, 16 bits at a time. Linear, where the comparison sort took a tenth of the batch.
    /// Fewer than 2¹⁴ keys go 8 bits at a time: a pass costs its digit's counts as well as its keys.
    static func sort(_ keys: inout [UInt64]) {
        assert(zip(keys, keys.dropFirst()).allSatisfy { $0 & 0xFFFF_FFFF < $1 & 0xFFFF_FFFF },
               "the positions must ascend")
        guard keys.count > 1 else { return }
        var highest: UInt64 = 0
        for key in keys { highest = max(highest, key >> 32) }
        var buffer = [UInt64](repeating: 0, count: keys.count)
        var shift: UInt64 = 32
        let bits: UInt64 = keys.count < 1 << 14 ? 8 : 16
        // (One pass while the cells fit a digit; more for larger grids.)
        while shift < 64 && highest >> (shift - 32) > 0 {
            pass(keys, into: &buffer, shift: shift, bits: bits)
            swap(&keys, &buffer)
            shift += bits
        }
    }

    /// One stable counting pass on the `bits` bits of each key at `shift`.
    private static func pass(_ keys: [UInt64], into sorted: inout [UInt64], shift: UInt64, bits: UInt64) {
        let digits = 1 << Int(bits), mask = UInt64(digits - 1)
        var counts = [Int](repeating: 0, count: digits + 1)
        keys.withUnsafeBufferPointer { keys in
            counts.withUnsafeMutableBufferPointer { counts in
                for key in keys { counts[Int(truncatingIfNeeded: (key >> shift) & mask) + 1] += 1 }
                for d in 0..<digits { counts[d + 1] += counts[d] }
                sorted.withUnsafeMutableBufferPointer { sorted in
                    for key in keys {
                        let d = Int(truncatingIfNeeded: (key >> shift) & mask)
                        sorted[counts[d]] = key
                        counts[d] += 1
                    }
                }
            }
        }
    }
}
