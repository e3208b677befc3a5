import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The word-at-a-time readers of the commonest numbers and times (`DecimalNumber.parseShort`,
/// `RFC3339.parseUnixSeconds(_:readable:)`) against the full ones, with the bytes after the field —
/// which they load but must not heed — random: the same value and end, or a refusal the full reader
/// shares.
@Suite struct ShortNumberTests {
    /// Random bytes a field may be followed by in a line, and some it never is.
    static let followers: [UInt8] = Array("0123456789.eE,}- \"x".utf8) + [0x00, 0xFF, 0x2F, 0x3A]

    /// `text` at the start of a 48-byte buffer, the rest random followers: `n` is the text and
    /// `extra` more bytes of it, the whole buffer readable.
    static func withBuffer<R>(_ text: [UInt8], extra: Int, _ rng: inout SplitMix64,
                              _ body: (UnsafeBufferPointer<UInt8>, Int) -> R) -> R {
        var bytes = text
        while bytes.count < 48 { bytes.append(followers.randomElement(using: &rng)!) }
        return bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[..<min(all.count, text.count + extra)]), all.count)
        }
    }

    static func digits(_ count: Int, _ rng: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &rng) }
    }

    @Test func numbersReadAsTheFullGrammarReadsThem() {
        var rng = SplitMix64(seed: 35)
        var mismatches: [String] = [], short = 0
        for _ in 0..<300_000 {
            // Coordinate-like: 1–8 integer digits (a leading zero now and then), 0–18 fraction digits.
            var text: [UInt8] = Bool.random(using: &rng) ? Array("-".utf8) : []
            text += Self.digits(Int.random(in: 1...8, using: &rng), &rng)
            let fraction = Int.random(in: 0...18, using: &rng)
            if fraction > 0 || Int.random(in: 0..<8, using: &rng) == 0 { text += Array(".".utf8) + Self.digits(fraction, &rng) }
            let extra = Int.random(in: 0...2, using: &rng)
            Self.withBuffer(text, extra: extra, &rng) { n, readable in
                let full = DecimalNumber.parse(n, from: 0)
                if let fast = DecimalNumber.parseShort(n, from: 0, readable: readable) {
                    short += 1
                    if fast.value.bitPattern != full?.value.bitPattern || fast.end != full?.end {
                        mismatches.append("\(String(decoding: n, as: UTF8.self)): \(fast) vs \(String(describing: full))")
                    }
                }
                let both = DecimalNumber.parse(n, from: 0, readable: readable)
                if both?.value.bitPattern != full?.value.bitPattern || both?.end != full?.end {
                    mismatches.append("readable \(String(decoding: n, as: UTF8.self))")
                }
            }
        }
        let wrong = mismatches.count
        #expect(wrong == 0, "\(wrong): \(mismatches.prefix(5))")
        // Most of these shapes are the short path's: it must answer them, not leave all to the full one.
        #expect(short > 150_000)
    }

    @Test func timesReadAsTheFullReaderReadsThem() {
        var rng = SplitMix64(seed: 36)
        var mismatches: [String] = [], answered = 0
        for _ in 0..<300_000 {
            var text: [UInt8] = Int.random(in: 0..<16, using: &rng) == 0 ? Array("-".utf8) : []
            text += Self.digits(Int.random(in: 1...13, using: &rng), &rng)
            let fraction = Int.random(in: 0...11, using: &rng)
            if fraction > 0 || Int.random(in: 0..<8, using: &rng) == 0 { text += Array(".".utf8) + Self.digits(fraction, &rng) }
            let extra = Int.random(in: 0..<8, using: &rng) == 0 ? 1 : 0
            Self.withBuffer(text, extra: extra, &rng) { b, readable in
                let full = RFC3339.parseUnixSeconds(b), fast = RFC3339.parseUnixSeconds(b, readable: readable)
                if full != nil { answered += 1 }
                if fast != full { mismatches.append("\(String(decoding: b, as: UTF8.self)): \(String(describing: fast)) vs \(String(describing: full))") }
            }
        }
        let wrong = mismatches.count
        #expect(wrong == 0, "\(wrong): \(mismatches.prefix(5))")
        #expect(answered > 100_000)
    }
}
