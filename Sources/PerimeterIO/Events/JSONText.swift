/// Minimal JSON text building for the writers: strings escaped as RFC 8259 requires, nothing more,
/// so output is byte-for-byte predictable.
enum JSONText {
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Appends `quoted(s)`'s bytes: the string's own UTF-8 between quotes when nothing in it needs
    /// escaping (names and identifiers, nearly always), else `quoted`'s text.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        var s = s
        let plain = s.withUTF8 { bytes in
            !bytes.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
        }
        guard plain else {
            out.append(contentsOf: quoted(s).utf8)
            return
        }
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
    }

    static func quotedOrNull(_ s: String?) -> String {
        s.map(quoted) ?? "null"
    }
}
