import Foundation

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

    /// `String(value)`'s bytes, with zeros in front up to `width` characters: written backwards,
    /// then turned round.
    static func appendDecimal(_ value: Int, width: Int = 1, to out: inout [UInt8]) {
        let start = out.count
        var n = value.magnitude
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(n % 10))
            n /= 10
        } while n > 0
        if value < 0 { out.append(UInt8(ascii: "-")) }
        while out.count - start < width { out.append(UInt8(ascii: "0")) }
        out[start...].reverse()
    }

    /// `uuid.uuidString`'s bytes (8-4-4-4-12 upper-case hexadecimal digits), without the `String`.
    static func appendUUID(_ uuid: UUID, to out: inout [UInt8]) {
        let digits: StaticString = "0123456789ABCDEF"
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (k, byte) in bytes.enumerated() {
                if k == 4 || k == 6 || k == 8 || k == 10 { out.append(UInt8(ascii: "-")) }
                out.append(digits.utf8Start[Int(byte >> 4)])
                out.append(digits.utf8Start[Int(byte & 15)])
            }
        }
    }

    static func quotedOrNull(_ s: String?) -> String {
        s.map(quoted) ?? "null"
    }
}
