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
    /// One pass checks the grammar and accumulates the digits, which is exact for numbers of at most
    /// 19 digits — every coordinate and accuracy a recording holds (leading zeros included). Longer
    /// ones take their first 19 significant digits again (`significantDigits`) and note the rest.
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
            accumulateDigits(n, from: &i, into: &significand)
            guard i > integerStart else { return nil }
        }
        let integer = integerStart..<i
        var fraction = i..<i
        if i < n.count, n[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            accumulateDigits(n, from: &i, into: &significand)
            guard i > fractionStart else { return nil }
            fraction = fractionStart..<i
        }
        var exponent = 0
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
            exponent = sign * value
        }
        guard i == n.count else { return nil }
        var dropped = false
        if integer.count + fraction.count <= 19 {
            exponent -= fraction.count
        } else {
            (significand, exponent, dropped) = significantDigits(n, integer, fraction, exponent: exponent)
        }
        if significand == 0 && !dropped { return negative ? -0.0 : 0.0 }
        if !dropped, let value = exact(significand, exponent) { return negative ? -value : value }
        return viaStrtod(n)
    }

    /// Appends the run of digits at `i` to `significand` (wrapping past 19 digits, which the caller
    /// then reads again), moving `i` past them: eight at a time while eight bytes remain (one load,
    /// three multiplications — the usual SWAR conversion), then one by one.
    @inline(__always)
    private static func accumulateDigits(_ n: UnsafeBufferPointer<UInt8>, from i: inout Int, into significand: inout UInt64) {
        if let base = n.baseAddress {
            while i + 8 <= n.count {
                let chunk = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                // Every byte in 0x30 ... 0x39: high nibble 3, and still 3 after adding 6.
                guard chunk & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
                      (chunk &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else { break }
                // The first digit is the lowest byte: combine pairs, then fours, then the eight.
                var v = chunk & 0x0F0F_0F0F_0F0F_0F0F
                v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
                v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
                v = (v &* 10_000 &+ (v >> 32)) & 0x0000_0000_FFFF_FFFF
                significand = significand &* 100_000_000 &+ v
                i += 8
            }
        }
        while i < n.count, n[i] &- UInt8(ascii: "0") < 10 {
            significand = significand &* 10 &+ UInt64(n[i] &- UInt8(ascii: "0"))
            i += 1
        }
    }

    /// The first 19 significant digits of `integer` and `fraction` (ranges of digits in `n`), the
    /// decimal exponent of the last one taken, and whether a non-zero digit was left out.
    private static func significantDigits(_ n: UnsafeBufferPointer<UInt8>, _ integer: Range<Int>, _ fraction: Range<Int>,
                                          exponent start: Int) -> (UInt64, Int, Bool) {
        var significand: UInt64 = 0, digits = 0, exponent = start, dropped = false
        for (range, isFraction) in [(integer, false), (fraction, true)] {
            for k in range {
                let d = n[k] &- UInt8(ascii: "0")
                if digits < 19 {
                    if d != 0 || digits > 0 {
                        significand = significand &* 10 &+ UInt64(d)
                        digits += 1
                    }
                    if isFraction { exponent -= 1 }
                } else {
                    if !isFraction { exponent += 1 }
                    if d != 0 { dropped = true }
                }
            }
        }
        return (significand, exponent, dropped)
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
