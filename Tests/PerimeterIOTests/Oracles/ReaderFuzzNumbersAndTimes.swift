#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `ReaderFuzzTests`' oracle for numbers and times: JSON's number grammar, exact decimal arithmetic
/// for Unix seconds, and an RFC 3339 reader written here.
extension ReaderFuzzTests {
    /// `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?` with JSON's rule against leading zeros: a JSON number.
    static func isJSONNumber(_ s: String) -> Bool {
        let b = Array(s.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let start = i
        guard digits() > 0 else { return false }
        if b[start] == UInt8(ascii: "0"), i - start > 1 { return false }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }

    enum Instant: Equatable {
        case ns(Int64)
        /// A leap second (`:60`): valid RFC 3339 that a count of nanoseconds cannot hold; read as the next second, if at all.
        case leap(Int64)
        case outOfRange
        case invalid
    }

    /// A decimal number of seconds (sign, digits either side of an optional point, an optional
    /// exponent) to nanoseconds exactly, digits past the nanosecond dropped.
    static func exactSeconds(_ s: String) -> Instant {
        let b = Array(s.utf8)
        var i = 0, negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { negative = b[i] == UInt8(ascii: "-"); i += 1 }
        var digits: [UInt8] = [], point = 0
        while i < b.count, (48...57).contains(b[i]) { digits.append(b[i] - 48); i += 1 }
        point = digits.count
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, (48...57).contains(b[i]) { digits.append(b[i] - 48); i += 1 }
        }
        guard !digits.isEmpty else { return .invalid }
        var exponent = 0
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var sign = 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { sign = b[i] == UInt8(ascii: "-") ? -1 : 1; i += 1 }
            let start = i
            while i < b.count, (48...57).contains(b[i]) { exponent = min(exponent * 10 + Int(b[i] - 48), 100_000); i += 1 }
            guard i > start else { return .invalid }
            exponent *= sign
        }
        guard i == b.count else { return .invalid }
        guard let firstNonZero = digits.firstIndex(where: { $0 != 0 }) else { return .ns(0) }
        digits.removeFirst(firstNonZero)
        point -= firstNonZero
        // The digits before the point once the value is in nanoseconds.
        let whole = point + exponent + 9
        guard whole > 0 else { return .ns(0) }
        guard whole <= 20 else { return .outOfRange }
        var magnitude: Int128 = 0
        for k in 0..<whole { magnitude = magnitude * 10 + Int128(k < digits.count ? digits[k] : 0) }
        let value = negative ? -magnitude : magnitude
        guard value >= Int128(Int64.min), value <= Int128(Int64.max) else { return .outOfRange }
        return .ns(Int64(value))
    }

    /// RFC 3339 §5.6 `date-time` (with its note's lowercase `t`/`z` and a space for `T`), to nanoseconds.
    static func rfc3339(_ s: String) -> Instant {
        let b = Array(s.utf8)
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var v = 0
            for k in i..<(i + count) {
                guard (48...57).contains(b[k]) else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += count
            return v
        }
        func expect(_ bytes: String) -> Bool {
            guard i < b.count, bytes.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("Tt "),
              let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2) else { return .invalid }
        var fraction: Int128 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var count = 0
            while i < b.count, (48...57).contains(b[i]) {
                if count < 9 { fraction = fraction * 10 + Int128(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return .invalid }
            for _ in min(count, 9)..<9 { fraction *= 10 }
        }
        var offset = 0
        if expect("Zz") {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh <= 23, om <= 59 else { return .invalid }
            offset = sign * (oh * 60 + om) * 60
        } else {
            return .invalid
        }
        guard i == b.count else { return .invalid }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= monthDays[month - 1], hour <= 23, minute <= 59, second <= 60 else {
            return .invalid
        }
        // Days since 0000-03-01 of the proleptic Gregorian calendar, by whole years and months.
        func days(_ y: Int, _ m: Int, _ d: Int) -> Int {
            let (yy, mm) = m >= 3 ? (y, m - 3) : (y - 1, m + 9)
            func floorDiv(_ a: Int, _ n: Int) -> Int { a >= 0 ? a / n : -((-a + n - 1) / n) }
            return 365 * yy + floorDiv(yy, 4) - floorDiv(yy, 100) + floorDiv(yy, 400) + (153 * mm + 2) / 5 + d - 1
        }
        let seconds = Int128(days(year, month, day) - days(1970, 1, 1)) * 86_400 + Int128(hour * 3600 + minute * 60 + second - offset)
        let ns = seconds * 1_000_000_000 + fraction
        guard ns >= Int128(Int64.min), ns <= Int128(Int64.max) else { return .outOfRange }
        return second == 60 ? .leap(Int64(ns)) : .ns(Int64(ns))
    }
}
