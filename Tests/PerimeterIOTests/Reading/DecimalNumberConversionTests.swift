#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PerimeterTestSupport
import Testing
@testable import PerimeterIO

/// `DecimalNumber`'s conversion of significand and decimal exponent (Eisel–Lemire for exponents
/// -27 ... 27, `strtod` elsewhere) against `strtod` itself, bit for bit: random digit strings in both
/// notations, exact halfway points between doubles, printed doubles, and the ends of the range.
@Suite struct DecimalNumberConversionTests {
    /// Compares `DecimalNumber.parse` with `strtod` on numbers written into one reused buffer (no
    /// `String` per number, so millions fit in a debug build's test time).
    struct Comparison: ~Copyable {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        var count = 0
        private(set) var checked = 0
        private(set) var mismatches = 0
        private(set) var examples: [String] = []

        deinit { buffer.deallocate() }

        mutating func append(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }

        mutating func append(_ bytes: [UInt8], _ from: Int, _ to: Int) {
            var k = from
            while k < to {
                buffer[count] = bytes[k]
                count += 1
                k += 1
            }
        }

        mutating func appendZeros(_ n: Int) {
            (buffer + count).initialize(repeating: UInt8(ascii: "0"), count: n)
            count += n
        }

        mutating func append(_ text: String) {
            for byte in text.utf8 { append(byte) }
        }

        /// Appends the decimal digits of `value` (`minimumDigits` of them at least, zeros in front).
        mutating func appendDigits(_ value: UInt64, minimumDigits: Int = 1) {
            var digits = 0, v = value
            repeat { digits += 1; v /= 10 } while v != 0
            digits = max(digits, minimumDigits)
            v = value
            count += digits
            var k = count
            while k > count - digits {
                k -= 1
                buffer[k] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
        }

        /// Compares the number in the buffer, then empties it.
        mutating func check() {
            let got = DecimalNumber.parse(UnsafeBufferPointer(start: buffer, count: count))
            buffer[count] = 0
            let expected = buffer.withMemoryRebound(to: CChar.self, capacity: count + 1) { strtod($0, nil) }
            checked += 1
            if got?.bitPattern != expected.bitPattern {
                mismatches += 1
                if examples.count < 8 {
                    let text = String(decoding: UnsafeBufferPointer(start: buffer, count: count), as: UTF8.self)
                    examples.append("\(text): \(got.map { "\($0)" } ?? "nil") vs \(expected)")
                }
            }
            count = 0
        }

        mutating func check(_ text: String) {
            append(text)
            check()
        }

        func expectNone(sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(checked > 0, sourceLocation: sourceLocation)
            #expect(mismatches == 0, "\(mismatches) of \(checked): \(examples)", sourceLocation: sourceLocation)
        }
    }

    static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { p, _ in p * 10 } }

