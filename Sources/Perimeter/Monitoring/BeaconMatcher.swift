import Foundation

/// Which beacon conditions a sighted identity matches, by open-addressing tables of plain integers:
/// one probe for the UUID, then one per key the sighting can match (exact; UUID and major; UUID alone).
/// Built from the catalog's beacon conditions; `ConditionCatalog` rebuilds it when they change.
struct BeaconMatcher: Sendable {
    /// UUID table: slots of (high, low, index + 1); 0 marks an empty slot.
    private var uuidSlots: [(UInt64, UInt64, Int32)] = [(0, 0, 0)]
    private var uuidMask = 0
    /// Key table: slots of (key + 1, start, end) into `lists`; key 0 marks an empty slot.
    private var keySlots: [(UInt64, Int32, Int32)] = [(0, 0, 0)]
    private var keyMask = 0
    private var lists: [Int32] = []

    private static let wildcard: UInt64 = 0x1_0000

    init() {}

    init(_ beacons: [ConditionCatalog.Beacon]) {
        var uuids: [UUID: Int32] = [:]
        var byKey: [UInt64: [Int32]] = [:]
        for (i, b) in beacons.enumerated() where !b.isRemoved {
            let u = uuids[b.condition.uuid] ?? {
                let next = Int32(uuids.count)
                uuids[b.condition.uuid] = next
                return next
            }()
            byKey[Self.key(u, b.condition.major.map(UInt64.init) ?? Self.wildcard,
                           b.condition.minor.map(UInt64.init) ?? Self.wildcard), default: []].append(Int32(i))
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
        let keyCapacity = Self.capacity(for: byKey.count)
        keySlots = Array(repeating: (0, 0, 0), count: keyCapacity)
        keyMask = keyCapacity - 1
        for (key, list) in byKey.sorted(by: { $0.key < $1.key }) {
            var slot = Self.hash(key) & keyMask
            while keySlots[slot].0 != 0 { slot = (slot + 1) & keyMask }
            keySlots[slot] = (key + 1, Int32(lists.count), Int32(lists.count + list.count))
            lists += list
        }
    }

    private static func capacity(for count: Int) -> Int {
        var c = 8
        while c < count * 2 { c <<= 1 }
        return c
    }

    @inline(__always)
    private static func key(_ uuid: Int32, _ major: UInt64, _ minor: UInt64) -> UInt64 {
        UInt64(uuid) << 34 | major << 17 | minor
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
        append(Self.key(u, major, minor), into: &result)
        append(Self.key(u, major, Self.wildcard), into: &result)
        append(Self.key(u, Self.wildcard, Self.wildcard), into: &result)
        if result.count - first > 1 { result[first...].sort() }
    }

    @inline(__always)
    private func append(_ key: UInt64, into result: inout [Int32]) {
        var slot = Self.hash(key) & keyMask
        while keySlots[slot].0 != 0 {
            if keySlots[slot].0 == key + 1 {
                for k in Int(keySlots[slot].1)..<Int(keySlots[slot].2) { result.append(lists[k]) }
                return
            }
            slot = (slot + 1) & keyMask
        }
    }
}
