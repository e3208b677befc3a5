import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The byte-level number reader against `strtod` (through `Double(String)`), its oracle: the same bits
/// for every string, or the same refusal.
@Suite struct DecimalNumberTests {
    static func parse(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalNumber.parse($0) }
    }

    static func oracle(_ text: String) -> Double? {
        guard Array(text.utf8).withUnsafeBufferPointer({ DecimalNumber.isJSONNumber($0) }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }

    static func expectSame(_ texts: [String]) {
        var mismatches: [String] = []
        for text in texts {
            let got = parse(text), expected = oracle(text)
            if got?.bitPattern != expected?.bitPattern { mismatches.append("\(text): \(String(describing: got)) vs \(String(describing: expected))") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(texts.count): \(mismatches.prefix(5))")
    }

    /// Long runs of digits with one byte changed to a neighbour of the digits' range (or another
    /// character a number may hold): every one is refused or read as the grammar says, wherever the
    /// byte falls in the eight-digit steps.
    @Test func digitRunsWithOneByteChanged() {
        var rng = SplitMix64(seed: 34)
        let strangers: [UInt8] = [0x2F, 0x3A, 0x20, 0x2E, 0x2D, 0x2B, 0x65, 0x45, 0x00, 0xFF, 0xF9, 0x39 + 0x80, 0x30 - 0x10]
        var texts: [String] = []
        for _ in 0..<100_000 {
            var bytes = Array(String(Int.random(in: 1...9, using: &rng)).utf8)
            bytes += (0..<Int.random(in: 8...30, using: &rng)).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &rng) }
            if Bool.random(using: &rng) { bytes.insert(UInt8(ascii: "."), at: Int.random(in: 1..<bytes.count, using: &rng)) }
            bytes[Int.random(in: 1..<bytes.count, using: &rng)] = strangers.randomElement(using: &rng)!
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        Self.expectSame(texts)
        // (Bytes that are not UTF-8 become U+FFFD above; check the raw bytes too.)
        var mismatches = 0
        for _ in 0..<20_000 {
            var bytes = (0..<16).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &rng) }
            bytes[0] = UInt8(ascii: "1")
            bytes[Int.random(in: 1..<16, using: &rng)] = strangers.randomElement(using: &rng)!
            let got = bytes.withUnsafeBufferPointer { DecimalNumber.parse($0) }
            let isNumber = bytes.withUnsafeBufferPointer { DecimalNumber.isJSONNumber($0) }
            let expected = isNumber ? Double(String(decoding: bytes, as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil } : nil
            if got?.bitPattern != expected?.bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func shortestFormsOfRandomDoubles() {
        var rng = SplitMix64(seed: 31)
        var texts: [String] = []
        for _ in 0..<400_000 {
            // Coordinates, accuracies, Unix times, and doubles of any size.
            let value: Double
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: value = .random(in: -180...180, using: &rng)
            case 1: value = .random(in: 0...100, using: &rng)
            case 2: value = .random(in: 1.7e9...1.8e9, using: &rng)
            default: value = Double(bitPattern: rng.next() & ~(0x7FF << 52) | (UInt64.random(in: 900...1150, using: &rng) << 52))
            }
            texts.append("\(value)")
            texts.append("\(value.nextUp)")
        }
        Self.expectSame(texts)
    }

    @Test func randomDigitStringsOfEveryLength() {
        var rng = SplitMix64(seed: 32)
        var texts: [String] = []
        for _ in 0..<400_000 {
            var text = Bool.random(using: &rng) ? "-" : ""
            let whole = Int.random(in: 0...21, using: &rng)
            text += whole == 0 ? "0" : String(Int.random(in: 1...9, using: &rng)) + String((1..<whole).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            let fraction = Int.random(in: 0...24, using: &rng)
            if fraction > 0 {
                text += "." + String((0..<fraction).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &rng)! + String(Int.random(in: 0...40, using: &rng)) }
            texts.append(text)
        }
        Self.expectSame(texts)
    }

    /// Decimal strings at, and cut short near, the halfway point between neighbouring doubles, where a
    /// second rounding would go wrong: odd integers between 2⁵³ and 2⁵⁴, and the halfway points of
    /// random doubles (exact in `Float80`) written out and cut to 19, 18 and 17 digits.
    @Test func halfwayPointsBetweenDoubles() {
        var rng = SplitMix64(seed: 33)
        var texts: [String] = []
        for _ in 0..<50_000 {
            let odd = UInt64.random(in: (1 << 53)...(1 << 54), using: &rng) | 1
            texts.append("\(odd)")
            texts.append("\(odd / 2).5")
            let d = [Double.random(in: 1...2, using: &rng), .random(in: -180...180, using: &rng), .random(in: 1e9...2e9, using: &rng)]
                .randomElement(using: &rng)!
            let half = "\(Float80(d) + Float80(d.ulp) / 2)"
            texts.append(half)
            for keep in [17, 18, 19, 20] {
                var digits = 0
                texts.append(String(half.prefix { c in
                    if c.isNumber { digits += 1 }
                    return digits <= keep
                }))
            }
        }
        texts += ["0", "-0", "0.0", "1e0", "0e-5", "1E+2", "9007199254740993", "9007199254740992.5", "123456789012345678901234567890",
                  "0.1", "0.30000000000000004", "1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308", "1e400", "-1e400",
                  "1.", ".5", "01", "-", "", "1e", "+1", "1e+", "0x10", "1_0", "١"]
        Self.expectSame(texts)
    }
}
