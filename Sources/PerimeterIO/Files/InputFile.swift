#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Opening an input file, with plain messages when it cannot be read: a path that is missing, a
/// directory or not readable is named as such, not as a line of it or a Foundation error code.
enum InputFile {
    /// Opens `path` for reading: its descriptor, or the problem naming the path.
    static func openForReading(_ path: String) throws(InputError) -> Int32 {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw problem(path, errno: errno) }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw problem(path, errno: EISDIR)
        }
        return descriptor
    }

    /// The whole of `path`'s contents.
    static func contents(of path: String) throws(InputError) -> Data {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var status = stat()
        // A regular file's size, to read it in one go; else (a pipe) in chunks until it ends.
        let expected = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
        // (One byte more than the file, so that the read that finds its end needs no larger buffer.)
        var data = Data(count: max(expected + 1, 1 << 16))
        var count = 0
        while true {
            if count == data.count { data.count *= 2 }
            let got = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw problem(path, errno: errno)
            }
            if got == 0 { break }
            count += got
        }
        data.count = count
        return data
    }

    /// Calls `body` with the whole of `path`'s contents: a regular file mapped into memory (read-only,
    /// without copying it), anything else read whole.
    static func withContents<Result>(of path: String, _ body: (UnsafeRawBufferPointer) -> Result) throws(InputError) -> Result {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
              let mapped = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return try contents(of: path).withUnsafeBytes(body)
        }
        defer { munmap(mapped, Int(status.st_size)) }
        return body(UnsafeRawBufferPointer(start: mapped, count: Int(status.st_size)))
    }

    /// A digest (FNV-1a, 64 bits, in hex) of the 64 KiB of `path` before `offset` (all of them when
    /// fewer): what tells the file a position was saved in from another one, or from one rewritten
    /// since, without reading it whole.
    static func tailDigest(_ path: String, before offset: Int) throws(InputError) -> String {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        let count = min(offset, 1 << 16)
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, count - got, off_t(offset - count + got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw InputError(file: path, line: nil, field: nil, message: "it is shorter than the \(offset) bytes read before") }
            got += n
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The plain words for why `path` cannot be opened or read.
    static func problem(_ path: String, errno code: Int32) -> InputError {
        let message = switch code {
        case ENOENT: "no such file or directory"
        case EISDIR: "is a directory, not a file"
        case EACCES: "permission denied: the file cannot be read"
        default: "cannot read the file: \(String(cString: strerror(code)))"
        }
        return InputError(file: path, line: nil, field: nil, message: message)
    }
}
