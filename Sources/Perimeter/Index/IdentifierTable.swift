/// The catalogue's lookup from identifier to condition: open addressing with linear probing over
/// 4-byte slots that hold a condition's number, not its identifier — the identifier is read from the
/// catalogue to compare. A `Dictionary<String, Entry>` took about 48 bytes a condition (buckets of a
/// string and an entry, at most 3/4 full); this takes 5.3 to 10.7, at most 3/4 full too: the slot
/// count need not be a power of two (a home is the hash scaled to it), so that a catalogue added at
/// once (`reserve(_:)`) gets just the slots it needs. Lookups serve additions, removals and
/// `condition(for:)`, never evaluation, so the longer probes of a fuller table cost nothing per fix.
struct IdentifierTable: Sendable {
    /// 0 marks an empty slot; otherwise the entry's code + 1 (code: index × 2, + 1 for a beacon).
    private var slots: [UInt32] = []
    private(set) var count = 0

    var heapBytes: Int { HeapBytes.of(slots) }

    typealias Entry = ConditionCatalog.Entry

    /// The entry whose identifier (as `identifierOf` reads it) is `identifier`.
    func find(_ identifier: String, identifierOf: (Entry) -> String) -> Entry? {
        guard !slots.isEmpty else { return nil }
        var s = home(identifier)
        while slots[s] != 0 {
            let entry = Self.entry(slots[s])
            if identifierOf(entry) == identifier { return entry }
            s = next(s)
        }
        return nil
    }

    /// Adds `entry` under `identifier`, which the table must not hold yet.
    mutating func insert(_ entry: Entry, identifier: String, identifierOf: (Entry) -> String) {
        if 4 * (count + 1) > 3 * slots.count { resize(to: max(16, 2 * slots.count), identifierOf: identifierOf) }
        place(Self.code(entry), home: home(identifier))
        count += 1
    }

    /// Makes room for `additional` more entries at once, so that adding them grows the table at most
    /// to what they need.
    mutating func reserve(_ additional: Int, identifierOf: (Entry) -> String) {
        let needed = (4 * (count + additional) + 2) / 3 + 1
        if needed > slots.count { resize(to: max(16, needed), identifierOf: identifierOf) }
    }

    /// Removes and returns the entry under `identifier`, if any. The slots after it in its run move
    /// back where their probes would reach them (no tombstones).
    mutating func remove(_ identifier: String, identifierOf: (Entry) -> String) -> Entry? {
        guard !slots.isEmpty else { return nil }
        var hole = home(identifier)
        while slots[hole] != 0, identifierOf(Self.entry(slots[hole])) != identifier { hole = next(hole) }
        guard slots[hole] != 0 else { return nil }
        let removed = Self.entry(slots[hole])
        var s = hole
        while true {
            s = next(s)
            guard slots[s] != 0 else { break }
            let home = home(identifierOf(Self.entry(slots[s])))
            // The entry at s may fill the hole unless its home lies cyclically in (hole, s].
            let reachable = hole <= s ? (home <= hole || home > s) : (home <= hole && home > s)
            if reachable {
                slots[hole] = slots[s]
                hole = s
            }
        }
        slots[hole] = 0
        count -= 1
        return removed
    }

    private mutating func resize(to size: Int, identifierOf: (Entry) -> String) {
        let old = slots
        slots = [UInt32](repeating: 0, count: size)
        for value in old where value != 0 {
            place(value - 1, home: home(identifierOf(Self.entry(value))))
        }
    }

    private mutating func place(_ code: UInt32, home: Int) {
        var s = home
        while slots[s] != 0 { s = next(s) }
        slots[s] = code + 1
    }

    /// The slot an identifier's probe starts at: its hash spread over 64 bits (a Fibonacci multiply,
    /// so that a 32-bit platform's hash reaches the high bits too) and scaled to the slot count (the
    /// high half of the product), which any count allows.
    private func home(_ identifier: String) -> Int {
        let spread = UInt64(truncatingIfNeeded: identifier.hashValue) &* 0x9E37_79B9_7F4A_7C15
        return Int(spread.multipliedFullWidth(by: UInt64(slots.count)).high)
    }

    @inline(__always)
    private func next(_ s: Int) -> Int { s + 1 == slots.count ? 0 : s + 1 }

    private static func code(_ entry: Entry) -> UInt32 {
        switch entry {
        case .geographic(let i): UInt32(i) << 1
        case .beacon(let i): UInt32(i) << 1 | 1
        }
    }

    private static func entry(_ value: UInt32) -> Entry {
        let code = value - 1
        let i = Int32(code >> 1)
        return code & 1 == 0 ? .geographic(i) : .beacon(i)
    }
}
