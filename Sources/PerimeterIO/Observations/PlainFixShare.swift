#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Perimeter

/// One chunk of a block of lines that `ObservationReader.readPlainFixes` decodes in parallel: the
/// plain fixes its lines start with, up to the first line the fast path leaves to `next()`, made into
/// the engine's records on the thread that decoded them. The chunks a block's first thread takes
/// from its front append to the caller's own list, so that their records are never copied; the
/// others keep theirs until the reader appends them.
///
/// `@unchecked Sendable`: each share is written by one thread while the block is decoded, and read
/// by the reader only after every thread has finished.
final class PlainFixShare: @unchecked Sendable {
    /// The fixes, in order, after the records the list held before the chunk. A fix's cause is
    /// its line: the decoder's `firstLine` plus its position among the share's fixes. A fix of a
    /// device the reader did not know before the block has a placeholder device (`unresolved`).
    var records: [FixRecord] = []
    /// Where the share's lines start in the block.
    private(set) var start = 0
    /// Names the reader did not know, in order of first appearance in the share.
    var newNames = DeviceNames()
    /// The share's fixes of devices it met first (by position among its fixes), and their name's
    /// number in `newNames`: the reader numbers the names, then sets these fixes' devices.
    var unresolved: [(fix: Int, name: Int32)] = []
    /// Where the first line the fast path refused starts in the block, if one did.
    var stop: Int?

    /// How many fixes the share decoded (appended to the list it was given, which may have been
    /// swapped back out since).
    private(set) var count = 0

    /// Decodes `block[range]` (whole lines; the block's last line may lack its newline), appending
    /// to `records`.
    ///
    /// - Parameters:
    ///   - layout: how the file's plain fixes are laid out, if the reader learned it (JSON Lines).
    ///   - known: the names the reader numbered before the block.
    ///   - deviceIDs: the engine's device for each of those numbers.
    ///   - firstLine: the line number the share's first fix takes.
    func decode(_ block: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, format: ObservationFormat,
                columns: PlainRecordDecoder.CSVColumns?, layout: PlainFixLayout?, known: DeviceNames, deviceIDs: [DeviceID],
                firstLine: Int) {
        // Locals while decoding: a class's stored properties are checked for exclusive access on
        // every use. (The list is moved out, so that appending to it copies nothing.)
        var records = self.records, newNames = self.newNames, unresolved = self.unresolved
        self.records = []
        self.unresolved = []
        newNames.removeAll()
        unresolved.removeAll(keepingCapacity: true)
        let base = records.count
        start = range.lowerBound
        stop = decode(block, range, format: format, columns: columns, layout: layout, known: known, deviceIDs: deviceIDs,
                      firstLine: firstLine, into: &records, newNames: &newNames, unresolved: &unresolved)
        count = records.count - base
        self.records = records
        self.newNames = newNames
        self.unresolved = unresolved
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
                        columns: PlainRecordDecoder.CSVColumns?, layout: PlainFixLayout?, known: DeviceNames,
                        deviceIDs: [DeviceID], firstLine: Int,
                        into records: inout [FixRecord], newNames: inout DeviceNames,
                        unresolved: inout [(fix: Int, name: Int32)]) -> Int? {
        guard let base = block.baseAddress else { return nil }
        var start = range.lowerBound, j = 0
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
            guard let (device, record) = layout?.decode(line, readable: block.count - start)
                    ?? PlainRecordDecoder.decode(line, readable: block.count - start, format: format, columns: columns),
                  case .fix(let fix) = record else { return start }
            let name = UnsafeBufferPointer(rebasing: line[device])
            let id: DeviceID
            if let known = known.find(name) {
                id = deviceIDs[Int(known)]
            } else if let new = newNames.number(name) {
                unresolved.append((j, new))
                id = DeviceID(index: -1)
            } else {
                return start  // not UTF-8: the general path words the error
            }
            records.append(FixRecord(device: id, fix: fix, cause: firstLine + j))
            j += 1
            start = next
        }
        return nil
    }
}
