import Foundation

/// Minimal JSON text building for the writers: strings escaped as RFC 8259 requires, nothing more,
/// so output is byte-for-byte predictable.
enum JSONText {
    static func quoted(_ s: String) -> String {
        var s = s, bytes: [UInt8] = []
        s.withUTF8 { text in ByteWriter.append(to: &bytes, capacity: ByteWriter.quotedBound(text.count)) { $0.writeQuoted(text) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `String(value)`'s bytes, with zeros in front of the digits up to `width` characters (the sign
    /// counting as one; at most 32).
    static func appendDecimal(_ value: Int, width: Int = 1, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 40) { $0.writeDecimal(value, width: width) }
    }

    static func quotedOrNull(_ s: String?) -> String {
        s.map(quoted) ?? "null"
    }
}
