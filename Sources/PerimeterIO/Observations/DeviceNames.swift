#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device names a reader has met, numbered from 0 in order of first appearance and found again
/// by their bytes: a device's later records cost a hash of a few bytes, not a new `String`, its
/// UTF-8 validation and a dictionary lookup by `String`.
struct DeviceNames {
    private(set) var names: [String] = []
    /// Every name's UTF-8, back to back: name k is bytes[offsets[k] ..< offsets[k + 1]].
    private var bytes: [UInt8] = []
    private var offsets: [Int] = [0]
    /// Open addressing: a name's number, or −1 for an empty slot.
    private var slots = [Int32](repeating: -1, count: 64)

    /// The number of the name spelled by `name`, numbering it if new; `nil` if it is not UTF-8.
    @inline(__always)
    mutating func number(_ name: UnsafeBufferPointer<UInt8>) -> Int32? {
        let (found, slot) = probe(name)
        if let found { return found }
        guard let string = String(validating: name, as: UTF8.self) else { return nil }
        let k = Int32(names.count)
        names.append(string)
        bytes.append(contentsOf: name)
        offsets.append(bytes.count)
        slots[slot] = k
        if names.count * 2 > slots.count { grow() }
        return k
    }

    /// The number of the name spelled by `name`, if it has one.
    @inline(__always)
    func find(_ name: UnsafeBufferPointer<UInt8>) -> Int32? { probe(name).number }

    /// The name's number if it has one, else the empty slot where it would go.
    @inline(__always)
    private func probe(_ name: UnsafeBufferPointer<UInt8>) -> (number: Int32?, slot: Int) {
        let mask = slots.count - 1
        var slot = Self.hash(name) & mask
        while slots[slot] >= 0 {
            let k = Int(slots[slot])
            if offsets[k + 1] - offsets[k] == name.count
                && bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress! + offsets[k], name.baseAddress!, name.count) == 0 }) {
                return (Int32(k), slot)
            }
            slot = (slot + 1) & mask
        }
        return (nil, slot)
    }

    /// The number of `name`, numbering it if new.
    mutating func number(_ name: String) -> Int32 {
        var name = name
        return name.withUTF8 { number($0) }!  // a String is valid UTF-8
    }

    /// Forgets every name, keeping the storage.
    mutating func removeAll() {
        // (A share's new names are emptied for every block, and most blocks have none: the slots,
        // grown by the first block's, need no clearing then.)
        guard !names.isEmpty else { return }
        names.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        for k in slots.indices { slots[k] = -1 }
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for k in names.indices {
            var slot = bytes.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[offsets[k]..<offsets[k + 1]])) } & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(k)
        }
    }

    /// FNV-1a, finished with a multiply-shift mix so that the low bits are well spread.
    @inline(__always)
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ (h >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return Int(truncatingIfNeeded: h ^ (h >> 32))
    }
}
