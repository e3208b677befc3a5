/// The catalogue's lookup from identifier to condition: open addressing with linear probing over
/// 4-byte slots that hold a condition's number, not its identifier — the identifier is read from the
/// catalogue to compare. A `Dictionary<String, Entry>` took about 48 bytes a condition (buckets of a
/// string and an entry, at most 3/4 full); this takes 8 to 16.
struct IdentifierTable: Sendable {
    /// 0 marks an empty slot; otherwise the entry's code + 1 (code: index × 2, + 1 for a beacon).
    private var slots: [UInt32] = []
    private(set) var count = 0

    var heapBytes: Int { HeapBytes.of(slots) }

    typealias Entry = ConditionCatalog.Entry

    /// The entry whose identifier (as `identifierOf` reads it) is `identifier`.
    func find(_ identifier: String, identifierOf: (Entry) -> String) -> Entry? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var s = Self.home(identifier, mask: mask)
        while slots[s] != 0 {
            let entry = Self.entry(slots[s])
            if identifierOf(entry) == identifier { return entry }
            s = (s + 1) & mask
        }
        return nil
    }

    /// Adds `entry` under `identifier`, which the table must not hold yet.
    mutating func insert(_ entry: Entry, identifier: String, identifierOf: (Entry) -> String) {
        if 2 * (count + 1) > slots.count { grow(identifierOf: identifierOf) }
        place(Self.code(entry), home: Self.home(identifier, mask: slots.count - 1))
        count += 1
    }

    /// Removes and returns the entry under `identifier`, if any. The slots after it in its run move
    /// back where their probes would reach them (no tombstones).
    mutating func remove(_ identifier: String, identifierOf: (Entry) -> String) -> Entry? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var hole = Self.home(identifier, mask: mask)
        while slots[hole] != 0, identifierOf(Self.entry(slots[hole])) != identifier { hole = (hole + 1) & mask }
        guard slots[hole] != 0 else { return nil }
        let removed = Self.entry(slots[hole])
        var s = hole
        while true {
            s = (s + 1) & mask
            guard slots[s] != 0 else { break }
            let home = Self.home(identifierOf(Self.entry(slots[s])), mask: mask)
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

    private mutating func grow(identifierOf: (Entry) -> String) {
        let old = slots
        slots = [UInt32](repeating: 0, count: max(16, 2 * old.count))
        let mask = slots.count - 1
        for value in old where value != 0 {
            place(value - 1, home: Self.home(identifierOf(Self.entry(value)), mask: mask))
        }
    }

    private mutating func place(_ code: UInt32, home: Int) {
        let mask = slots.count - 1
        var s = home
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = code + 1
    }

    private static func home(_ identifier: String, mask: Int) -> Int { identifier.hashValue & mask }

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
