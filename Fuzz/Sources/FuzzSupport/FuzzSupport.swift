#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibFuzzer
import Foundation

/// What every fuzz target shares: libFuzzer's driver, how a finding is reported, scratch files and
/// the pipe that feeds a reader through `/dev/fd/N`.
public enum Fuzz {
    /// Runs libFuzzer's driver with the process's arguments and `testOneInput`; never returns.
    public static func run(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        // A reader that stops early (a bad CSV header) leaves the pipe's writer writing to no one.
        signal(SIGPIPE, SIG_IGN)
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        // (libFuzzer ends the process with exit(), not by returning; a crash leaves the directory.)
        atexit { Scratch.removeDirectory() }
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }

    /// A one-byte buffer for an empty input whose pointer libFuzzer left `nil`.
    nonisolated(unsafe) public static let emptyInput = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    /// Reports a finding on standard error and aborts, so that libFuzzer saves the input.
    public static func finding(_ message: String) -> Never {
        var text = "\n==== PERIMETER FUZZ FINDING ====\n" + message + "\n================================\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        abort()
    }

    /// Where two lists first differ (the shorter's length when one is the other's start).
    public static func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? a.count
    }

    /// `text` cut to `limit` characters, for messages.
    public static func short(_ text: String, _ limit: Int = 600) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.count) characters)"
    }
}

/// Files in a directory of this process's own under the temporary directory, removed when the
/// driver returns (a crash leaves it: it holds only the last input's files).
public enum Scratch {
    nonisolated(unsafe) private static var counter = 0
    public static let directory: String = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let path = "\(base)/perimeter-fuzz.\(getpid())"
        mkdir(path, 0o700)
        return path
    }()

    /// A fresh path in the scratch directory ending with `suffix`.
    public static func path(_ suffix: String) -> String {
        counter += 1
        return "\(directory)/\(counter % 16)-\(suffix)"
    }

    /// Writes `bytes` to `path` (created or truncated).
    public static func write(_ bytes: UnsafeBufferPointer<UInt8>, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { Fuzz.finding("harness: cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard writeAll(fd, bytes) else { Fuzz.finding("harness: cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// The file's bytes, or nil when it cannot be read.
    /// (POSIX, not `FileManager.contents(atPath:)`: that leaks 4 KB per empty file in this toolchain's
    /// FoundationEssentials, which LeakSanitizer reports.)
    public static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
    }

    public static func remove(_ path: String) { unlink(path) }

    static func removeDirectory() {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: directory) {
            for name in names { unlink("\(directory)/\(name)") }
        }
        rmdir(directory)
    }

    /// Writes every byte to `fd`, retrying on interruption; false on an error (`errno` says which).
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}

/// Feeds bytes through a `pipe()` from a writer thread, while `body` reads the pipe as the file
/// `/dev/fd/N` (how a shell's `<(…)` hands a reader its input). The writer writes in pieces of
/// varying size so that the reader's `read` calls return partial lines.
///
/// The writer is one long-lived thread: a thread made per input left allocations behind it
/// (freed later, as it ended), so that libFuzzer saw more allocations than frees in every run and
/// had LeakSanitizer scan the heap each time (20 times slower).
public enum PipeFeed {
    public static func read<T>(_ bytes: [UInt8], _ body: (String) -> T) -> T {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { Fuzz.finding("harness: pipe() failed: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        Writer.shared.start(bytes, to: writeEnd)
        let result = body("/dev/fd/\(readEnd)")
        // Closing our read end (the reader closed its own) ends a writer still blocked in `write`.
        close(readEnd)
        Writer.shared.wait()
        return result
    }

    /// The writer thread and its one job at a time (handed over and back through semaphores).
    final class Writer: @unchecked Sendable {
        static let shared = Writer()
        private let ready = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        private var bytes: [UInt8] = []
        private var descriptor: Int32 = -1

        private init() {
            let thread = Thread { [unowned self] in
                while true {
                    ready.wait()
                    write()
                    done.signal()
                }
            }
            thread.start()
        }

        func start(_ bytes: [UInt8], to descriptor: Int32) {
            self.bytes = bytes
            self.descriptor = descriptor
            ready.signal()
        }

        func wait() {
            done.wait()
            bytes = []
        }

        private func write() {
            bytes.withUnsafeBufferPointer { all in
                // Pieces of 1, 7, 61, 509, 4093 bytes, then the rest in one write (a pipe's write blocks
                // until the reader has taken what does not fit).
                var offset = 0, k = 0
                let pieces = [1, 7, 61, 509, 4093]
                while offset < all.count {
                    let n = k < pieces.count ? min(pieces[k], all.count - offset) : all.count - offset
                    k += 1
                    // (EPIPE when the reader stopped early: the rest is not wanted.)
                    guard Scratch.writeAll(descriptor, UnsafeBufferPointer(rebasing: all[offset..<offset + n])) else { break }
                    offset += n
                }
            }
            close(descriptor)
        }
    }
}
