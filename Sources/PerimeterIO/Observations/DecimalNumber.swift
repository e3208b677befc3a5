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
    /// Whether `n` is exactly one number in RFC 8259's grammar:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ n: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < n.count, n[i] >= UInt8(ascii: "0"), n[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        if i < n.count, n[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n.count else { return false }
        if n[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < n.count, n[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < n.count, n[i] == UInt8(ascii: "e") || n[i] == UInt8(ascii: "E") {
            i += 1
            if i < n.count, n[i] == UInt8(ascii: "+") || n[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == n.count
    }

    /// The value of `bytes` if they are exactly one JSON number with a finite value, else `nil`.
    ///
    /// One pass checks the grammar and accumulates the digits, which is exact for numbers of at most
    /// 19 digits — every coordinate and accuracy a recording holds (leading zeros included). Longer
    /// ones take their first 19 significant digits again (`significantDigits`) and note the rest.
    @inline(__always)
    static func parse(_ n: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let (value, end) = parse(n, from: 0, readable: n.count), end == n.count else { return nil }
        return value
    }

    /// The JSON number that starts at `start` in `n` and its end: it ends at the first byte its
    /// grammar cannot continue with, which the caller checks is a delimiter. `nil` if no number
    /// starts there, or one breaks off (`1.`, `2e`), or its value is not finite.
    ///
    /// - Parameter readable: how many bytes from `n`'s start may be loaded (at least `n.count`): the
    ///   block a line lies in, so that a number near the line's end can still be read a word at a
    ///   time (`parseShort`). Bytes past `n.count` are loaded but never change the answer.
    @inline(__always)
    static func parse(_ n: UnsafeBufferPointer<UInt8>, from start: Int, readable: Int) -> (value: Double, end: Int)? {
        if let short = parseShort(n, from: start, readable: readable) { return short }
        return parse(n, from: start)
    }

    /// Bytes `parseShort` reads past a number's sign: the integer's word, the point, the fraction's
    /// two words and the byte after them.
    static let shortReach = 8 + 1 + 16 + 1

    /// The commonest numbers of a recording — `-?[0-9]{1,7}(\.[0-9]{1,16})?`, not followed by an
    /// exponent, at most 19 digits — in a few word operations: one load for the integer's digits, two
    /// for the fraction's, each run converted at once (`swar`), then `exact`. (Clinger's fast path, one
    /// division where the significand fits 53 bits, measured no faster: whether it fits is a coin
    /// toss for 16- and 17-digit coordinates, and the branch mispredicts.) `nil` for anything
    /// else — including what the grammar refuses — which `parse(_:from:)` then reads; it answers
    /// exactly as that would where it answers (a test compares them, and both with `strtod`).
    @inline(__always)
    static func parseShort(_ n: UnsafeBufferPointer<UInt8>, from start: Int, readable: Int) -> (value: Double, end: Int)? {
        guard let base = n.baseAddress, start < n.count else { return nil }
        var i = start
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i + shortReach <= readable else { return nil }
        let integerWord = ByteWord.load(base + i)
        // (Digits past the number's buffer do not count: it ends there.)
        let integerDigits = min(digitCount(integerWord), n.count - i)
        // Leading zeros ("01") are the full parser's to refuse.
        guard integerDigits > 0, integerDigits < 8, integerDigits == 1 || base[i] != UInt8(ascii: "0") else { return nil }
        let integer = swar(integerWord, integerDigits)
        var j = i + integerDigits
        guard j < n.count, base[j] == UInt8(ascii: ".") else {
            if j < n.count, base[j] | 0x20 == UInt8(ascii: "e") { return nil }
            let value = Double(integer)  // (below 10⁷: exact)
            return (negative ? -value : value, j)
        }
        j += 1
        let first = ByteWord.load(base + j), second = ByteWord.load(base + j + 8)
        let firstDigits = digitCount(first)
        var fractionDigits = min(firstDigits < 8 ? firstDigits : 8 + digitCount(second), n.count - j)
        // Sixteen digits end the fraction only if no digit follows them.
        if fractionDigits == 16, j + 16 < n.count, base[j + 16] &- UInt8(ascii: "0") < 10 { fractionDigits = 17 }
        guard fractionDigits > 0, fractionDigits <= 16, integerDigits + fractionDigits <= 19 else { return nil }
        let end = j + fractionDigits
        if end < n.count, base[end] | 0x20 == UInt8(ascii: "e") { return nil }
        let fraction = fractionDigits <= 8 ? swar(first, fractionDigits)
            : swar(first, 8) &* powersOfTen[fractionDigits - 8] &+ swar(second, fractionDigits - 8)
        let significand = integer &* powersOfTen[fractionDigits] &+ fraction
        if significand == 0 { return (negative ? -0.0 : 0.0, end) }
        guard let value = exact(significand, -fractionDigits) else { return nil }
        return (negative ? -value : value, end)
    }

    /// How many of a word's bytes, from the first, are ASCII digits (0 ... 8). A byte `b` is flagged
    /// when `b + 0x46` or `b − 0x30` has its top bit set, which is exactly when it is not a digit.
    /// Carries and borrows run only from a byte into the next one up, and digits cause none, so the
    /// first flagged byte — the only one that counts — is flagged right.
    @inline(__always)
    static func digitCount(_ word: UInt64) -> Int {
        let flagged = ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080
        return flagged.trailingZeroBitCount &>> 3
    }

    /// The value of a word's first `count` bytes (1 ... 8), which are digits: moved to the top of the
    /// word (the zeros below them are leading zeros), then the usual SWAR conversion — pairs, fours,
    /// the eight.
    @inline(__always)
    static func swar(_ word: UInt64, _ count: Int) -> UInt64 {
        var v = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64(64 &- 8 &* count)
        v = (v &* 10 &+ (v &>> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v &>> 16)) & 0x0000_FFFF_0000_FFFF
        return (v &* 10_000 &+ (v &>> 32)) & 0x0000_0000_FFFF_FFFF
    }

    /// 10^k for k in 0 ... 16.
    static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000,
        100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
        10_000_000_000_000_000,
    ]
    /// `parse(_:from:readable:)` without the short path: the full grammar, any length.
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
        let chunk = ByteWord.load(base + i)
        // Every byte in 0x30 ... 0x39: high nibble 3, and still 3 after adding 6.
        guard chunk & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
              (chunk &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030 else { return nil }
        return swar(chunk, 8)
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
    /// the pair's index), as fast_float's `table_generation.py` defines them (a test checks each
    /// against that definition).
    ///
    /// For q ≥ 0, 5^q < 2⁶⁴ shifted up: exact. For q < 0, ⌊2^b / 5^|q|⌋ + 1 with b = z + 127 and z
    /// the least with 2^z ≥ 5^|q| — a slight overestimate, which the without-fallback proof assumes.
    /// Written out rather than computed at start-up: a table of literals is laid out by the compiler,
    /// so reading it needs no lazy-initialisation check (a `swift_once` call per number before).
    static let powersOfFive: [UInt64] = [
        0x9E74D1B791E07E48, 0x775EA264CF55347E,  // 5^-27
        0xC612062576589DDA, 0x95364AFE032A819E,  // 5^-26
        0xF79687AED3EEC551, 0x3A83DDBD83F52205,  // 5^-25
        0x9ABE14CD44753B52, 0xC4926A9672793543,  // 5^-24
        0xC16D9A0095928A27, 0x75B7053C0F178294,  // 5^-23
        0xF1C90080BAF72CB1, 0x5324C68B12DD6339,  // 5^-22
        0x971DA05074DA7BEE, 0xD3F6FC16EBCA5E04,  // 5^-21
        0xBCE5086492111AEA, 0x88F4BB1CA6BCF585,  // 5^-20
        0xEC1E4A7DB69561A5, 0x2B31E9E3D06C32E6,  // 5^-19
        0x9392EE8E921D5D07, 0x3AFF322E62439FD0,  // 5^-18
        0xB877AA3236A4B449, 0x09BEFEB9FAD487C3,  // 5^-17
        0xE69594BEC44DE15B, 0x4C2EBE687989A9B4,  // 5^-16
        0x901D7CF73AB0ACD9, 0x0F9D37014BF60A11,  // 5^-15
        0xB424DC35095CD80F, 0x538484C19EF38C95,  // 5^-14
        0xE12E13424BB40E13, 0x2865A5F206B06FBA,  // 5^-13
        0x8CBCCC096F5088CB, 0xF93F87B7442E45D4,  // 5^-12
        0xAFEBFF0BCB24AAFE, 0xF78F69A51539D749,  // 5^-11
        0xDBE6FECEBDEDD5BE, 0xB573440E5A884D1C,  // 5^-10
        0x89705F4136B4A597, 0x31680A88F8953031,  // 5^-9
        0xABCC77118461CEFC, 0xFDC20D2B36BA7C3E,  // 5^-8
        0xD6BF94D5E57A42BC, 0x3D32907604691B4D,  // 5^-7
        0x8637BD05AF6C69B5, 0xA63F9A49C2C1B110,  // 5^-6
        0xA7C5AC471B478423, 0x0FCF80DC33721D54,  // 5^-5
        0xD1B71758E219652B, 0xD3C36113404EA4A9,  // 5^-4
        0x83126E978D4FDF3B, 0x645A1CAC083126EA,  // 5^-3
        0xA3D70A3D70A3D70A, 0x3D70A3D70A3D70A4,  // 5^-2
        0xCCCCCCCCCCCCCCCC, 0xCCCCCCCCCCCCCCCD,  // 5^-1
        0x8000000000000000, 0x0000000000000000,  // 5^0
        0xA000000000000000, 0x0000000000000000,  // 5^1
        0xC800000000000000, 0x0000000000000000,  // 5^2
        0xFA00000000000000, 0x0000000000000000,  // 5^3
        0x9C40000000000000, 0x0000000000000000,  // 5^4
        0xC350000000000000, 0x0000000000000000,  // 5^5
        0xF424000000000000, 0x0000000000000000,  // 5^6
        0x9896800000000000, 0x0000000000000000,  // 5^7
        0xBEBC200000000000, 0x0000000000000000,  // 5^8
        0xEE6B280000000000, 0x0000000000000000,  // 5^9
        0x9502F90000000000, 0x0000000000000000,  // 5^10
        0xBA43B74000000000, 0x0000000000000000,  // 5^11
        0xE8D4A51000000000, 0x0000000000000000,  // 5^12
        0x9184E72A00000000, 0x0000000000000000,  // 5^13
        0xB5E620F480000000, 0x0000000000000000,  // 5^14
        0xE35FA931A0000000, 0x0000000000000000,  // 5^15
        0x8E1BC9BF04000000, 0x0000000000000000,  // 5^16
        0xB1A2BC2EC5000000, 0x0000000000000000,  // 5^17
        0xDE0B6B3A76400000, 0x0000000000000000,  // 5^18
        0x8AC7230489E80000, 0x0000000000000000,  // 5^19
        0xAD78EBC5AC620000, 0x0000000000000000,  // 5^20
        0xD8D726B7177A8000, 0x0000000000000000,  // 5^21
        0x878678326EAC9000, 0x0000000000000000,  // 5^22
        0xA968163F0A57B400, 0x0000000000000000,  // 5^23
        0xD3C21BCECCEDA100, 0x0000000000000000,  // 5^24
        0x84595161401484A0, 0x0000000000000000,  // 5^25
        0xA56FA5B99019A5C8, 0x0000000000000000,  // 5^26
        0xCECB8F27F4200F3A, 0x0000000000000000,  // 5^27
    ]

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