    /// 1–19 significant digits with a decimal exponent in -30 ... 30, written plainly ("48.91905316183738",
    /// "0.000123", "123000") or in e-notation with the point anywhere ("4.891905316183738e1",
    /// "489190.5316183738E-04"), either sign. (Plain loops and one generator call per choice: a debug
    /// build's generic `random(in:)` and `stride` would take most of the time.)
    @Test func randomDigitStringsInBothNotations() {
        var rng = SplitMix64(seed: 0xD0_5E_C1_A1)
        /// A uniform choice in 0 ..< n.
        func below(_ n: UInt64) -> Int { Int(truncatingIfNeeded: rng.next().multipliedFullWidth(by: n).high) }
        var c = Comparison()
        var digits = [UInt8](repeating: 0, count: 19)
        for _ in 0..<Self.randomCount {
            let n = 1 + below(19)
            let first = Self.powersOfTen[n - 1]
            var w = first + rng.next().multipliedFullWidth(by: Self.powersOfTen[n] - first).high
            var k = n
            while k > 0 {
                k -= 1
                digits[k] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: w % 10)
                w /= 10
            }
            let q = below(61) - 30
            let bits = rng.next()
            if bits & 3 == 0 { c.append(UInt8(ascii: "-")) }
            if bits & 4 == 0 {
                // Plain: value = digits × 10^q.
                if q >= 0 {
                    c.append(digits, 0, n)
                    c.appendZeros(q)
                } else if -q < n {
                    c.append(digits, 0, n + q)
                    c.append(UInt8(ascii: "."))
                    c.append(digits, n + q, n)
                } else {
                    c.append(UInt8(ascii: "0"))
                    c.append(UInt8(ascii: "."))
                    c.appendZeros(-q - n)
                    c.append(digits, 0, n)
                }
            } else {
                // E-notation: k digits before the point, so the written exponent is q + n - k.
                let k = 1 + below(UInt64(n))
                c.append(digits, 0, k)
                if k < n {
                    c.append(UInt8(ascii: "."))
                    c.append(digits, k, n)
                }
                c.append(bits & 8 == 0 ? UInt8(ascii: "e") : UInt8(ascii: "E"))
                let e = q + n - k
                if e < 0 { c.append(UInt8(ascii: "-")) } else if bits & 16 == 0 { c.append(UInt8(ascii: "+")) }
                c.appendDigits(UInt64(abs(e)), minimumDigits: 1 + Int((bits >> 5) % 3))
            }
            c.check()
        }
        c.expectNone()
    }

    /// About a second in a debug build, most of it the unoptimised parser (20 million agreed too,
    /// tried once by hand).
    static let randomCount = 600_000

    /// Decimals of at most 19 digits exactly halfway between two adjacent doubles, at every exponent
    /// where they exist (-4 ... 23, the round-to-even case), and their neighbours one unit of the last
    /// digit either side, which are not ties; then the classic hard cases (strtod's among them).
    @Test func halfwayPointsRoundToEven() {
        var c = Comparison()
        for text in ["9007199254740993", "9007199254740995e0", "9007199254740993.0", "9007199254740995",
                     "18014398509481987", "1e23", "100000000000000000000000", "8.98846567431158e307",
                     "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308",
                     "4.9406564584124654e-324", "1.7976931348623157e308", "0.5", "2.5", "4503599627370497.5",
                     "4503599627370496.5"] {
            c.check(text)
            c.check("-" + text)
        }
        var rng = SplitMix64(seed: 0x4A1F_4A1F)
        let limit: UInt64 = 9_999_999_999_999_999_999
        var tried = 0
        for q in -4...23 {
            let five = (0..<abs(q)).reduce(UInt64(1)) { p, _ in p * 5 }
            for _ in 0..<1_500 {
                // An odd 54-bit n makes n × 2^s halfway between (n ∓ 1) × 2^s, both 53-bit doubles.
                // For q ≥ 0, n = k × 5^q and w = k × 2^j; for q < 0, w = n × 5^|q| × 2^j.
                var w: UInt64
                if q >= 0 {
                    let low = ((1 << 53) + five - 1) / five, high = ((1 << 54) - 1) / five
                    guard low <= high else { break }
                    w = UInt64.random(in: low...high, using: &rng) | 1
                    if w * five >= 1 << 54 { w -= 2 }
                    guard w * five >= 1 << 53 else { continue }
                } else {
                    let n = UInt64.random(in: (1 << 53)..<(1 << 54), using: &rng) | 1
                    let (product, overflow) = n.multipliedReportingOverflow(by: five)
                    guard !overflow, product <= limit else { continue }
                    w = product
                }
                var j = Int.random(in: 0...w.leadingZeroBitCount, using: &rng)
                while w > limit >> j { j -= 1 }
                w <<= j
                tried += 1
                for v in [w, w - 1, w + 1] where v <= limit {
                    c.appendDigits(v)
                    c.append("e\(q)")
                    c.check()
                }
            }
        }
        #expect(tried > 30_000)
        c.expectNone()
    }

    /// Doubles of random bits whose decimal forms fall in the fast range, as Swift prints them
    /// (shortest round trip) and with 17 significant digits, plus the next double up.
    @Test func printedRandomDoubles() {
        var rng = SplitMix64(seed: 0x17D1_6175)
        var c = Comparison()
        var formatted = [CChar](repeating: 0, count: 64)
        for _ in 0..<30_000 {
            // Binary exponents -36 ... 140: about 1.5e-11 to 1.4e42, so 17 digits keep |q| ≤ 27.
            let bits = rng.next() & ((1 << 52) - 1) | UInt64.random(in: (1023 - 36)...(1023 + 140), using: &rng) << 52
            for value in [Double(bitPattern: bits), Double(bitPattern: bits).nextUp] {
                c.check(String(describing: value))
                for format in ["%.16e", "%.17g"] {
                    _ = withVaList([value]) { vsnprintf(&formatted, 64, format, $0) }
                    c.check(formatted.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
                }
            }
        }
        c.expectNone()
    }

    /// Powers of ten, the largest and smallest significands and UInt64's limit at every exponent
    /// -30 ... 30 (so both ends of the fast range and past them), and fractions with long runs of
    /// leading zeros.
    @Test func endsOfTheRange() {
        var c = Comparison()
        let significands: [UInt64] = [1, 2, 5, 9, 10, 99, 1_000_000_000_000_000_000, 9_999_999_999_999_999_999,
                                      9_007_199_254_740_992, 9_007_199_254_740_993, 4_503_599_627_370_497,
                                      1_844_674_407_370_955_161, 1_152_921_504_606_846_976, 7_450_580_596_923_828_125]
        for q in -30...30 {
            for w in significands {
                c.appendDigits(w)
                c.append("e\(q)")
                c.check()
            }
            c.check("1e\(q)")
            c.check("1.0e\(q)")
            c.check("18446744073709551615e\(q)")
            c.check("18446744073709551616e\(q)")
            c.check("-9999999999999999999E" + (q < 0 ? "\(q)" : "+\(q)"))
            c.check(q >= 0 ? "1" + String(repeating: "0", count: q) : "0." + String(repeating: "0", count: -q - 1) + "1")
            c.check(q >= 0 ? "1" + String(repeating: "0", count: q) + ".0" : "0." + String(repeating: "0", count: -q - 1) + "9999999999999999999")
        }
        for text in ["0.000000000000000000000000001", "0.0000000000000000000000000012345678901234567",
                     "-0.00000000000000000000000000999", "0.0000000000000000000000000001", "0.00000000000000000000000001",
                     "0.000000000000000000000000001000000000000000000000", "0.1e1",
                     "1000000000000000000000000000", "10000000000000000000000000000", "999999999999999999999999999",
                     "9999999999999999999000000000", "0.9999999999999999999", "0.99999999999999999999",
                     "1.7976931348623157e308", "1e-320", "123456789012345678901234567890e-30"] {
            c.check(text)
        }
        c.expectNone()
    }

    /// The table against its definition: 5^q's bits at the top for q ≥ 0; for q < 0 the least T with
    /// T × 5^|q| > 2^b (b = z + 127, 2^z the least power of two at least 5^|q|), which is ⌊2^b / 5^|q|⌋ + 1.
    @Test func powersOfFiveTable() {
        let table = DecimalNumber.powersOfFive
        #expect(table.count == 2 * 55)
        var wrong: [Int] = []
        for q in -27...27 {
            let high = table[2 * (q + 27)], low = table[2 * (q + 27) + 1]
            let five = (0..<abs(q)).reduce(UInt64(1)) { p, _ in p * 5 }
            if q >= 0 {
                if high != five << five.leadingZeroBitCount || low != 0 { wrong.append(q) }
                continue
            }
            var z = 0
            while UInt64(1) << z < five { z += 1 }
            // T × 5^|q| as three words, against 2^b = 2^(z + 127) (the top word's bit z - 1).
            func times(_ h: UInt64, _ l: UInt64) -> (UInt64, UInt64, UInt64) {
                let a = l.multipliedFullWidth(by: five), b = h.multipliedFullWidth(by: five)
                let (middle, carry) = a.high.addingReportingOverflow(b.low)
                return (b.high + (carry ? 1 : 0), middle, a.low)
            }
            let power: (UInt64, UInt64, UInt64) = (1 << (z - 1), 0, 0)
            let below = low == 0 ? times(high - 1, .max) : times(high, low - 1)
            if high >> 63 != 1 || !(times(high, low) > power) || !(below <= power) { wrong.append(q) }
        }
        #expect(wrong.isEmpty, "wrong for q = \(wrong)")
    }
}
