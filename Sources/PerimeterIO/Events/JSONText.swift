import Foundation

/// Minimal JSON text building for the writers: strings escaped as RFC 8259 requires, nothing more,
/// so output is byte-for-byte predictable.
enum JSONText {
    static func quoted(_ s: String) -> String {
        var s = s, bytes: [UInt8] = []
        s.withUTF8 { text in ByteWriter.append(to: &bytes, capacity: ByteWriter.quotedBound(text.count)) { $0.writeQuoted(text) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func quotedOrNull(_ s: String?) -> String {
        s.map(quoted) ?? "null"
    }
}
