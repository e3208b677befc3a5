import CBuiltins
import Foundation

/// Which beacon conditions a sighted identity matches, by tables of plain integers: one probe for
/// the UUID's number, then one per keyed wildcard form (exact; UUID and major) in `BeaconKeyTable`s,
/// and the UUID alone by its number, without a probe. Each form has its own table, so the small ones
/// stay in cache and a sighting usually pays one cache miss, in the exact table. Built from the
/// catalog's beacon conditions; `ConditionCatalog` rebuilds it when they change.
///
/// Each form answers a `value`: a condition's position, `none`, or (negative) a run of `lists` for
/// an identity several conditions share. In the common case — no runs — a sighting's (at most three)
/// matches are sorted and written without a branch on which forms matched, since that is as good as
/// random from one sighting to the next.
struct BeaconMatcher: Sendable {
    /// UUID table: slots of (high, low, number + 1); 0 marks an empty slot.
    private var uuidSlots: [(UInt64, UInt64, Int32)] = [(0, 0, 0)]
    private var uuidMask = 0
    /// The number of a UUID no condition names: one past the others, so that no key has it and
    /// `byUUID` answers `none` for it.
    private var unknownUUID: Int32 = 0
    /// Per form: UUID + major + minor, UUID + major.
    private(set) var exact = BeaconKeyTable([], absent: none), byMajor = BeaconKeyTable([], absent: none)
    /// The value of the conditions that name a UUID alone, by the UUID's number (`unknownUUID` last).
    private var byUUID: [Int32] = [Self.none]
    /// Runs of conditions that share an identity: (first, count) in `lists`, for a value `~run`.
    private var runs: [(Int32, Int32)] = []
    private var lists: [Int32] = []
    /// The most conditions one sighting can match: the longest run of each form.
    private var mostMatches = 0

    /// The value of a form that matched nothing (sorts after every condition).
    static let none = Int32.max

    /// The heap bytes of the tables.
    var heapBytes: Int {
        HeapBytes.of(uuidSlots) + exact.heapBytes + byMajor.heapBytes + HeapBytes.of(byUUID) + HeapBytes.of(runs)
            + HeapBytes.of(lists)
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
        let uuidCapacity = Self.uuidCapacity(for: uuids.count)
        uuidSlots = Array(repeating: (0, 0, 0), count: uuidCapacity)
        uuidMask = uuidCapacity - 1
        for (uuid, index) in uuids {
            let (high, low) = Self.halves(uuid)
            var slot = Self.hash(Self.fold(high, low)) & uuidMask
            while uuidSlots[slot].2 != 0 { slot = (slot + 1) & uuidMask }
            uuidSlots[slot] = (high, low, index + 1)
        }
        unknownUUID = Int32(uuids.count)
        var longest = [0, 0, 0]
        // Keys in order, so that the tables (and the runs) are the same from run to run.
        func entries(_ form: Int) -> [(key: UInt64, value: Int32)] {
            byKey[form].sorted { $0.key < $1.key }.map { key, list in
                longest[form] = max(longest[form], list.count)
                return (key, value(of: list))
            }
        }
        exact = BeaconKeyTable(entries(0), absent: Self.none)
        byMajor = BeaconKeyTable(entries(1), absent: Self.none)
        byUUID = Array(repeating: Self.none, count: uuids.count + 1)
        for (key, value) in entries(2) { byUUID[Int(key >> 32)] = value }
        mostMatches = longest.reduce(0, +)
    }

    /// The value of a list of conditions that share an identity: the one condition, or a new run.
    private mutating func value(of list: [Int32]) -> Int32 {
        guard list.count > 1 else { return list[0] }
        runs.append((Int32(lists.count), Int32(list.count)))
        lists += list
        return ~Int32(runs.count - 1)
    }

