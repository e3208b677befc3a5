import COpenSSL
import Foundation
import Perimeter

/// A file that keeps an engine's index image (`MonitoringEngine.indexImage()`) with what it was
/// made from, so that a later run over the same conditions loads it instead of parsing, checking
/// and indexing them again.
///
/// Nothing in it is taken on trust: it is used only when it names the same conditions (their
/// SHA-256), the same options and the same build as the run that finds it, and when its own SHA-256,
/// kept at its end, matches what it holds. The engine then checks the image's structure again as it
/// reads it.
///
/// Its layout: the line `perimeter index cache`, a format version (4 bytes), the key (its length,
/// then `name: value` lines), the feature line of each condition (a count, then 4 bytes each), the
/// image (its length, then its bytes), and the SHA-256 of everything before it. Numbers are in the
/// machine's byte order, as the image's are; the build in the key names the machine's kind.
public enum IndexCache {
    /// What a cache must have been made from to be used: each part compared as text.
    public struct Key: Sendable, Hashable {
        /// The conditions file's SHA-256 (`IndexCache.digest(of:)`), in hex.
        public var conditions: String
        /// The options that shape the conditions as added (a default starting state, repair).
        public var options: String
        /// The build that made the image: the image holds this build's arrays as they are in memory.
        public var build: String

        public init(conditions: String, options: String, build: String) {
            self.conditions = conditions
            self.options = options
            self.build = build
        }

        var text: String { "conditions-sha256: \(conditions)\noptions: \(options)\nbuild: \(build)\n" }
    }

    /// What `load` found.
    public enum Found<Loaded> {
        /// No file at the path.
        case none
        /// A cache of other conditions, options or build, or a damaged one: the reason. The file is
        /// one this tool wrote, and may be replaced.
        case unusable(String)
        /// What the caller made of the cache's image and lines.
        case usable(Loaded)
    }

    static let magic = Array("perimeter index cache\n".utf8)
    static let formatVersion: UInt32 = 1
    static let digestLength = 32

    /// The SHA-256 of `bytes`, in lowercase hex.
    public static func digest(of bytes: UnsafeRawBufferPointer) -> String {
        sha256(bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == digestLength, "SHA-256 failed")
        return digest
    }

    /// The SHA-256 of the file at `path`, in lowercase hex.
    public static func digest(ofFile path: String) throws(InputError) -> String {
        try InputFile.withContents(of: path) { digest(of: $0) }
    }

    /// Reads the cache at `path`, compares it with `key`, and when it matches gives `use` its image
    /// (valid during the call only: the file is mapped, not copied) and the line of each condition's
    /// feature in the conditions file, in the order they were added.
    /// - Throws: when the path cannot be read, or holds something other than an index cache (which
    ///   the tool must not replace).
    public static func load<Loaded>(_ path: String, key: Key,
                                    _ use: (_ image: UnsafeRawBufferPointer, _ lines: [Int]) -> Loaded) throws(InputError) -> Found<Loaded> {
        guard access(path, F_OK) == 0 else { return .none }
        let found = try InputFile.withContents(of: path) { (bytes: UnsafeRawBufferPointer) -> Found<Loaded>? in
            guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: bytes.dropLast(min(bytes.count, digestLength)))
            guard bytes.count >= magic.count + digestLength, sha256(body).elementsEqual(bytes.suffix(digestLength)) else {
                return .unusable("damaged: its SHA-256 does not match what it holds")
            }
            var reader = CacheReader(bytes: body, offset: magic.count)
            guard let version: UInt32 = reader.read(), version == formatVersion else { return .unusable("of another format version") }
            guard let keyText = reader.readBytes().flatMap({ String(validating: $0, as: UTF8.self) }) else { return .unusable("damaged key") }
            guard keyText == key.text else {
                let theirs = keyText.split(separator: "\n").map(String.init), ours = key.text.split(separator: "\n").map(String.init)
                let differing = zip(theirs, ours).first { $0 != $1 }?.1.split(separator: ":").first.map(String.init) ?? "key"
                return .unusable("made for another \(differing)")
            }
            guard let lines: [Int32] = reader.readArray(), let image = reader.readBytes(), reader.isAtEnd else {
                return .unusable("damaged: its parts do not add up")
            }
            return .usable(use(UnsafeRawBufferPointer(image), lines.map(Int.init)))
        }
        guard let found else {
            throw InputError(file: path, line: nil, field: nil,
                             message: "not an index cache (it does not begin \"perimeter index cache\"): it is left as it is; name another file for --index-cache")
        }
        return found
    }

    /// Writes a cache of `image` and `lines` under `key` to `path`, staged beside it and renamed into
    /// place, so that a reader never sees half of one.
    public static func store(_ image: [UInt8], lines: [Int], key: Key, to path: String) throws(InputError) {
        var bytes = magic
        func append<T: BitwiseCopyable>(_ value: T) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
        append(formatVersion)
        let keyText = Array(key.text.utf8)
        append(Int64(keyText.count)); bytes += keyText
        append(Int64(lines.count))
        for line in lines { append(Int32(clamping: line)) }
        append(Int64(image.count)); bytes += image
        bytes += bytes.withUnsafeBytes { sha256($0) }
        var output = try BufferedOutput(replacing: path)
        try output.append(contentsOf: bytes)
        try output.commit()
    }
}

/// Reads the cache's parts; `nil` when one runs past the end.
private struct CacheReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    var isAtEnd: Bool { offset == bytes.count }

    mutating func read<T: BitwiseCopyable>() -> T? {
        guard MemoryLayout<T>.size <= bytes.count - offset else { return nil }
        defer { offset += MemoryLayout<T>.size }
        return bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    mutating func readBytes() -> UnsafeBufferPointer<UInt8>? {
        guard let count: Int64 = read(), count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += Int(count) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(count))]).bindMemory(to: UInt8.self)
    }

    mutating func readArray<T: BitwiseCopyable>() -> [T]? {
        guard let count: Int64 = read(), count >= 0, count <= (bytes.count - offset) / MemoryLayout<T>.stride else { return nil }
        return (0..<Int(count)).map { _ in read()! }
    }
}
