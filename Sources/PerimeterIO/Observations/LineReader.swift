#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file (or standard input) line by line through one buffer: each line is handed out in place,
/// not copied, and the buffer grows only to hold the longest line, or a parallel block; a second
/// buffer of that size takes the next block, read ahead while the first is decoded. Lines end at
/// `\n`; a trailing `\r` is dropped. A UTF-8 byte order mark before the first line (RFC 8259 §8.1
/// lets a reader ignore it; spreadsheets write one before a CSV header) is skipped.
///
/// A line longer than `maxLineBytes` is never held whole: its first `keptPrefix` bytes are handed out
/// as the line, marked cut (`lineIsCut`, with its full `lineLength`), and the rest is read past.
/// Each byte is searched for a newline once, whatever size the reads come in (a pipe gives 64 KiB
/// at a time: searching the whole partial line again after each made long lines quadratic).
struct LineReader: ~Copyable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Where a read ahead puts the bytes after a parallel block while the block is decoded
    /// (`readAhead(after:upTo:)`); it becomes `storage` once the block is consumed.
    private var spare: UnsafeMutablePointer<UInt8>?
    private var spareCapacity = 0
    /// The bytes read but not yet handed out: `storage[start ..< end]`.
    private var start = 0
    private var end = 0
    /// The current line: `storage[lineStart ..< lineEnd]`.
    private var lineStart = 0
    private var lineEnd = 0
    private var atEndOfFile = false
    /// Whether nothing has been handed out yet (a byte order mark may stand first).
    private var atStart = true
    /// Its 1-based number.
    private(set) var lineNumber = 0
    /// Why reading stopped early, if it did (`errno`): the input ends there, and the caller says so.
    private(set) var readError: Int32?
    /// The longest line read whole; a longer one is cut to its first `keptPrefix` bytes.
    let maxLineBytes: Int
    /// How far past `start` the partial line has been searched for a newline already.
    private var searched = 0
    /// Whether the current line is only the first bytes of a longer one.
    private(set) var lineIsCut = false
    /// The current line's length in bytes, newline and trailing `\r` not counted: `line.count` unless
    /// the line is cut.
    private(set) var lineLength = 0
    /// Whether `unreadLine()` handed back a cut line: its prefix still stands at the buffer's front.
    private var replayCut = false
    /// Bytes searched for a newline after a refill (the tests' measure that reading is linear).
    private(set) var bytesSearchedAfterRefill = 0
    /// The file offset just past the last byte read into the buffer.
    private var offsetRead = 0
    /// Whether the input is a regular file, whose reads never wait on a writer (not a pipe, a
    /// terminal or a socket).
    let readsFile: Bool

    /// The longest line read whole by default: far beyond any record, small enough to hold.
    static let defaultMaxLineBytes = 16 << 20
    /// The bytes of a cut line that are kept, to name it.
    static let keptPrefix = 4096

    /// Bytes asked of each `read`: large enough that system calls cost little per line.
    static let chunkSize = 1 << 18

    /// Opens `path`, or standard input for `-`; with `offset`, reads from that byte on, its lines
    /// numbered on from `lineNumber` (a file only: standard input cannot be read from a position).
    init(path: String, maxLineBytes: Int = defaultMaxLineBytes, offset: Int = 0, lineNumber: Int = 0) throws(InputError) {
        precondition(maxLineBytes >= 1, "a line may hold at least one byte")
        let descriptor = path == "-" ? 0 : try InputFile.openForReading(path)
        if offset > 0 && lseek(descriptor, off_t(offset), SEEK_SET) != off_t(offset) {
            let reason = String(cString: strerror(errno))
            if path != "-" { close(descriptor) }
            throw InputError(file: path == "-" ? "<stdin>" : path, line: nil, field: nil, message: "cannot read from byte \(offset): \(reason)")
        }
        self.maxLineBytes = maxLineBytes
        self.descriptor = descriptor
        var status = stat()
        readsFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        ownsDescriptor = path != "-"
        capacity = Self.chunkSize
        storage = .allocate(capacity: capacity)
        if offset > 0 {
            offsetRead = offset
            self.lineNumber = lineNumber
            atStart = false
        }
    }

    /// The file offset of the first byte not handed out yet: where a reader made with this offset
    /// (and `lineNumber`) goes on. `nil` while a cut line handed back waits to be read again.
    var offset: Int? { replayCut ? nil : offsetRead - (end - start) }

    deinit {
        storage.deallocate()
        spare?.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// The line returned by the last `nextLine()`: valid until the next call of `nextLine()`.
    var line: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage + lineStart, count: lineEnd - lineStart) }

    /// How many bytes from the current line's start are read input (the line, its newline and what
    /// follows it in the buffer): what a decoder may load a word at a time (`DecimalNumber.parse`).
    var lineReadable: Int { end - lineStart }

    /// Advances to the next line; `false` at the end of the input.
    @inline(__always)
    mutating func nextLine() -> Bool {
        if atStart { skipByteOrderMark() }
        if !replayCut && start < end, let newline = memchr(storage + start, Int32(UInt8(ascii: "\n")), end - start) {
            let n = storage.distance(to: newline.assumingMemoryBound(to: UInt8.self))
            setLine(start, n)
            start = n + 1
            return true
        }
        return nextLineAfterRefill()
    }

    /// Hands the current line back: the next `nextLine()` returns it again.
    mutating func unreadLine() {
        if lineIsCut {
            replayCut = true
        } else {
            start = lineStart
        }
        lineNumber -= 1
    }

    /// The unread input's whole lines within its next `bytes` (at the end of the input, the last line
    /// with or without its newline), without consuming them: `consume(_:lines:)` does. `nil` when
    /// not one whole line fits, at the end of the input, and after a read error: `nextLine()` then
    /// says what is left. Valid until the next call that reads.
    ///
    /// When the next block will be read ahead (`readingAhead`), this reads no more than the block
    /// needs, so that what lies past it in the buffer is at most a line.
    mutating func peekLines(bytes: Int, readingAhead: Bool = false) -> UnsafeBufferPointer<UInt8>? {
        if atStart { skipByteOrderMark() }
        // (A cut line handed back comes first, and only `nextLine()` gives it.)
        if replayCut { return nil }
        while end - start < bytes && !atEndOfFile && readError == nil {
            moveUnreadToFront()
            if capacity < bytes { grow(to: bytes) }
            fill(upTo: readingAhead ? bytes : nil)
        }
        guard readError == nil, start < end else { return nil }
        if atEndOfFile && end - start <= bytes { return UnsafeBufferPointer(start: storage + start, count: end - start) }
        // The last newline within the first `bytes`.
        var k = start + min(bytes, end - start) - 1
        while k >= start && storage[k] != UInt8(ascii: "\n") { k -= 1 }
        guard k >= start else { return nil }
        return UnsafeBufferPointer(start: storage + start, count: k + 1 - start)
    }

    /// A read of the input's next bytes, after the block of `blockBytes` that `peekLines` returned, into
    /// the second buffer, which may run on another thread while the block is decoded (it touches
    /// neither the block nor the reader); `finish(_:)` then counts them in, after the block is
    /// consumed. It reads only as much as brings what lies past the block up to `bytes`, so that what
    /// is unread stays within a block however short the blocks are (a batch's last one is). `nil`
    /// when that much is read already, at the end of the input and after an error.
    mutating func readAhead(after blockBytes: Int, upTo bytes: Int) -> ReadAhead? {
        // The bytes already read past the block go first in the second buffer, when it takes over.
        let tail = end - (start + blockBytes)
        guard !atEndOfFile, readError == nil, !replayCut, tail < bytes else { return nil }
        if spareCapacity < bytes {
            spare?.deallocate()
            spare = .allocate(capacity: bytes)
            spareCapacity = bytes
        }
        return ReadAhead(descriptor: descriptor, destination: spare! + tail, room: bytes - tail, tail: tail)
    }

    /// Counts in the bytes `ahead` read (nothing if it was not performed). When all that is unread
    /// is what lay past the block, the second buffer takes over with those bytes before its own;
    /// otherwise (the block was not all consumed) its bytes are copied after the unread ones.
    mutating func finish(_ ahead: ReadAhead) {
        precondition(ahead.destination == spare! + ahead.tail, "a read ahead finished after its buffer changed")
        guard let outcome = ahead.outcome else { return }
        guard outcome > 0 else {
            if outcome == 0 { atEndOfFile = true } else { readError = Int32(-outcome) }
            return
        }
        offsetRead += outcome
        if end - start == ahead.tail {
            spare!.update(from: storage + start, count: ahead.tail)
            swap(&storage, &spare!)
            swap(&capacity, &spareCapacity)
            start = 0
            end = ahead.tail + outcome
        } else {
            moveUnreadToFront()
            if capacity < end + outcome { grow(to: end + outcome) }
            (storage + end).update(from: ahead.destination, count: outcome)
            end += outcome
        }
    }

    /// Bytes read and not yet consumed: what a read ahead tops up to, about a block (the tests check
    /// that it stays bounded).
    var unreadBytes: Int { end - start }

    /// Consumes the first `count` bytes of what `peekLines` returned, `lines` whole lines.
    mutating func consume(_ count: Int, lines: Int) {
        start += count
        lineNumber += lines
    }

    @inline(__always)
    private mutating func setLine(_ from: Int, _ to: Int) {
        lineStart = from
        lineEnd = to > from && storage[to - 1] == UInt8(ascii: "\r") ? to - 1 : to
        lineNumber += 1
        searched = 0
        lineLength = lineEnd - lineStart
        lineIsCut = lineLength > maxLineBytes
        // (A whole line past the limit can come in one read: it is cut all the same.)
        if lineIsCut { lineEnd = lineStart + min(Self.keptPrefix, maxLineBytes) }
    }

    /// The next line when the buffered bytes hold no whole one: moves the partial line to the front
    /// (growing the buffer if it fills it) and reads more.
    private mutating func nextLineAfterRefill() -> Bool {
        if replayCut {
            replayCut = false
            lineNumber += 1
            return true
        }
        while true {
            let from = start + searched
            bytesSearchedAfterRefill += max(0, end - from)
            if from < end, let newline = memchr(storage + from, Int32(UInt8(ascii: "\n")), end - from) {
                let n = storage.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                setLine(start, n)
                start = n + 1
                return true
            }
            searched = end - start
            if atEndOfFile || readError != nil {
                // The last line has no newline. (After a read error a partial line is not a line: the
                // caller reports the error.)
                guard start < end, readError == nil else { return false }
                setLine(start, end)
                start = end
                return true
            }
            if end - start > maxLineBytes { return cutLongLine() }
            moveUnreadToFront()
            if end == capacity { grow(to: capacity * 2) }
            fill()
        }
    }

    /// The partial line from `start` has passed `maxLineBytes` with no newline: keeps its first bytes
    /// at the buffer's front and reads on, counting and dropping the rest, to its newline or the end
    /// of the input. A read error ends the input here, as it does for any partial line.
    private mutating func cutLongLine() -> Bool {
        let kept = min(Self.keptPrefix, maxLineBytes)
        memmove(storage, storage + start, kept)
        var length = end - start
        var lastByte = storage[end - 1]
        start = kept
        end = kept
        while true {
            fill()
            if readError != nil { return false }
            if atEndOfFile {
                start = end
                break
            }
            bytesSearchedAfterRefill += end - kept
            if let newline = memchr(storage + kept, Int32(UInt8(ascii: "\n")), end - kept) {
                let n = storage.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                length += n - kept
                if n > kept { lastByte = storage[n - 1] }
                start = n + 1
                break
            }
            length += end - kept
            lastByte = storage[end - 1]
            end = kept
        }
        lineNumber += 1
        searched = 0
        lineStart = 0
        lineEnd = kept
        lineIsCut = true
        // (A `\r` before the newline is not part of the line, as for any other.)
        lineLength = length - (lastByte == UInt8(ascii: "\r") ? 1 : 0)
        return true
    }

    /// Skips a UTF-8 byte order mark at the start of the input, if there is one.
    private mutating func skipByteOrderMark() {
        atStart = false
        while end - start < 3 && !atEndOfFile && readError == nil { fill() }
        if end - start >= 3, storage[start] == 0xEF, storage[start + 1] == 0xBB, storage[start + 2] == 0xBF { start += 3 }
    }

    /// Moves the unread bytes to the buffer's front.
    private mutating func moveUnreadToFront() {
        guard start > 0 else { return }
        memmove(storage, storage + start, end - start)
        end -= start
        start = 0
    }

    /// Replaces the buffer with one of `newCapacity` bytes holding its first `end`.
    private mutating func grow(to newCapacity: Int) {
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        larger.update(from: storage, count: end)
        storage.deallocate()
        storage = larger
        capacity = newCapacity
    }

    /// Reads more bytes after `end` (up to `limit` in the buffer); sets `atEndOfFile` or `readError`
    /// when there are none.
    private mutating func fill(upTo limit: Int? = nil) {
        let n = Self.readRetrying(descriptor, into: storage + end, count: (limit.map { min($0, capacity) } ?? capacity) - end)
        if n > 0 {
            end += n
            offsetRead += n
        } else if n == 0 {
            atEndOfFile = true
        } else {
            readError = Int32(-n)
        }
    }

    /// One `read`, again if a signal interrupted it: the bytes read, 0 at the end of the input, or
    /// minus `errno`.
    fileprivate static func readRetrying(_ descriptor: Int32, into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        while true {
            let n = read(descriptor, buffer, count)
            if n < 0 && errno == EINTR { continue }
            return n >= 0 ? n : -Int(errno)
        }
    }
}

/// One `read` into a reader's second buffer (`LineReader.readAhead(after:upTo:)`).
///
/// `@unchecked Sendable`: performed by one thread, then read by the reader's after that thread is done.
final class ReadAhead: @unchecked Sendable {
    fileprivate let descriptor: Int32
    fileprivate let destination: UnsafeMutablePointer<UInt8>
    private let room: Int
    /// The bytes past the block in the first buffer, which go before `destination` in the second.
    fileprivate let tail: Int
    /// Bytes read, 0 at the end of the input, or minus `errno`; `nil` until performed.
    fileprivate private(set) var outcome: Int?

    fileprivate init(descriptor: Int32, destination: UnsafeMutablePointer<UInt8>, room: Int, tail: Int) {
        self.descriptor = descriptor
        self.destination = destination
        self.room = room
        self.tail = tail
    }

    func perform() {
        outcome = LineReader.readRetrying(descriptor, into: destination, count: room)
    }
}
