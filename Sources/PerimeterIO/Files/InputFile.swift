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
