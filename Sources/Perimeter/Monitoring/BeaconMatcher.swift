import CBuiltins
import Foundation

/// Which beacon conditions a sighted identity matches, by open-addressing tables of plain integers:
/// one probe for the UUID's number, then one per wildcard form (exact; UUID and major), and the UUID
/// alone by its number, without a probe. Each form has its own table, so the small ones stay in cache
/// and a sighting usually pays one cache miss, in the exact table. Built from the catalog's beacon
/// conditions; `ConditionCatalog` rebuilds it when they change.
struct BeaconMatcher: Sendable {
    /// UUID table: slots of (high, low, index + 1); 0 marks an empty slot.
    private var uuidSlots: [(UInt64, UInt64, Int32)] = [(0, 0, 0)]
    private var uuidMask = 0
    /// Per form: UUID + major + minor, UUID + major.
    private var exact = KeyTable(), byMajor = KeyTable()
    /// The conditions that name a UUID alone, by the UUID's number: (first, count) as in a key table.
    private var byUUID: [(Int32, Int32)] = []
    private var lists: [Int32] = []
    /// The most conditions one sighting can match: the longest run of each form.
    private var mostMatches = 0

    /// The heap bytes of the tables.
    var heapBytes: Int {
        HeapBytes.of(uuidSlots) + HeapBytes.of(exact.slots) + HeapBytes.of(byMajor.slots) + HeapBytes.of(byUUID)
            + HeapBytes.of(lists)
    }

    /// Keys of one wildcard form to their conditions.
    private struct KeyTable: Sendable {
        /// Slots of (key + 1, first, count), key 0 marking an empty one, in one cache line's reach: a
        /// key with one condition holds it in `first`; a longer run is lists[first ..< first + count].
        var slots: [(UInt64, Int32, Int32)] = [(0, 0, 0)]
        var mask = 0
        /// The most conditions one key has.
        var longestRun = 0

        init() {}

        init(_ byKey: [UInt64: [Int32]], lists: inout [Int32]) {
            let capacity = BeaconMatcher.capacity(for: byKey.count)
            slots = Array(repeating: (0, 0, 0), count: capacity)
            mask = capacity - 1
            for (key, list) in byKey.sorted(by: { $0.key < $1.key }) {
                var slot = self.slot(key)
                while slots[slot].0 != 0 { slot = (slot + 1) & mask }
                let (first, count) = BeaconMatcher.run(list, lists: &lists)
                slots[slot] = (key + 1, first, count)
                longestRun = max(longestRun, list.count)
            }
        }

        /// The slot a probe for `key` starts at.
        @inline(__always)
        func slot(_ key: UInt64) -> Int { BeaconMatcher.hash(key) & mask }

