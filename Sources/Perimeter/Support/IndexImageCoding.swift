import Foundation

/// Why an index image could not be read back (`MonitoringEngine.init(policy:indexImage:)`).
public struct IndexImageProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Writes an index image: plain values as their bytes, arrays as a count and their elements' bytes,
/// in this machine's byte order (an image is read back by the same build; `IndexImageHeader` checks).
struct IndexImageWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write<T: BitwiseCopyable>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Bool) { write(UInt8(value ? 1 : 0)) }

    mutating func write(_ value: Int) { write(Int64(value)) }

    mutating func write<T: BitwiseCopyable>(_ array: [T]) {
        write(array.count)
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            write(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func write(_ strings: [String]) {
        write(strings.count)
        for string in strings { write(string) }
    }
}

/// Reads what `IndexImageWriter` wrote, in the same order; every read is bounds-checked, and a
/// short or malformed image throws rather than reading past its end.
struct IndexImageReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    /// Bytes not read yet.
    var remaining: Int { bytes.count - offset }

    private mutating func take(_ count: Int) throws(IndexImageProblem) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - offset else {
            throw IndexImageProblem("the image ends early (\(count) bytes wanted at byte \(offset) of \(bytes.count))")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func read<T: BitwiseCopyable>(_: T.Type = T.self) throws(IndexImageProblem) -> T {
        try take(MemoryLayout<T>.size).loadUnaligned(as: T.self)
    }

    mutating func readBool() throws(IndexImageProblem) -> Bool {
        switch try read(UInt8.self) {
        case 0: return false
        case 1: return true
        case let other: throw IndexImageProblem("a flag of \(other) at byte \(offset - 1)")
        }
    }

    mutating func readInt() throws(IndexImageProblem) -> Int {
        let value = try read(Int64.self)
        guard let int = Int(exactly: value) else { throw IndexImageProblem("a number out of range at byte \(offset - 8)") }
        return int
    }

    /// A count of things that each take at least `stride` bytes: never more than the rest of the image holds.
    mutating func readCount(stride: Int = 1) throws(IndexImageProblem) -> Int {
        let count = try readInt()
        guard count >= 0, count <= (bytes.count - offset) / max(1, stride) else {
            throw IndexImageProblem("a count of \(count) at byte \(offset - 8), more than the image holds")
        }
        return count
    }

    mutating func readArray<T: BitwiseCopyable>(of _: T.Type = T.self) throws(IndexImageProblem) -> [T] {
        let count = try readCount(stride: MemoryLayout<T>.stride)
        let source = try take(count * MemoryLayout<T>.stride)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source) }
            initialized = count
        }
    }

    mutating func readString() throws(IndexImageProblem) -> String {
        let count = try readCount()
        let utf8 = try take(count)
        guard let string = String(validating: utf8.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw IndexImageProblem("text that is not UTF-8 at byte \(offset - count)")
        }
        return string
    }

    mutating func readStrings() throws(IndexImageProblem) -> [String] {
        let count = try readCount(stride: 8)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try readString()) }
        return strings
    }

    /// Whether `start` is `lists + 1` rising offsets from 0 to the end of `items` (lists laid out one
    /// after another, as the indexes keep them), and every item is in `0 ..< below`.
    static func listsFit<Start: FixedWidthInteger, Item: FixedWidthInteger>(_ start: [Start], _ items: [Item],
                                                                           lists: Int, below: Int) -> Bool {
        start.count == lists + 1 && start.first == 0 && Int(start[lists]) == items.count
            && zip(start, start.dropFirst()).allSatisfy { $0 <= $1 }
            && items.allSatisfy { $0 >= 0 && Int($0) < below }
    }
}
