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

    /// Appends a literal's bytes: one copy, where a `String`'s UTF-8 view is appended unit by unit.
    @inline(__always)
    static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
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

    /// `String(value)`'s bytes, with zeros in front of the digits up to `width` characters (the sign
    /// counting as one): written backwards into a small buffer, then appended. (Turning the digits
    /// round in `out` itself copied a slice of it, about a thousand instructions a number.)
    static func appendDecimal(_ value: Int, width: Int = 1, to out: inout [UInt8]) {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: 19 digits and any padding
        withUnsafeMutableBytes(of: &buffer) { digits in
            var i = digits.count
            var n = value.magnitude
            repeat {
                i -= 1
                digits[i] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            let padded = min(digits.count, width - (value < 0 ? 1 : 0))
            while digits.count - i < padded {
                i -= 1
                digits[i] = UInt8(ascii: "0")
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[i...]))
        }
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