        /// Asks for the slot's memory ahead of `append`.
        @inline(__always)
        func prefetch(_ slot: Int) {
            slots.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + slot) }
        }

        @inline(__always)
        func append(_ key: UInt64, from start: Int, lists: UnsafeBufferPointer<Int32>, into result: inout [Int32]) {
            BeaconMatcher.append(run(key, from: start), lists: lists, into: &result)
        }

        /// The run of conditions `key` has (count 0 if none), probing from `start`.
        @inline(__always)
        func run(_ key: UInt64, from start: Int) -> (first: Int32, count: Int32) {
            slots.withUnsafeBufferPointer { slots in
                var slot = start
                while slots[slot].0 != 0 {
                    if slots[slot].0 == key + 1 { return (slots[slot].1, slots[slot].2) }
                    slot = (slot + 1) & mask
                }
                return (0, 0)
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
            var slot = Self.hash(Self.fold(high, low)) & uuidMask
            while uuidSlots[slot].2 != 0 { slot = (slot + 1) & uuidMask }
            uuidSlots[slot] = (high, low, index + 1)
        }
        exact = KeyTable(byKey[0], lists: &lists)
        byMajor = KeyTable(byKey[1], lists: &lists)
        byUUID = Array(repeating: (0, 0), count: uuids.count)
        for (key, list) in byKey[2].sorted(by: { $0.key < $1.key }) { byUUID[Int(key >> 32)] = Self.run(list, lists: &lists) }
        mostMatches = exact.longestRun + byMajor.longestRun + Int(byUUID.map(\.1).max() ?? 0)
    }

    /// A list of conditions as a table holds it: one condition as itself, more as a run of `lists`.
    private static func run(_ list: [Int32], lists: inout [Int32]) -> (first: Int32, count: Int32) {
        guard list.count > 1 else { return (list[0], 1) }
        defer { lists += list }
        return (Int32(lists.count), Int32(list.count))
    }

    @inline(__always)
    private static func append(_ run: (first: Int32, count: Int32), lists: UnsafeBufferPointer<Int32>, into result: inout [Int32]) {
        if run.count == 1 {
            result.append(run.first)
        } else if run.count > 1 {
            result.append(contentsOf: lists[Int(run.first)..<Int(run.first + run.count)])
        }
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

    /// Multiplicative (Fibonacci) hashing: the product's middle bits spread keys that differ in any
    /// of their fields; three instructions, against a dozen for a full mix.
    @inline(__always)
    static func hash(_ x: UInt64) -> Int {
        Int(truncatingIfNeeded: (x &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// A UUID's halves folded into a key whose low half every byte of the UUID reaches, as the hash needs.
    @inline(__always)
    private static func fold(_ high: UInt64, _ low: UInt64) -> UInt64 {
        let x = high ^ low
        return x ^ x >> 32
    }

    @inline(__always)
    private static func halves(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// The number of a sighted UUID among the conditions' UUIDs, −1 if no condition names it.
    @inline(__always)
    private func uuidNumber(_ uuid: UUID) -> Int32 {
        let (high, low) = Self.halves(uuid)
        return uuidSlots.withUnsafeBufferPointer { slots in
            var slot = Self.hash(Self.fold(high, low)) & uuidMask
            while slots[slot].2 != 0 {
                if slots[slot].0 == high && slots[slot].1 == low { return slots[slot].2 - 1 }
                slot = (slot + 1) & uuidMask
            }
            return -1
        }
    }

    /// The probes of one sighting: the two keyed forms' keys and the slots their probes start at,
    /// and the UUID's number.
    private struct Probes {
        var keys: (UInt64, UInt64) = (0, 0)
        var slots: (Int, Int) = (0, 0)
        var uuid: Int32 = 0
        /// False when no condition names the UUID.
        var known = false
    }

    @inline(__always)
    private func probes(_ identity: BeaconIdentity) -> Probes {
        var p = Probes()
        let u = uuidNumber(identity.uuid)
        guard u >= 0 else { return p }
        let major = UInt64(identity.major), minor = UInt64(identity.minor)
        p.keys = (Self.key(u, major, minor), Self.key(u, major, 0))
        // (An empty table is one empty slot: its probe finds nothing.)
        p.slots = (exact.slot(p.keys.0), byMajor.slot(p.keys.1))
        p.uuid = u
        p.known = true
        return p
    }

    @inline(__always)
    private func finish(_ p: Probes, lists: UnsafeBufferPointer<Int32>, into result: inout [Int32]) {
        guard p.known else { return }
        let first = result.count
        exact.append(p.keys.0, from: p.slots.0, lists: lists, into: &result)
        byMajor.append(p.keys.1, from: p.slots.1, lists: lists, into: &result)
        byUUID.withUnsafeBufferPointer { Self.append($0[Int(p.uuid)], lists: lists, into: &result) }
        guard result.count - first > 1 else { return }
        // Up to three ascending runs. A few matches are sorted in place (a sorted slice is a copy); many
        // take the library's sort, since insertion costs grow with the runs' product.
        guard result.count - first <= 32 else {
            result[first...].sort()
            return
        }
        result.withUnsafeMutableBufferPointer { Self.insertionSort(UnsafeMutableBufferPointer(rebasing: $0[first...])) }
    }

    /// Sorts a few matches (up to three ascending runs) in place.
    @inline(__always)
    private static func insertionSort(_ r: UnsafeMutableBufferPointer<Int32>) {
        guard r.count > 1 else { return }
        for i in 1..<r.count {
            let v = r[i]
            var j = i
            while j > 0 && r[j - 1] > v { r[j] = r[j - 1]; j -= 1 }
            r[j] = v
        }
    }

    /// Appends the matching conditions, ascending (addition order).
    func matches(_ identity: BeaconIdentity, into result: inout [Int32]) {
        let p = probes(identity)
        lists.withUnsafeBufferPointer { finish(p, lists: $0, into: &result) }
    }

    /// Sightings matched per group by `matches(_:conditions:offsets:)`.
    static let group = 16

    /// A batch writes its matches in place, into room made for the most any sighting can have, when
    /// that is at most this many.
    static let mostMatchesInPlace = 16

    /// `matches(_:into:)` for each of `identities`, into one flat list (identity k's are
    /// `conditions[offsets[k] ..< offsets[k + 1]]`), appending to both.
    ///
    /// The tables of a large catalogue do not stay in cache, so a probe mostly waits for memory. One
    /// sighting at a time, those waits follow one another; here the first slots of a group of
    /// sightings' probes are all prefetched before any probe is finished, so that the waits overlap.
    /// When no sighting can match many conditions, both lists grow once, by as much as the batch
    /// could need, and are written through pointers: an append per match cost more than a probe.
    func matches(_ identities: UnsafeBufferPointer<BeaconIdentity>, conditions: inout [Int32], offsets: inout [Int]) {
        guard mostMatches <= Self.mostMatchesInPlace else {
            forEachProbed(identities) { _, p, lists in
                finish(p, lists: lists, into: &conditions)
                offsets.append(conditions.count)
            }
            return
        }
        let firstOffset = offsets.count
        var end = conditions.count
        conditions.append(contentsOf: repeatElement(0, count: identities.count * mostMatches))
        offsets.append(contentsOf: repeatElement(0, count: identities.count))
        conditions.withUnsafeMutableBufferPointer { out in
            offsets.withUnsafeMutableBufferPointer { offsets in
                forEachProbed(identities) { k, p, lists in
                    end += write(p, lists: lists, into: out, at: end)
                    offsets[firstOffset + k] = end
                }
            }
        }
        conditions.removeLast(conditions.count - end)
    }

    /// Calls `body` with each identity's number and probes, in order, a group of probes prefetched
    /// at a time.
    @inline(__always)
    private func forEachProbed(_ identities: UnsafeBufferPointer<BeaconIdentity>,
                               _ body: (Int, Probes, UnsafeBufferPointer<Int32>) -> Void) {
        withUnsafeTemporaryAllocation(of: Probes.self, capacity: Self.group) { started in
            lists.withUnsafeBufferPointer { lists in
                var g = 0
                while g < identities.count {
                    let n = min(Self.group, identities.count - g)
                    for k in 0..<n {
                        let p = probes(identities[g + k])
                        if p.known {
                            exact.prefetch(p.slots.0)
                            byMajor.prefetch(p.slots.1)
                        }
                        started.initializeElement(at: k, to: p)
                    }
                    for k in 0..<n { body(g + k, started[k], lists) }
                    g += n
                }
            }
        }
    }

    /// Writes the conditions `p` matches at out[start...], ascending; returns how many (at most
    /// `mostMatches`, which is small: they are sorted by insertion).
    @inline(__always)
    private func write(_ p: Probes, lists: UnsafeBufferPointer<Int32>, into buffer: UnsafeMutableBufferPointer<Int32>,
                       at start: Int) -> Int {
        // (A known UUID has a condition, so `mostMatches` > 0 and the buffer has room.)
        guard p.known, let base = buffer.baseAddress else { return 0 }
        let out = base + start
        var count = 0
        @inline(__always)
        func put(_ run: (first: Int32, count: Int32)) {
            if run.count == 1 {
                out[count] = run.first
            } else {
                for i in 0..<Int(run.count) { out[count + i] = lists[Int(run.first) + i] }
            }
            count += Int(run.count)
        }
        put(exact.run(p.keys.0, from: p.slots.0))
        put(byMajor.run(p.keys.1, from: p.slots.1))
        put(byUUID.withUnsafeBufferPointer { $0[Int(p.uuid)] })
        Self.insertionSort(UnsafeMutableBufferPointer(start: out, count: count))
        return count
    }
}
