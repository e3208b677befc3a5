/// Eight bytes read and searched at once, the first byte the lowest: the word-at-a-time scans of the
/// readers and of the JSON parser.
///
/// A search flags 0x80 in each byte that matches. Borrows run only from a byte into the next one up,
/// so bytes above the first match may be flagged wrongly, but the lowest flag is always exact: the
/// callers read only that one (`trailingZeroBitCount / 8`).
enum ByteWord {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `p` (unaligned).
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The bytes of `word` that are zero (the usual has-zero-byte test).
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highs
    }

    /// The bytes of `word` equal to `byte`: they XOR to zero.
    @inline(__always)
    static func bytes(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
        zeroBytes(word ^ (ones &* UInt64(byte)))
    }

    /// The bytes of `word` that are ASCII digits — every one exactly, unlike the searches here: with
    /// the top bits cleared, adding 0x50 (0x46) to a byte sets its top bit exactly when it is at least
    /// 0x30 (0x3A), and no sum carries into the next byte.
    @inline(__always)
    static func digits(_ word: UInt64) -> UInt64 {
        let low = word & 0x7F7F_7F7F_7F7F_7F7F
        let atLeastZero = low &+ 0x5050_5050_5050_5050, pastNine = low &+ 0x4646_4646_4646_4646
        return atLeastZero & ~pastNine & ~word & highs
    }

    /// The bytes of `word` below `limit` (at most 0x80): the has-zero-byte test shifted by `limit`.
    @inline(__always)
    static func bytes(_ word: UInt64, below limit: UInt8) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }
}