    /// The UUID table's slots: a deployment's few UUIDs (up to 1,024) get a table an eighth full,
    /// since a probe that passes another UUID's slot first costs a mispredicted branch; more get one
    /// half full.
    private static func uuidCapacity(for count: Int) -> Int {
        var c = 8
        while c < count * (count <= 1024 ? 8 : 2) { c <<= 1 }
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

    /// The number of a sighted UUID among the conditions' UUIDs, `unknownUUID` if no condition names it.
    @inline(__always)
    private func uuidNumber(_ uuid: UUID) -> Int32 {
        let (high, low) = Self.halves(uuid)
        return uuidSlots.withUnsafeBufferPointer { slots in
            var slot = Self.hash(Self.fold(high, low)) & uuidMask
            while slots[slot].2 != 0 {
                if slots[slot].0 == high && slots[slot].1 == low { return slots[slot].2 - 1 }
                slot = (slot + 1) & uuidMask
            }
            return unknownUUID
        }
    }

    /// The probes of one sighting: the two keyed forms' keys and the buckets their probes start at,
    /// and the UUID's number. (A UUID no condition names probes too, for keys no table has: its
    /// sightings cost what others do, without a branch on it.)
    private struct Probes {
        var keys: (UInt64, UInt64) = (0, 0)
        var homes: (Int, Int) = (0, 0)
        var uuid: Int32 = 0
    }

    @inline(__always)
    private func probes(_ identity: BeaconIdentity) -> Probes {
        let u = uuidNumber(identity.uuid)
        let major = UInt64(identity.major), minor = UInt64(identity.minor)
        let keys = (Self.key(u, major, minor), Self.key(u, major, 0))
        return Probes(keys: keys, homes: (exact.hash(keys.0), byMajor.hash(keys.1)), uuid: u)
    }

    /// Each form's value for a sighting: exact, UUID and major, UUID alone.
    @inline(__always)
    private func values(_ p: Probes) -> (Int32, Int32, Int32) {
        (exact.value(p.keys.0, home: p.homes.0), byMajor.value(p.keys.1, home: p.homes.1),
         byUUID.withUnsafeBufferPointer { $0[Int(p.uuid)] })
    }

    /// Three values in ascending order (`none` last) and how many are not `none`, without branches.
    @inline(__always)
    private static func sorted(_ v: (Int32, Int32, Int32)) -> (Int32, Int32, Int32, count: Int) {
        let low = min(v.0, v.1), high = max(v.0, v.1)
        let mid = max(low, v.2)
        let count = BeaconKeyTable.one(v.0 != none) + BeaconKeyTable.one(v.1 != none) + BeaconKeyTable.one(v.2 != none)
        return (min(low, v.2), min(high, mid), max(high, mid), count)
    }

    /// Appends the conditions of `v`, ascending.
    @inline(__always)
    private func append(_ v: (Int32, Int32, Int32), into result: inout [Int32]) {
        guard v.0 | v.1 | v.2 < 0 else {
            let s = Self.sorted(v)
            if s.count > 0 { result.append(s.0) }
            if s.count > 1 { result.append(s.1) }
            if s.count > 2 { result.append(s.2) }
            return
        }
        let first = result.count
        result.append(contentsOf: repeatElement(0, count: count(of: v.0) + count(of: v.1) + count(of: v.2)))
        result.withUnsafeMutableBufferPointer { out in
            lists.withUnsafeBufferPointer { _ = expand(v, lists: $0, into: out.baseAddress! + first) }
        }
    }

    /// How many conditions a value stands for.
    @inline(__always)
    private func count(of value: Int32) -> Int {
        value == Self.none ? 0 : value >= 0 ? 1 : Int(runs[Int(~value)].1)
    }

    /// Writes the conditions of `v`, some of them runs, at `out`, ascending; returns how many. Up to
    /// three ascending runs: a few are sorted by insertion, many by the library's sort, since
    /// insertion costs grow with the runs' product.
    private func expand(_ v: (Int32, Int32, Int32), lists: UnsafeBufferPointer<Int32>,
                        into out: UnsafeMutablePointer<Int32>) -> Int {
        var count = 0
        func put(_ value: Int32) {
            if value >= 0 && value != Self.none {
                out[count] = value
                count += 1
            } else if value < 0 {
                let (start, n) = runs[Int(~value)]
                for i in 0..<Int(n) { out[count + i] = lists[Int(start) + i] }
                count += Int(n)
            }
        }
        put(v.0)
        put(v.1)
        put(v.2)
        var written = UnsafeMutableBufferPointer(start: out, count: count)
        if count > 32 { written.sort() } else { Self.insertionSort(written) }
        return count
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
        append(values(probes(identity)), into: &result)
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
    /// sighting at a time, those waits follow one another; here the home buckets of a group of
    /// sightings' probes are all prefetched before any probe is finished, so that the waits overlap.
    /// When no sighting can match many conditions, both lists grow once, by as much as the batch
    /// could need, and are written through pointers: an append per match cost more than a probe.
    func matches(_ identities: UnsafeBufferPointer<BeaconIdentity>, conditions: inout [Int32], offsets: inout [Int]) {
        guard mostMatches <= Self.mostMatchesInPlace else {
            forEachProbed(identities) { _, p in
                append(values(p), into: &conditions)
                offsets.append(conditions.count)
            }
            return
        }
        let firstOffset = offsets.count
        var end = conditions.count
        // (Three more: a sighting's three values are written whether they match or not.)
        conditions.append(contentsOf: repeatElement(0, count: identities.count * mostMatches + 3))
        offsets.append(contentsOf: repeatElement(0, count: identities.count))
        conditions.withUnsafeMutableBufferPointer { out in
            offsets.withUnsafeMutableBufferPointer { offsets in
                lists.withUnsafeBufferPointer { lists in
                    forEachProbed(identities) { k, p in
                        end += write(values(p), lists: lists, into: out.baseAddress! + end)
                        offsets[firstOffset + k] = end
                    }
                }
            }
        }
        conditions.removeLast(conditions.count - end)
    }

    /// Calls `body` with each identity's number and probes, in order, a group of probes prefetched
    /// at a time.
    @inline(__always)
    private func forEachProbed(_ identities: UnsafeBufferPointer<BeaconIdentity>, _ body: (Int, Probes) -> Void) {
        withUnsafeTemporaryAllocation(of: Probes.self, capacity: Self.group) { started in
            var g = 0
            while g < identities.count {
                let n = min(Self.group, identities.count - g)
                for k in 0..<n {
                    let p = probes(identities[g + k])
                    exact.prefetch(p.homes.0)
                    byMajor.prefetch(p.homes.1)
                    started.initializeElement(at: k, to: p)
                }
                for k in 0..<n { body(g + k, started[k]) }
                g += n
            }
        }
    }

    /// Writes the conditions of `v` at `out`, ascending; returns how many (at most `mostMatches`).
    /// Writes three even when fewer match.
    @inline(__always)
    private func write(_ v: (Int32, Int32, Int32), lists: UnsafeBufferPointer<Int32>,
                       into out: UnsafeMutablePointer<Int32>) -> Int {
        guard v.0 | v.1 | v.2 < 0 else {
            let s = Self.sorted(v)
            (out[0], out[1], out[2]) = (s.0, s.1, s.2)
            return s.count
        }
        return expand(v, lists: lists, into: out)
    }
}
