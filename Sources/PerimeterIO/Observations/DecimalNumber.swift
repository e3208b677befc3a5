#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a JSON number (RFC 8259's grammar) straight from bytes into the correctly rounded `Double` —
/// the value `strtod` and `Double(String)` give — without their arbitrary-precision path for the
/// numbers records hold.
///
/// Up to 19 significant digits fit a `UInt64` exactly; with a decimal exponent of at most 27 either
/// way, the Eisel–Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per Second", 2021, as in
/// fast_float's `compute_float`) rounds the value with one or two 64×64-bit integer products and no
/// floating-point arithmetic, so the same code gives the same bits on every architecture. Mushtak and
/// Lemire ("Fast Number Parsing Without Fallback", 2023) proved the 128-bit product always decides the
/// rounding for such significands, and exact halfway cases are caught apart; everything else takes
/// `strtod`.
enum DecimalNumber {
    /// The value of `bytes` if they are exactly one JSON number with a finite value, else `nil`.
    ///
    /// One pass checks the grammar and accumulates the digits, which is exact for numbers of at most
    /// 19 digits — every coordinate and accuracy a recording holds (leading zeros included). Longer
    /// ones take their first 19 significant digits again (`significantDigits`) and note the rest.
    @inline(__always)
    static func parse(_ n: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let (value, end) = parse(n, from: 0), end == n.count else { return nil }
        return value
    }

    /// The JSON number that starts at `start` in `n` and its end: it ends at the first byte its
    /// grammar cannot continue with, which the caller checks is a delimiter. `nil` if no number
    /// starts there, or one breaks off (`1.`, `2e`), or its value is not finite.
    @inline(__always)
    static func parse(_ n: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Double, end: Int)? {
        var i = start
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
        var dropped = false
        if integer.count + fraction.count <= 19 {
            exponent -= fraction.count
        } else {
            (significand, exponent, dropped) = significantDigits(n, integer, fraction, exponent: exponent)
        }
        if significand == 0 && !dropped { return (negative ? -0.0 : 0.0, i) }
        if !dropped, let value = exact(significand, exponent) { return (negative ? -value : value, i) }
        return viaStrtod(UnsafeBufferPointer(rebasing: n[start..<i])).map { ($0, i) }
    }

