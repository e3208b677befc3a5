#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes to a file or standard output through a fixed buffer: constant memory, few system calls.
///
/// Made with `init(replacing:)`, a regular file is written whole or not at all: the bytes go to a new
/// file beside it (`partialPath`), which `commit()` renames over it once the run has succeeded. A run
/// that stops before — an error, a signal, a kill — leaves the file as it was, and what was written
/// so far in the partial file, whose name never clashes with an existing one.
///
/// ```swift
/// var out = try BufferedOutput(replacing: "events.jsonl")
/// try out.append("{…}\n")
/// try out.commit()   // events.jsonl now holds exactly what was appended
/// ```
public struct BufferedOutput: ~Copyable {
    public let name: String
    /// Where the bytes go until `commit()`, when the output is staged; `nil` when they go straight
    /// to the output (standard output, a device, a pipe, or `init(path:)`).
    public let partialPath: String?
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The staged output's real path (symbolic links followed), which `commit()` replaces.
    private let target: String?
    /// The permissions the committed file gets: the replaced file's, or a new file's.
    private let mode: mode_t
    private var committed = false
    private var buffer: [UInt8] = []
    /// Bytes written to the file so far (the buffer not counted): where a resumed run cuts it back to.
    public private(set) var length = 0
    private static let capacity = 1 << 16

    /// Creates (or truncates) `path`; `-` is standard output.
    public init(path: String) throws(InputError) {
        if path == "-" {
            self.init(name: "<stdout>", descriptor: 1, ownsDescriptor: false)
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw InputError(file: path, line: nil, field: nil, message: "cannot create: \(String(cString: strerror(errno)))")
        }
        self.init(name: path, descriptor: fd, ownsDescriptor: true)
    }

    private init(name: String, descriptor: Int32, ownsDescriptor: Bool, partialPath: String? = nil, target: String? = nil,
                 mode: mode_t = 0) {
        self.name = name
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.partialPath = partialPath
        self.target = target
        self.mode = mode
        buffer.reserveCapacity(Self.capacity)
    }

    /// Goes on with a staged output whose partial file `partialPath` a run that stopped left: cut back
    /// to its first `length` bytes (what was saved with the run's state), then appended to; `commit()`
    /// renames it over `path` as usual. A partial file not made yet (`length` 0: the run stopped
    /// between naming it and making it) is made; one that is missing or shorter is refused.
    public init(resuming partialPath: String, replacing path: String, length: Int) throws(InputError) {
        var fd = open(partialPath, O_WRONLY)
        if fd < 0 && errno == ENOENT && length == 0 { fd = open(partialPath, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        func failure(_ message: String) -> InputError {
            InputError(file: path, line: nil, field: nil, message: "cannot go on with the run's partial output \(partialPath): \(message)")
        }
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(fd, &status) == 0, Int(status.st_size) >= length else {
            close(fd)
            throw failure("it is shorter than the \(length) bytes the state saved")
        }
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) == off_t(length) else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw failure(reason)
        }
        let (real, mode) = Self.replacement(of: path)
        self.init(name: path, descriptor: fd, ownsDescriptor: true, partialPath: partialPath, target: real, mode: mode)
        self.length = length
    }

    /// A name for a partial file beside `path` (beside the file a symbolic link names) that no file
    /// has now, for a staged output whose name must be saved before the file is made
    /// (`init(resuming:replacing:length:)` makes it).
    public static func newPartialPath(for path: String) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        while true {
            let candidate = replacement(of: path).real + ".partial-" + String((0..<6).map { _ in letters.randomElement()! })
            if access(candidate, F_OK) != 0 { return candidate }
        }
    }

    /// The file a staged output of `path` replaces (a link followed, so that the link stays a link)
    /// and the permissions it gets: the replaced file's, or a new file's.
    private static func replacement(of path: String) -> (real: String, mode: mode_t) {
        var status = stat(), link = stat()
        let exists = stat(path, &status) == 0
        let real = exists && lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK ? (realPath(path) ?? path) : path
        if exists { return (real, status.st_mode & 0o7777) }
        let mask = umask(0)
        umask(mask)
        return (real, 0o644 & ~mask)
    }

    /// Stages a replacement of `path` (`-` is standard output, written as it comes): a regular file,
    /// or one that does not exist yet, is written to `path.partial-XXXXXX` beside it (beside the file
    /// a symbolic link names) and renamed into place by `commit()`. Anything else — a device such as
    /// `/dev/null`, a pipe — is opened and written as it comes; it cannot be replaced.
    public init(replacing path: String) throws(InputError) {
        var status = stat()
        if path == "-" || (stat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG) {
            try self.init(path: path)
            return
        }
        let (real, mode) = Self.replacement(of: path)
        var template = Array((real + ".partial-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw InputError(file: path, line: nil, field: nil, message: "cannot create a file beside it: \(String(cString: strerror(errno)))")
        }
        self.init(name: path, descriptor: fd, ownsDescriptor: true,
                  partialPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, target: real, mode: mode)
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
        if failure == nil { length += buffer.count }
        buffer.removeAll(keepingCapacity: true)
        if let failure {
            throw InputError(file: name, line: nil, field: nil, message: "cannot write: \(failure)")
        }
    }

    /// Writes out what is buffered and puts it on the disk (`fsync`): after a crash, even of the
    /// machine, the file holds at least `length` bytes.
    public mutating func sync() throws(InputError) {
        try flush()
        // (A device or a pipe cannot be synced, and need not be: EINVAL.)
        if ownsDescriptor && fsync(descriptor) != 0 && errno != EINVAL {
            throw InputError(file: name, line: nil, field: nil, message: "cannot write: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes out what is buffered and, for a staged output, puts the written file in place of the
    /// output: on the disk first (`fsync`), then renamed over it in one step. Later appends are not
    /// allowed.
    public mutating func commit() throws(InputError) {
        try flush()
        guard let partialPath, let target, !committed else { return }
        func failure(_ what: String) -> InputError {
            InputError(file: name, line: nil, field: nil,
                       message: "\(what): \(String(cString: strerror(errno))); the output is in \(partialPath)")
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot write") }
        guard fchmod(descriptor, mode) == 0 else { throw failure("cannot set its permissions") }
        guard rename(partialPath, target) == 0 else { throw failure("cannot put the output in place") }
        committed = true
    }

    /// `path` with every symbolic link resolved, or `nil` when that fails.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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
