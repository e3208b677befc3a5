import COpenSSL
import Dispatch
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

    /// Reads the cache at `path`, checks it against the conditions file at `conditions` (its SHA-256),
    /// `options` and `build`, and when it matches gives what `use` made of its image (valid during the
    /// call only: the file is mapped, not copied) and of the line of each condition's feature in the
    /// conditions file, in the order they were added; also the key a new cache should be written under.
    ///
    /// `use` runs on one thread while another computes the two SHA-256s (of the conditions and of the
    /// cache), so it is given bytes not yet checked: it must check what it reads (as
    /// `MonitoringEngine(policy:indexImage:)` does), and its result is dropped when a check fails.
    /// - Throws: when a path cannot be read, or the cache's holds something other than an index cache
    ///   (which the tool must not replace).
    public static func load<Loaded>(_ path: String, conditions: String, options: String, build: String,
                                    _ use: (_ image: UnsafeRawBufferPointer, _ lines: [Int]) -> Loaded)
        throws(InputError) -> (found: Found<Loaded>, key: Key) {
        guard access(path, F_OK) == 0 else {
            return (.none, Key(conditions: try digest(ofFile: conditions), options: options, build: build))
        }
        let checks = CacheChecks()
        var parts: (version: UInt32, key: String, loaded: Loaded)?
        let isCache = try InputFile.withContents(of: path) { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard bytes.count >= magic.count + digestLength, bytes.prefix(magic.count).elementsEqual(magic) else {
                return bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
            }
            // (The mapping outlives the task: `wait()` below returns before it is unmapped.)
            nonisolated(unsafe) let body = UnsafeRawBufferPointer(rebasing: bytes.dropLast(digestLength))
            let trailer = Array(bytes.suffix(digestLength)), done = DispatchGroup()
            DispatchQueue.global().async(group: done) {
                checks.conditionsDigest = Result { () throws(InputError) in try digest(ofFile: conditions) }
                checks.bodyMatches = sha256(body).elementsEqual(trailer)
            }
            var reader = CacheReader(bytes: body, offset: magic.count)
            if let version: UInt32 = reader.read(), let keyText = reader.readBytes().flatMap({ String(validating: $0, as: UTF8.self) }),
               let lines: [Int32] = reader.readArray(), let image = reader.readBytes(), reader.isAtEnd {
                parts = (version, keyText, use(UnsafeRawBufferPointer(image), lines.map(Int.init)))
            }
            done.wait()
            return true
        }
        guard isCache else {
            throw InputError(file: path, line: nil, field: nil,
                             message: "not an index cache (it does not begin \"perimeter index cache\"): it is left as it is; name another file for --index-cache")
        }
        let conditionsDigest: String
        if let computed = checks.conditionsDigest { conditionsDigest = try computed.get() } else { conditionsDigest = try digest(ofFile: conditions) }
        let key = Key(conditions: conditionsDigest, options: options, build: build)
        guard checks.bodyMatches else { return (.unusable("damaged: its SHA-256 does not match what it holds"), key) }
        guard let parts else { return (.unusable("damaged: its parts do not add up"), key) }
        guard parts.version == formatVersion else { return (.unusable("of another format version"), key) }
        guard parts.key == key.text else {
            let theirs = parts.key.split(separator: "\n").map(String.init), ours = key.text.split(separator: "\n").map(String.init)
            let differing = zip(theirs, ours).first { $0 != $1 }?.1.split(separator: ":").first.map(String.init) ?? "key"
            return (.unusable("made for another \(differing)"), key)
        }
        return (.usable(parts.loaded), key)
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

/// What the thread beside `IndexCache.load`'s reading found. `@unchecked Sendable`: written by that
/// thread only, and read only after waiting for it.
private final class CacheChecks: @unchecked Sendable {
    var conditionsDigest: Result<String, InputError>?
    var bodyMatches = false
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