    /// The value of the eight bytes at `i` when all eight are decimal digits (one load, three
    /// multiplications — the usual SWAR conversion), else `nil`.
    @inline(__always)
    static func eightDigits(_ n: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt64? {
        guard i + 8 <= n.count, let base = n.baseAddress else { return nil }
        let chunk = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        // Every byte in 0x30 ... 0x39: high nibble 3, and still 3 after adding 6.
        guard chunk & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
              (chunk &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else { return nil }
        // The first digit is the lowest byte: combine pairs, then fours, then the eight.
        var v = chunk & 0x0F0F_0F0F_0F0F_0F0F
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        v = (v &* 10_000 &+ (v >> 32)) & 0x0000_0000_FFFF_FFFF
        return v
    }

    /// `eightDigits(_:at:)` for four bytes.
    @inline(__always)
    static func fourDigits(_ n: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt64? {
        guard i + 4 <= n.count, let base = n.baseAddress else { return nil }
        let chunk = UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self))
        guard chunk & 0xF0F0_F0F0 == 0x3030_3030, (chunk &+ 0x0606_0606) & 0xF0F0_F0F0 == 0x3030_3030 else { return nil }
        var v = chunk & 0x0F0F_0F0F
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF
        return UInt64(v)
    }

    /// Appends the run of digits at `i` to `significand` (wrapping past 19 digits, which the caller
    /// then reads again), moving `i` past them: eight at a time while eight digits follow, then four,
    /// then one by one.
    @inline(__always)
    private static func accumulateDigits(_ n: UnsafeBufferPointer<UInt8>, from i: inout Int, into significand: inout UInt64) {
        while let v = eightDigits(n, at: i) {
            significand = significand &* 100_000_000 &+ v
            i += 8
        }
        if let v = fourDigits(n, at: i) {
            significand = significand &* 10_000 &+ v
            i += 4
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

    /// `significand × 10^exponent` correctly rounded, for `exponent` in -27 ... 27 (else `nil`).
    ///
    /// The significand, shifted so its top bit is set, times the 128-bit power of five gives the
    /// value's leading bits; the power of two is counted apart. The product's high word holds the 53
    /// bits, a rounding bit, and 9 or 10 below: only when its lowest 9 are all ones can the truncated
    /// low half carry into them, so only then is the power's low word multiplied in too. Rounding is
    /// then half up, except exactly halfway (nothing but zeros dropped and an exact product, possible
    /// only for exponents -4 ... 23), which rounds to even.
    @inline(__always)
    private static func exact(_ significand: UInt64, _ exponent: Int) -> Double? {
        guard exponent >= -27 && exponent <= 27, significand != 0 else { return nil }
        let leadingZeros = significand.leadingZeroBitCount
        let w = significand << leadingZeros
        let index = 2 * (exponent + 27)
        var product = w.multipliedFullWidth(by: powersOfFive[index])
        // Below the 52 + 3 bits that matter (the implicit bit, the rounding bit, and one for a product
        // whose top bit is clear).
        let precisionMask = UInt64.max >> 55
        if product.high & precisionMask == precisionMask {
            let second = w.multipliedFullWidth(by: powersOfFive[index + 1]).high
            product.low &+= second
            if second > product.low { product.high &+= 1 }
        }
        let upperBit = Int(product.high >> 63)
        let shift = upperBit + 64 - 52 - 3
        var mantissa = product.high >> shift
        // ⌊log₂ 10^q⌋ + 63 in fixed point (exact for |q| < 350), then the exponent's bias, 1023.
        var power2 = ((152_170 + 65_536) * exponent) >> 16 + 63 + upperBit - leadingZeros + 1023
        // Subnormal: not reachable for |q| ≤ 27, but left to strtod rather than assumed.
        guard power2 > 0 else { return nil }
        // Exactly halfway above an even 53-bit mantissa: clear the rounding bit so it stays even.
        if product.low <= 1, exponent >= -4, exponent <= 23, mantissa & 3 == 1, mantissa << shift == product.high {
            mantissa &= ~1
        }
        mantissa += mantissa & 1
        mantissa >>= 1
        // Rounding up carried into a 54th bit: the next binade.
        if mantissa >= 2 << 52 {
            mantissa = 1 << 52
            power2 += 1
        }
        guard power2 < 0x7FF else { return nil }
        return Double(bitPattern: UInt64(power2) << 52 | mantissa & ~(1 << 52))
    }

    /// 5^q for q in -27 ... 27 as 128-bit numbers whose top bit is set, high word first (q + 27 is
    /// the pair's index), computed as fast_float's `table_generation.py` defines them.
    ///
    /// For q ≥ 0, 5^q < 2⁶⁴ shifted up: exact. For q < 0, ⌊2^b / 5^|q|⌋ + 1 with b = z + 127 and z
    /// the least with 2^z ≥ 5^|q| — a slight overestimate, which the without-fallback proof assumes.
    static let powersOfFive: [UInt64] = {
        var table: [UInt64] = []
        table.reserveCapacity(2 * 55)
        for q in -27...27 {
            var power: UInt64 = 1
            for _ in 0..<abs(q) { power *= 5 }
            if q >= 0 {
                table += [power << power.leadingZeroBitCount, 0]
                continue
            }
            // 5^|q| is not a power of two, so z is its bit length, and 2^b is 2^(z - 1) in the third
            // 64-bit word of the dividend, below 5^|q|: the quotient fits 128 bits.
            let z = UInt64.bitWidth - power.leadingZeroBitCount
            let (high, r) = power.dividingFullWidth((high: 1 << (z - 1), low: 0))
            let (low, _) = power.dividingFullWidth((high: r, low: 0))
            let (plusOne, carry) = low.addingReportingOverflow(1)
            table += [high &+ (carry ? 1 : 0), plusOne]
        }
        return table
    }()

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
