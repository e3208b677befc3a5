import Foundation
import Perimeter

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

extension JSONText {
    /// A finite double as the shortest decimal that reads back as the same double: a whole number
    /// below 10¹⁶ without a fraction (`12`, `-60`, `0`), anything else as Swift's `description`
    /// (`-71.5`, `1e-05`), which is JSON.
    static func number(_ value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        if value == value.rounded(.towardZero) && abs(value) < 1e16 { return String(Int64(value)) }
        return value.description
    }

    /// Diagnostics as a JSON array of their names, in their order.
    static func names(_ diagnostics: Diagnostics) -> String {
        "[" + Diagnostics.named.filter { diagnostics.contains($0.0) }.map { "\"\($0.1)\"" }.joined(separator: ",") + "]"
    }
}
