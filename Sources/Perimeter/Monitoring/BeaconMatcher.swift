import Foundation

/// Which beacon conditions a sighted identity matches, by open-addressing tables of plain integers:
/// one probe for the UUID, then one per wildcard form that has conditions (exact; UUID and major; UUID
/// alone). Each form has its own table, so the small ones (UUID alone, UUID and major) stay in cache
/// and a sighting usually pays one cache miss, in the exact table. Built from the catalog's beacon
/// conditions; `ConditionCatalog` rebuilds it when they change.
struct BeaconMatcher: Sendable {
    /// UUID table: slots of (high, low, index + 1); 0 marks an empty slot.
    private var uuidSlots: [(UInt64, UInt64, Int32)] = [(0, 0, 0)]
    private var uuidMask = 0
    /// Per form: UUID + major + minor, UUID + major, UUID alone.
    private var exact = KeyTable(), byMajor = KeyTable(), byUUID = KeyTable()
    private var lists: [Int32] = []

    /// Keys of one wildcard form to their conditions.
    private struct KeyTable: Sendable {
        /// Slots of (key + 1, first, count), key 0 marking an empty one, in one cache line's reach: a
        /// key with one condition holds it in `first`; a longer run is lists[first ..< first + count].
        var slots: [(UInt64, Int32, Int32)] = [(0, 0, 0)]
        var mask = 0

        init() {}

        init(_ byKey: [UInt64: [Int32]], lists: inout [Int32]) {
            let capacity = BeaconMatcher.capacity(for: byKey.count)
            slots = Array(repeating: (0, 0, 0), count: capacity)
            mask = capacity - 1
            for (key, list) in byKey.sorted(by: { $0.key < $1.key }) {
                var slot = BeaconMatcher.hash(key) & mask
                while slots[slot].0 != 0 { slot = (slot + 1) & mask }
                if list.count == 1 {
                    slots[slot] = (key + 1, list[0], 1)
                } else {
                    slots[slot] = (key + 1, Int32(lists.count), Int32(list.count))
                    lists += list
                }
            }
        }

        /// The slot a probe for `key` starts at, and its stored key (read early, so that the probes of
        /// several tables wait for memory together rather than one after another).
        @inline(__always)
        func start(_ key: UInt64) -> (slot: Int, stored: UInt64) {
            let slot = BeaconMatcher.hash(key) & mask
            return (slot, slots[slot].0)
        }

        @inline(__always)
        func append(_ key: UInt64, from start: (slot: Int, stored: UInt64), lists: [Int32], into result: inout [Int32]) {
            if start.stored == 0 { return }
            var slot = start.slot
            while slots[slot].0 != 0 {
                if slots[slot].0 == key + 1 {
                    let (first, count) = (slots[slot].1, slots[slot].2)
                    if count == 1 {
                        result.append(first)
                    } else {
                        for k in Int(first)..<Int(first + count) { result.append(lists[k]) }
                    }
                    return
                }
                slot = (slot + 1) & mask
            }
        }
    }

    init() {}

    /// - Parameter removed: whether each condition was removed (left out).
    init(_ beacons: [ConditionCatalog.Beacon], removed: [Bool]) {
        var uuids: [UUID: Int32] = [:]
        var byKey: [[UInt64: [Int32]]] = [[:], [:], [:]]
        for (i, b) in beacons.enumerated() where !removed[i] {
            let u = uuids[b.condition.uuid] ?? {
                let next = Int32(uuids.count)
                uuids[b.condition.uuid] = next
                return next
            }()
            let form = b.condition.major == nil ? 2 : b.condition.minor == nil ? 1 : 0
            byKey[form][Self.key(u, UInt64(b.condition.major ?? 0), UInt64(b.condition.minor ?? 0)), default: []].append(Int32(i))
        }
        let uuidCapacity = Self.capacity(for: uuids.count)
        uuidSlots = Array(repeating: (0, 0, 0), count: uuidCapacity)
        uuidMask = uuidCapacity - 1
        for (uuid, index) in uuids {
            let (high, low) = Self.halves(uuid)
            var slot = Self.hash(high ^ low &* 0x9E37_79B9_7F4A_7C15) & uuidMask
            while uuidSlots[slot].2 != 0 { slot = (slot + 1) & uuidMask }
            uuidSlots[slot] = (high, low, index + 1)
        }
        exact = KeyTable(byKey[0], lists: &lists)
        byMajor = KeyTable(byKey[1], lists: &lists)
        byUUID = KeyTable(byKey[2], lists: &lists)
    }

    private static func capacity(for count: Int) -> Int {
        var c = 8
        while c < count * 2 { c <<= 1 }
        return c
    }

    @inline(__always)
    private static func key(_ uuid: Int32, _ major: UInt64, _ minor: UInt64) -> UInt64 {
        UInt64(uuid) << 32 | major << 16 | minor
    }

    @inline(__always)
    private static func hash(_ x: UInt64) -> Int {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31))
    }

    @inline(__always)
    private static func halves(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// Appends the matching conditions, ascending (addition order).
    func matches(_ identity: BeaconIdentity, into result: inout [Int32]) {
        let (high, low) = Self.halves(identity.uuid)
        var slot = Self.hash(high ^ low &* 0x9E37_79B9_7F4A_7C15) & uuidMask
        var u: Int32 = -1
        while uuidSlots[slot].2 != 0 {
            if uuidSlots[slot].0 == high && uuidSlots[slot].1 == low { u = uuidSlots[slot].2 - 1; break }
            slot = (slot + 1) & uuidMask
        }
        guard u >= 0 else { return }
        let first = result.count
        let major = UInt64(identity.major), minor = UInt64(identity.minor)
        let exactKey = Self.key(u, major, minor), majorKey = Self.key(u, major, 0), uuidKey = Self.key(u, 0, 0)
        // (An empty table is one empty slot: its probe finds nothing.)
        let s0 = exact.start(exactKey), s1 = byMajor.start(majorKey), s2 = byUUID.start(uuidKey)
        exact.append(exactKey, from: s0, lists: lists, into: &result)
        byMajor.append(majorKey, from: s1, lists: lists, into: &result)
        byUUID.append(uuidKey, from: s2, lists: lists, into: &result)
        if result.count - first > 1 { result[first...].sort() }
    }
}
