import CBuiltins

/// One wildcard form's keys (plain integers) to their values, four keys to a 64-byte bucket.
///
/// A probe reads one cache line and compares its four keys without branching: whether a sighted
/// identity has a condition is as good as random, and a branch on it was mispredicted about three
/// times per sighting. Only a key that did not fit in its home bucket lives in a later one; the home
/// bucket says so (`overflowed`), and a probe that missed there goes on only then.
struct BeaconKeyTable: Sendable {
    /// Four slots in one cache line (64 bytes): keys + 1 (0 marks an empty slot; slots fill in
    /// order) and their values, then the table's `absent` as a fifth value.
    struct Bucket: Sendable {
        var keys: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var values: (Int32, Int32, Int32, Int32, Int32)
        /// Nonzero when a key whose home this is lives in a later bucket.
        var overflowed: Int32 = 0
        private var padding: (Int32, Int32) = (0, 0)

        init(absent: Int32) { values = (0, 0, 0, 0, absent) }

        /// Whether every slot is taken.
        var isFull: Bool { keys.3 != 0 }

        /// Puts `stored` in the first empty slot; false if the bucket is full.
        mutating func insert(_ stored: UInt64, _ value: Int32) -> Bool {
            if keys.0 == 0 { (keys.0, values.0) = (stored, value); return true }
            if keys.1 == 0 { (keys.1, values.1) = (stored, value); return true }
            if keys.2 == 0 { (keys.2, values.2) = (stored, value); return true }
            if keys.3 == 0 { (keys.3, values.3) = (stored, value); return true }
            return false
        }

        /// The value of `stored` (a key + 1) in the bucket at `bucket`, or `absent`.
        ///
        /// The slot is computed from the four comparisons (at most one holds) as numbers, and its
        /// value read by index, `absent` being slot 4. Selects (`?:`) instead became branches on
        /// whether the key is there, which is as good as random: about one mispredicted branch per
        /// hit. Vector lanes and masks took 1.2 times as long.
        @inline(__always)
        static func value(of stored: UInt64, at bucket: UnsafeRawPointer) -> Int32 {
            let keys = bucket.load(as: (UInt64, UInt64, UInt64, UInt64).self)
            let slot = 4 &- 4 &* one(keys.0 == stored) &- 3 &* one(keys.1 == stored)
                &- 2 &* one(keys.2 == stored) &- one(keys.3 == stored)
            return bucket.load(fromByteOffset: valuesOffset &+ slot &* 4, as: Int32.self)
        }

        /// Where the values and the flag are in a bucket, as literals (read on every probe: a computed
        /// static would be initialised lazily, with a check per read); `init` checks them.
        static let valuesOffset = 32, overflowedOffset = 52
    }

    /// 1 if `condition` holds, else 0, without the control flow a `?:` is made of.
    @inline(__always)
    static func one(_ condition: Bool) -> Int { Int(unsafeBitCast(condition, to: UInt8.self)) }

    /// The buckets' memory, as words: one bucket more than `mask + 1`, so that they can start on a
    /// cache line wherever the heap put the words. Buckets are read and written through raw pointers.
    private var words: [UInt64]
    private(set) var mask = 0
    /// What a probe returns for a key the table does not have.
    let absent: Int32
    var heapBytes: Int { HeapBytes.of(words) }

    private static let bucketWords = MemoryLayout<Bucket>.stride / 8

    /// - Parameters:
    ///   - entries: distinct keys and their values (no key may be `UInt64.max`).
    ///   - absent: the value of a key not among them.
    init(_ entries: [(key: UInt64, value: Int32)], absent: Int32) {
        precondition(MemoryLayout<Bucket>.stride == 64 && MemoryLayout<Bucket>.offset(of: \Bucket.values) == Bucket.valuesOffset
            && MemoryLayout<Bucket>.offset(of: \Bucket.overflowed) == Bucket.overflowedOffset)
        self.absent = absent
        // At most two keys a bucket on average: few buckets overflow (about 5 %).
        var count = 1
        while count * 2 < entries.count { count <<= 1 }
        mask = count - 1
        words = Array(repeating: 0, count: (count + 1) * Self.bucketWords)
        let empty = Bucket(absent: absent)
        let mask = mask
        words.withUnsafeMutableBufferPointer { w in
            let buckets = UnsafeMutableRawPointer(mutating: Self.aligned(UnsafeRawPointer(w.baseAddress!)))
            for b in 0..<count { buckets.storeBytes(of: empty, toByteOffset: b * 64, as: Bucket.self) }
            for (key, value) in entries {
                let home = BeaconMatcher.hash(key) & mask
                var b = home
                while true {
                    var bucket = buckets.load(fromByteOffset: b * 64, as: Bucket.self)
                    if bucket.insert(key &+ 1, value) {
                        buckets.storeBytes(of: bucket, toByteOffset: b * 64, as: Bucket.self)
                        break
                    }
                    b = (b + 1) & mask
                }
                if b != home { buckets.storeBytes(of: 1, toByteOffset: home * 64 + Bucket.overflowedOffset, as: Int32.self) }
            }
        }
    }

    /// The first cache-line boundary at or after `words`.
    @inline(__always)
    private static func aligned(_ words: UnsafeRawPointer) -> UnsafeRawPointer {
        words + ((64 - Int(bitPattern: words) & 63) & 63)
    }

    /// The bucket a probe for `key` starts at.
    @inline(__always)
    func hash(_ key: UInt64) -> Int { BeaconMatcher.hash(key) & mask }

    /// Calls `body` with the aligned run of buckets.
    @inline(__always)
    func withBuckets<R>(_ body: (UnsafeRawPointer) -> R) -> R {
        words.withUnsafeBufferPointer { body(Self.aligned(UnsafeRawPointer($0.baseAddress!))) }
    }

    /// Asks for the home bucket's cache line ahead of `value`.
    @inline(__always)
    func prefetch(_ home: Int) {
        withBuckets { perimeter_prefetch($0 + home * 64) }
    }

    /// The value of `key`, or `absent`, probing from bucket `home` (= `hash(key)`).
    @inline(__always)
    func value(_ key: UInt64, home: Int) -> Int32 {
        withBuckets { buckets in
            let stored = key &+ 1
            let bucket = buckets + home &* 64
            let v = Bucket.value(of: stored, at: bucket)
            // (Whether a key is there is as good as random; whether its bucket overflowed seldom is.)
            guard bucket.load(fromByteOffset: Bucket.overflowedOffset, as: Int32.self) != 0, v == absent else { return v }
            return Self.laterValue(of: stored, after: home, in: buckets, mask: mask, absent: absent)
        }
    }

    /// The rare rest of a probe: the buckets after `home`, up to the first that is not full (none
    /// was full when a key that lives further on was placed, and keys are never removed).
    @inline(never)
    private static func laterValue(of stored: UInt64, after home: Int, in buckets: UnsafeRawPointer,
                                   mask: Int, absent: Int32) -> Int32 {
        var b = home
        while buckets.load(fromByteOffset: b * 64, as: Bucket.self).isFull {
            b = (b + 1) & mask
            let v = Bucket.value(of: stored, at: buckets + b * 64)
            if v != absent { return v }
        }
        return absent
    }
}
