#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes to a file or standard output through a fixed buffer: constant memory, few system calls.
public struct BufferedOutput: ~Copyable {
    public let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16

    /// Creates (or truncates) `path`; `-` is standard output.
    public init(path: String) throws(InputError) {
        if path == "-" {
            name = "<stdout>"
            descriptor = 1
            ownsDescriptor = false
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else {
                throw InputError(file: path, line: nil, field: nil, message: "cannot create: \(String(cString: strerror(errno)))")
            }
            name = path
            descriptor = fd
            ownsDescriptor = true
        }
        buffer.reserveCapacity(Self.capacity)
    }

    deinit {
        _ = Self.writeAll(buffer, to: descriptor)
        if ownsDescriptor { close(descriptor) }
    }

    /// Appends `text`, writing out the buffer when it is full; a failed write names the output.
    public mutating func append(_ text: String) throws(InputError) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Appends the bytes `body` adds to the end of the buffer (no `String` on the way).
    public mutating func append(_ body: (inout [UInt8]) -> Void) throws(InputError) {
        body(&buffer)
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Appends `bytes`.
    public mutating func append(contentsOf bytes: [UInt8]) throws(InputError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.capacity { try flush() }
    }

    /// Writes out what is buffered.
    public mutating func flush() throws(InputError) {
        let failure = Self.writeAll(buffer, to: descriptor)
        buffer.removeAll(keepingCapacity: true)
        if let failure {
            throw InputError(file: name, line: nil, field: nil, message: "cannot write: \(failure)")
        }
    }

    /// Writes every byte, retrying on interruption; returns the error's text on failure.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += n
        }
        return nil
    }
}
