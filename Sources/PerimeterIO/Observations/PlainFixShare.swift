#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Perimeter

/// One thread's share of a block of lines that `ObservationReader.readPlainFixes` decodes in parallel:
/// the plain fixes its lines start with, up to the first line the fast path leaves to `next()`.
///
/// `@unchecked Sendable`: each share is written by one thread while the block is decoded, and read
/// by the reader only after every thread has finished.
final class PlainFixShare: @unchecked Sendable {
    /// The fixes, in order. `line` counts from 0 within the share; `deviceNumber` is the reader's
    /// number for a device it knew before the block, or −1 − k for the share's `k`-th new name.
    var fixes: [PlainFixRecord] = []
    /// Where the share's lines start in the block.
    private(set) var start = 0
    /// Names the reader did not know, in order of first appearance in the share.
    var newNames = DeviceNames()
    /// Where the first line the fast path refused starts in the block, if one did.
    var stop: Int?

    /// Decodes `block[range]` (whole lines; the block's last line may lack its newline).
    func decode(_ block: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, format: ObservationFormat,
                columns: PlainRecordDecoder.CSVColumns?, known: DeviceNames) {
        // Locals while decoding: a class's stored properties are checked for exclusive access on
        // every use.
        var fixes = self.fixes, newNames = self.newNames
        self.fixes = []
        fixes.removeAll(keepingCapacity: true)
        newNames.removeAll()
        start = range.lowerBound
        stop = decode(block, range, format: format, columns: columns, known: known, into: &fixes, newNames: &newNames)
        self.fixes = fixes
        self.newNames = newNames
    }

    /// Where the line of fix `j` starts in `block` (the block the share decoded). Its fixes are its
    /// first lines, one a line, so this counts `j` newlines from its start rather than keeping every
    /// line's start (8 bytes a record to write, for the rare block cut short).
    func lineStart(ofFix j: Int, in block: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = block.baseAddress else { return start }
        var at = start
        for _ in 0..<j {
            guard let newline = memchr(base + at, Int32(UInt8(ascii: "\n")), block.count - at) else { return block.count }
            at = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return at
    }

    /// Where the first refused line starts, if one was.
    private func decode(_ block: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, format: ObservationFormat,
                        columns: PlainRecordDecoder.CSVColumns?, known: DeviceNames, into fixes: inout [PlainFixRecord],
                        newNames: inout DeviceNames) -> Int? {
        guard let base = block.baseAddress else { return nil }
        var start = range.lowerBound
        while start < range.upperBound {
            let next: Int, lineEnd: Int
            if let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), range.upperBound - start) {
                lineEnd = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                next = lineEnd + 1
            } else {
                lineEnd = range.upperBound
                next = range.upperBound
            }
            let trimmed = lineEnd > start && base[lineEnd - 1] == UInt8(ascii: "\r") ? lineEnd - 1 : lineEnd
            let line = UnsafeBufferPointer(rebasing: block[start..<trimmed])
            guard let (device, record) = PlainRecordDecoder.decode(line, readable: block.count - start, format: format,
                                                                   columns: columns),
                  case .fix(let fix) = record else { return start }
            let name = UnsafeBufferPointer(rebasing: line[device])
            let number: Int32
            if let known = known.find(name) {
                number = known
            } else if let new = newNames.number(name) {
                number = -1 - new
            } else {
                return start  // not UTF-8: the general path words the error
            }
            fixes.append(PlainFixRecord(deviceNumber: number, fix: fix, line: fixes.count))
            start = next
        }
        return nil
    }
}
