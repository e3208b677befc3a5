#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a JSON number (RFC 8259's grammar) straight from bytes into the correctly rounded `Double` —
/// the value `strtod` and `Double(String)` give — without their arbitrary-precision path for the
/// numbers records hold.
///
/// Up to 19 significant digits fit a `UInt64` exactly; with a decimal exponent of at most 27, the
/// power of ten is exact in `Float80` (5²⁷ < 2⁶⁴), so one `Float80` division or multiplication rounds
/// the exact value once, to 64 bits. Rounding that again to 53 bits can differ from rounding the exact
/// value only when the 64-bit result lies exactly halfway between two doubles (the exact value is
/// within half a 64-bit unit of it, and every 53-bit halfway point is a 64-bit number); those, and
/// everything else, take `strtod`. Without `Float80` the classic exact case remains: at most 2⁵³ and
/// an exponent of at most 22, one `Double` operation.
enum DecimalNumber {
    /// The value of `bytes` if they are exactly one JSON number with a finite value, else `nil`.
    ///
    /// Numbers of at most 19 digits — every coordinate and accuracy a recording holds — are read in
    /// one tight pass (leading zeros included, the significand cannot overflow); longer ones take
    /// `parseLong`, which keeps the first 19 significant digits and notes the rest.
    @inline(__always)
    static func parse(_ n: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = i < n.count && n[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < n.count else { return nil }
        var significand: UInt64 = 0
        let integerStart = i
        if n[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
                significand = significand &* 10 &+ UInt64(n[i] &- UInt8(ascii: "0"))
                i += 1
            }
            guard i > integerStart else { return nil }
        }
        var digits = i - integerStart, exponent = 0
        if i < n.count, n[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
                significand = significand &* 10 &+ UInt64(n[i] &- UInt8(ascii: "0"))
                i += 1
            }
            guard i > fractionStart else { return nil }
            digits += i - fractionStart
            exponent = fractionStart - i
        }
        guard digits <= 19 else { return parseLong(n) }
        if i < n.count {
            guard n[i] == UInt8(ascii: "e") || n[i] == UInt8(ascii: "E") else { return nil }
            return parseLong(n)
        }
        if significand == 0 { return negative ? -0.0 : 0.0 }
        if let value = exact(significand, exponent) { return negative ? -value : value }
        return viaStrtod(n)
    }

    /// `parse(_:)` for any number: more than 19 digits, or an exponent.
    static func parseLong(_ n: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = i < n.count && n[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < n.count else { return nil }
        var significand: UInt64 = 0
        var digits = 0  // significant digits taken into `significand`
        var dropped = false  // a non-zero digit beyond the 19th
        var exponent = 0  // decimal exponent of `significand`'s last digit
        @inline(__always) func take(_ d: UInt8, fraction: Bool) {
            if digits < 19 {
                if d != 0 || digits > 0 {
                    significand = significand &* 10 &+ UInt64(d)
                    digits += 1
                }
                if fraction { exponent -= 1 }
            } else {
                if !fraction { exponent += 1 }
                if d != 0 { dropped = true }
            }
        }
        if n[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            let start = i
            while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
                take(n[i] &- UInt8(ascii: "0"), fraction: false)
                i += 1
            }
            guard i > start else { return nil }
        }
        if i < n.count, n[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
                take(n[i] &- UInt8(ascii: "0"), fraction: true)
                i += 1
            }
            guard i > start else { return nil }
        }
        if i < n.count, n[i] == UInt8(ascii: "e") || n[i] == UInt8(ascii: "E") {
            i += 1
            var sign = 1
            if i < n.count, n[i] == UInt8(ascii: "+") || n[i] == UInt8(ascii: "-") {
                if n[i] == UInt8(ascii: "-") { sign = -1 }
                i += 1
            }
            let start = i
            var value = 0
            while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
                if value < 100_000 { value = value * 10 + Int(n[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            guard i > start else { return nil }
            exponent += sign * value
        }
        guard i == n.count else { return nil }
        if significand == 0 && !dropped { return negative ? -0.0 : 0.0 }
        if !dropped, let value = exact(significand, exponent) { return negative ? -value : value }
        return viaStrtod(n)
    }

    /// `significand × 10^exponent` correctly rounded, when the fast paths can be sure of it.
    @inline(__always)
    private static func exact(_ significand: UInt64, _ exponent: Int) -> Double? {
        #if arch(x86_64) && !os(Windows)
        guard exponent >= -27 && exponent <= 27 else { return nil }
        let x = Float80(significand)
        let q = exponent < 0 ? x / powersOfTen80[-exponent] : x * powersOfTen80[exponent]
        // Exactly halfway between two doubles after the first rounding: let strtod decide.
        guard q.significandBitPattern & 0x7FF != 0x400 else { return nil }
        let value = Double(q)
        guard value.isNormal else { return nil }
        return value
        #else
        guard significand <= 1 << 53, exponent >= -22 && exponent <= 22 else { return nil }
        let x = Double(significand)
        return exponent < 0 ? x / powersOfTen[-exponent] : x * powersOfTen[exponent]
        #endif
    }

    #if arch(x86_64) && !os(Windows)
    private static let powersOfTen80: [Float80] = (0...27).map { k in (0..<k).reduce(Float80(1)) { p, _ in p * 10 } }
    #else
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { p, _ in p * 10 } }
    #endif

    /// `strtod` on a copy with a terminating NUL (the grammar was checked by the caller).
    private static func viaStrtod(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count < 1024 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer -> Double? in
            for k in 0..<bytes.count { buffer[k] = CChar(bitPattern: bytes[k]) }
            buffer[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + bytes.count, value.isFinite else { return nil }
            return value
        }
    }
}
