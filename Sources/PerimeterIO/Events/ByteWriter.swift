import Foundation

/// Writes bytes at a cursor into memory the caller has sized for everything it will write: the
/// writers' form. Appending to an `[UInt8]` piece by piece cost a uniqueness and a capacity check per
/// piece — some twenty pieces an event line, most of its cost.
struct ByteWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private var cursor: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        cursor = start
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: cursor - start) }

    /// Most bytes `writeQuoted` writes for a text of `count` bytes: each may become `\u00XX`.
    static func quotedBound(_ count: Int) -> Int { 2 + 6 * count }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        cursor.pointee = byte
        cursor += 1
    }

    @inline(__always)
    mutating func write(_ literal: StaticString) {
        cursor.update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
        cursor += literal.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        cursor.update(from: base, count: bytes.count)
        cursor += bytes.count
    }

    /// A string's UTF-8 (a literal's, such as an enumeration's raw value, is read in place).
    @inline(__always)
    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    /// Exactly `count` decimal digits of `value` (0 ≤ `value` < 10^`count`): the fixed-width fields
    /// of a date, without `writeDecimal`'s general case.
    @inline(__always)
    mutating func writeDigits(_ value: Int, count: Int) {
        var v = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            cursor[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        cursor += count
    }

    /// `String(value)`, with zeros in front of the digits up to `width` characters (the sign counting
    /// as one; at most 32): at most 33 bytes.
    mutating func writeDecimal(_ value: Int, width: Int = 1) {
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
            if value < 0 { write(UInt8(ascii: "-")) }
            UnsafeMutableRawPointer(cursor).copyMemory(from: digits.baseAddress! + i, byteCount: digits.count - i)
            cursor += digits.count - i
        }
    }

    /// A JSON string of UTF-8 `bytes`, escaped as RFC 8259 requires and nothing more (`JSONText.quoted`
    /// byte for byte: below 0x20 a UTF-8 byte is its own scalar): at most `quotedBound(bytes.count)`.
    mutating func writeQuoted(_ bytes: UnsafeBufferPointer<UInt8>) {
        write(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): write(#"\""#)
            case UInt8(ascii: "\\"): write(#"\\"#)
            case 0x0A: write(#"\n"#)
            case 0x0D: write(#"\r"#)
            case 0x09: write(#"\t"#)
            case 0x08: write(#"\b"#)
            case 0x0C: write(#"\f"#)
            case ..<0x20:
                let hex: StaticString = "0123456789abcdef"
                write(#"\u00"#)
                write(hex.utf8Start[Int(byte >> 4)])
                write(hex.utf8Start[Int(byte & 15)])
            default: write(byte)
            }
        }
        write(UInt8(ascii: "\""))
    }

    /// `uuid.uuidString` (8-4-4-4-12 upper-case hexadecimal digits): 36 bytes.
    mutating func writeUUID(_ uuid: UUID) {
        let digits: StaticString = "0123456789ABCDEF"
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (k, byte) in bytes.enumerated() {
                if k == 4 || k == 6 || k == 8 || k == 10 { write(UInt8(ascii: "-")) }
                write(digits.utf8Start[Int(byte >> 4)])
                write(digits.utf8Start[Int(byte & 15)])
            }
        }
    }

    /// Runs `body` with a writer over `capacity` bytes of temporary memory, then appends what it wrote.
    static func append(to out: inout [UInt8], capacity: Int, _ body: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = ByteWriter(buffer.baseAddress!)
            body(&writer)
            out.append(contentsOf: writer.written)
        }
    }
}

extension ByteWriter {
    /// A finite double in at most 24 bytes: a whole number below 10¹⁶ without a fraction (`12`,
    /// `-60`, `0`), else the shortest decimal that reads back as the same double (Swift's
    /// `description`, which is JSON: `-71.5`, `1e-05`).
    @inline(__always)
    mutating func writeNumber(_ value: Double) {
        if value == value.rounded(.towardZero) && abs(value) < 1e16 {
            if value == 0 && value.sign == .minus { write(UInt8(ascii: "-")) }
            writeDecimal(Int(value))
        } else {
            write(value.description)
        }
    }
}
