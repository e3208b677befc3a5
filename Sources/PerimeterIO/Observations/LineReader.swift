#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file (or standard input) line by line in fixed-size chunks: constant memory whatever the
/// input's length. Lines end at `\n`; a trailing `\r` is dropped.
struct LineReader: ~Copyable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEndOfFile = false
    /// The line returned by the last `nextLine()`.
    private(set) var line: [UInt8] = []
    /// Its 1-based number.
    private(set) var lineNumber = 0
    /// Why reading stopped early, if it did (`errno`): the input ends there, and the caller says so.
    private(set) var readError: Int32?

    static let chunkSize = 1 << 16

    /// Opens `path`, or standard input for `-`.
    init(path: String) throws(InputError) {
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                throw InputError(file: path, line: nil, field: nil, message: "cannot open: \(String(cString: strerror(errno)))")
            }
            descriptor = fd
            ownsDescriptor = true
        }
        buffer = [UInt8](repeating: 0, count: Self.chunkSize)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Advances to the next line; `false` at the end of the input.
    mutating func nextLine() -> Bool {
        line.removeAll(keepingCapacity: true)
        while true {
            if let newline = nextNewline() {
                line.append(contentsOf: buffer[start..<newline])
                start = newline + 1
                return finishLine()
            }
            line.append(contentsOf: buffer[start..<end])
            start = 0
            end = 0
            if atEndOfFile || !fill() {
                atEndOfFile = true
                // (After a read error the partial line is not a line: the caller reports the error.)
                return line.isEmpty || readError != nil ? false : finishLine()
            }
        }
    }

    /// The position of the next `\n` in the buffered bytes (`memchr`, which scans words at a time).
    @inline(__always)
    private func nextNewline() -> Int? {
        guard start < end else { return nil }
        return buffer.withUnsafeBufferPointer { b -> Int? in
            guard let found = memchr(b.baseAddress! + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
            return UnsafeRawPointer(b.baseAddress!).distance(to: UnsafeRawPointer(found))
        }
    }

    private mutating func finishLine() -> Bool {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        lineNumber += 1
        return true
    }

    /// Reads the next chunk; `false` at the end of the input or on a read error.
    private mutating func fill() -> Bool {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, Self.chunkSize) }
            if n > 0 {
                end = n
                return true
            }
            if n < 0 {
                if errno == EINTR { continue }
                readError = errno
            }
            return false
        }
    }
}
