import Perimeter

/// RFC 3339 timestamps and decimal Unix seconds, both to the nanosecond and exact (no `Double` on
/// the way), so that equal instants written differently compare equal.
public enum RFC3339 {
    /// Parses `2026-03-01T08:00:00Z`, `2026-03-01T09:00:00.25+01:00` (a space or lowercase `t`/`z`
    /// allowed); `nil` if it is not such a timestamp. Digits past nanoseconds are truncated.
    public static func parse(_ text: String) -> Timestamp? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer($0)) }
    }

    /// `parse(_:)` on bytes.
    public static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard let (year, month, day, hour, minute, second) = head(b) else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? { RFC3339.digits(b, at, count) }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            var count = 0
            while i < b.count, (48...57).contains(b[i]) {
                if count < 9 { nanos = nanos * 10 + Int64(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 9)..<9 { nanos *= 10 }
        }
        guard i < b.count else { return nil }
        var offsetSeconds = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"),
                  let om = digits(i + 4, 2), oh < 24, om < 60 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        // (A second before 1970 with a fraction: its whole seconds times 10⁹ may not fit when the
        // instant does — the earliest second 64-bit nanoseconds hold — so count from the next one.)
        let borrow: Int64 = seconds < 0 && nanos > 0 ? 1 : 0
        let (ns, overflow) = (seconds + borrow).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, overflow2) = ns.addingReportingOverflow(nanos - borrow * 1_000_000_000)
        return overflow2 ? nil : Timestamp(nanosecondsSinceEpoch: total)
    }

    /// The date and time fields of `YYYY-MM-DDTHH:MM:SS` (`T`, `t` or a space in the middle) at the
    /// start of `b`, if `b` holds at least 20 bytes: three word loads, every byte's class checked at
    /// once (digits by an exact per-byte test, separators by masked comparison), then the digits
    /// taken out. It answers as `headByBytes`, the byte-by-byte reading it replaced and the tests' oracle.
    @inline(__always)
    static func head(_ b: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int, Int, Int, Int)? {
        guard b.count >= 20, let p = b.baseAddress else { return nil }
        let w0 = ByteWord.load(p), w1 = ByteWord.load(p + 8)
        let w2 = UInt64(UInt32(littleEndian: UnsafeRawPointer(p + 16).loadUnaligned(as: UInt32.self)))
        // Digits at 0–3, 5, 6 | 8, 9, 11, 12, 14, 15 | 17, 18; '-' at 4 and 7, ':' at 13 and 16.
        guard ByteWord.digits(w0) & 0x0080_8000_8080_8080 == 0x0080_8000_8080_8080,
              ByteWord.digits(w1) & 0x8080_0080_8000_8080 == 0x8080_0080_8000_8080,
              ByteWord.digits(w2) & 0x0000_0000_0080_8000 == 0x0000_0000_0080_8000,
              w0 & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,
              w1 & 0x0000_FF00_0000_0000 == 0x0000_3A00_0000_0000, w2 & 0xFF == 0x3A else { return nil }
        let middle = (w1 >> 16) & 0xFF
        guard middle == 0x54 || middle == 0x74 || middle == 0x20 else { return nil }
        func digit(_ w: UInt64, _ k: UInt64) -> Int { Int((w >> (8 * k)) & 0x0F) }
        return (digit(w0, 0) * 1000 + digit(w0, 1) * 100 + digit(w0, 2) * 10 + digit(w0, 3),
                digit(w0, 5) * 10 + digit(w0, 6), digit(w1, 0) * 10 + digit(w1, 1),
                digit(w1, 3) * 10 + digit(w1, 4), digit(w1, 6) * 10 + digit(w1, 7), digit(w2, 1) * 10 + digit(w2, 2))
    }

    /// The value of the `count` digits at `at` in `b`, if they are there and all digits.
    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
        guard at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let d = Int(b[i]) - 48
            guard (0...9).contains(d) else { return nil }
            v = v * 10 + d
        }
        return v
    }

    /// Parses decimal Unix seconds as written (`1709280000`, `-5`, `1709280000.123456789`,
    /// `1.7092800001E9`), exactly: digits past the nanosecond are cut off, as in an RFC 3339 time.
    /// `nil` if it is not a number or out of range.
    public static func parseUnixSeconds(_ text: String) -> Timestamp? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { parseUnixSeconds(UnsafeBufferPointer($0)) }
    }

    /// `parseUnixSeconds(_:)` for the commonest times — at most 11 digits of seconds, and at most 8
    /// of a fraction — in a few word loads (`shortUnixSeconds`); anything else as
    /// `parseUnixSeconds(_:)` reads it. `readable`: how many bytes from `b`'s start may be loaded (at
    /// least its count); bytes past `b.count` never change the answer.
    @inline(__always)
    static func parseUnixSeconds(_ b: UnsafeBufferPointer<UInt8>, readable: Int) -> Timestamp? {
        if let (time, end) = shortUnixSeconds(b, from: 0, readable: readable), end == b.count { return time }
        return parseUnixSeconds(b)
    }

    /// A JSON number at `i` in `b` read as Unix seconds, and its end, when it has the commonest shape
    /// (`shortUnixSeconds`) and JSON's grammar (no leading zero) and nothing after it continues a
    /// number; `nil` otherwise, for the caller's general path.
    @inline(__always)
    static func jsonUnixSeconds(_ b: UnsafeBufferPointer<UInt8>, from i: Int, readable: Int) -> (Timestamp, end: Int)? {
        guard let (time, end) = shortUnixSeconds(b, from: i, readable: readable) else { return nil }
        if end < b.count, b[end] == UInt8(ascii: ".") || b[end] | 0x20 == UInt8(ascii: "e") || b[end] &- UInt8(ascii: "0") < 10 {
            return nil
        }
        return (time, end)
    }

    /// Seconds `[0-9]{1,11}` (no leading zero), then perhaps `.` and `[0-9]{1,8}`, at `i` in `b`: the
    /// time and where the digits end (a caller checks what follows). Two word loads for the seconds
    /// and one for the fraction (`DecimalNumber.digitCount`, `.swar`); `nil` when fewer than 32 bytes
    /// are readable from `i` or the digits have another shape.
    @inline(__always)
    private static func shortUnixSeconds(_ b: UnsafeBufferPointer<UInt8>, from i: Int, readable: Int) -> (Timestamp, end: Int)? {
        guard let base = b.baseAddress.map({ $0 + i }), i + 32 <= readable else { return nil }
        let count = b.count - i
        let first = ByteWord.load(base), firstDigits = DecimalNumber.digitCount(first)
        let second = ByteWord.load(base + 8)
        let digits = min(firstDigits < 8 ? firstDigits : 8 + DecimalNumber.digitCount(second), count)
        // (Leading zeros, "01", are outside JSON's grammar: the full reader refuses them.)
        guard digits > 0, digits <= 11, digits == 1 || base[0] != UInt8(ascii: "0") else { return nil }
        let whole = digits <= 8 ? DecimalNumber.swar(first, digits)
            : DecimalNumber.swar(first, 8) &* DecimalNumber.powersOfTen[digits - 8] &+ DecimalNumber.swar(second, digits - 8)
        var nanos: UInt64 = 0, end = digits
        if digits < count, base[digits] == UInt8(ascii: ".") {
            let fraction = ByteWord.load(base + digits + 1)
            let fractionDigits = min(DecimalNumber.digitCount(fraction), count - digits - 1)
            guard fractionDigits > 0 else { return nil }
            nanos = DecimalNumber.swar(fraction, fractionDigits) &* DecimalNumber.powersOfTen[9 - fractionDigits]
            end = digits + 1 + fractionDigits
        }
        let (seconds, overflow) = Int64(whole).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, seconds <= Int64.max - Int64(nanos) else { return nil }
        return (Timestamp(nanosecondsSinceEpoch: seconds + Int64(nanos)), i + end)
    }

    /// Unix seconds as a number written as JSON writes one (`1772352000`, `1772352000.25`,
    /// `1.7723520005E9`), exact to the nanosecond; nil if it is not one (`+1`, `.5`, `1.`, `01`) or
    /// is beyond 64-bit nanoseconds. CSV cells are held to the same grammar, so that a recording
    /// reads the same in either format.
    public static func parseUnixSeconds(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        // (The grammar checked here, the scan below only finds the parts.)
        guard DecimalNumber.isJSONNumber(b) else { return nil }
        func isDigit(_ k: Int) -> Bool { k < b.count && b[k] &- UInt8(ascii: "0") < 10 }
        var i = 0
        let negative = b[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        // The digits as written, whole then fraction.
        let wholeStart = i
        while isDigit(i) { i += 1 }
        let wholeDigits = i - wholeStart
        var fractionStart = i, fractionDigits = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            fractionStart = i
            while isDigit(i) { i += 1 }
            fractionDigits = i - fractionStart
        }
        var exponent = 0
        if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            let negativeExponent = i < b.count && b[i] == UInt8(ascii: "-")
            if negativeExponent || (i < b.count && b[i] == UInt8(ascii: "+")) { i += 1 }
            while isDigit(i) {
                exponent = min(exponent * 10 + Int(b[i] - UInt8(ascii: "0")), 1_000_000)  // (far past any range)
                i += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        // The nanoseconds are the digits that stand before the ninth place after the point (the
        // point moved by the exponent), read as one integer; those after it are cut off.
        let count = wholeDigits + fractionDigits
        let kept = wholeDigits + exponent + 9
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)  // (-2⁶³ has no positive twin)
        var magnitude: UInt64 = 0
        var k = 0
        while k < kept {
            if k >= count && magnitude == 0 { break }  // zeros from here on
            let digit = k < count ? UInt64(b[k < wholeDigits ? wholeStart + k : fractionStart + k - wholeDigits] - UInt8(ascii: "0")) : 0
            let (tens, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = tens.addingReportingOverflow(digit)
            guard !overflow, !overflow2, sum <= limit else { return nil }  // beyond about 2262
            magnitude = sum
            k += 1
        }
        return Timestamp(nanosecondsSinceEpoch: negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude))
    }

    /// `2026-03-01T08:00:05Z`, or with the fraction's significant digits (`…05.25Z`) when not whole.
    public static func format(_ t: Timestamp) -> String {
        var bytes: [UInt8] = []
        ByteWriter.append(to: &bytes, capacity: longest) { write(t, to: &$0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Most bytes `format` writes, with room to spare: 30 (a 64-bit nanosecond time falls in the years
    /// 1677–2262, and a fraction has at most nine digits).
    static let longest = 48

    /// Writes `format(t)`'s bytes (the writers' form: no `String` on the way); at most `longest`.
    static func write(_ t: Timestamp, to w: inout ByteWriter) {
        let ns = t.nanosecondsSinceEpoch
        var seconds = ns / 1_000_000_000
        var fraction = ns % 1_000_000_000
        if fraction < 0 {
            fraction += 1_000_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(Int(days))
        w.writeDigits(year, count: 4)  // (64-bit nanoseconds span the years 1677–2262)
        w.write(UInt8(ascii: "-"))
        w.writeDigits(month, count: 2)
        w.write(UInt8(ascii: "-"))
        w.writeDigits(day, count: 2)
        w.write(UInt8(ascii: "T"))
        w.writeDigits(Int(secondOfDay / 3600), count: 2)
        w.write(UInt8(ascii: ":"))
        w.writeDigits(Int(secondOfDay / 60 % 60), count: 2)
        w.write(UInt8(ascii: ":"))
        w.writeDigits(Int(secondOfDay % 60), count: 2)
        if fraction != 0 {
            w.write(UInt8(ascii: "."))
            var digits = 9, f = Int(fraction)
            while f % 10 == 0 { f /= 10; digits -= 1 }
            w.writeDecimal(f, width: digits)
        }
        w.write(UInt8(ascii: "Z"))
    }

    private static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
