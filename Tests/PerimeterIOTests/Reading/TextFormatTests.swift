import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The hand-written JSON parser against Foundation's, and exact RFC 3339 / Unix-seconds times.
@Suite struct TextFormatTests {
    /// Where our value differs from what `JSONSerialization` produced (`nil`: nowhere). Numbers
    /// compare as doubles within a few ulps: Foundation on Linux returns long decimals as
    /// `NSDecimalNumber`, whose conversion to `Double` is not always correctly rounded.
    static func difference(_ value: JSONValue, _ other: Any, at path: String = "$") -> String? {
        switch value {
        case .null: return other is NSNull ? nil : path
        case .bool(let b): return (other as? Bool) == b ? nil : path
        case .number(let text, let v):
            guard let n = other as? NSNumber else { return path }
            return abs(n.doubleValue - v) <= 1e-12 * max(1, abs(v)) ? nil : "\(path): \(text) vs \(n)"
        case .string(let s): return (other as? String) == s ? nil : path
        case .array(let a):
            guard let o = other as? [Any], o.count == a.count else { return path }
            for (i, (x, y)) in zip(a, o).enumerated() {
                if let d = difference(x, y, at: "\(path)[\(i)]") { return d }
            }
            return nil
        case .object(let obj):
            guard let o = other as? [String: Any], o.count == Set(obj.members.map(\.key)).count else { return path }
            for m in obj.members {
                guard let y = o[m.key] else { return "\(path).\(m.key)" }
                if let d = difference(m.value, y, at: "\(path).\(m.key)") { return d }
            }
            return nil
        }
    }

    static func same(_ value: JSONValue, _ other: Any) -> Bool { difference(value, other) == nil }

    @Test(arguments: ["city/conditions.geojson", "natural-earth/countries.geojson"])
    func parserAgreesWithJSONSerializationOnFixtures(_ file: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.path(file)))
        let difference = Self.difference(try JSONParser.parse(data), try JSONSerialization.jsonObject(with: data))
        #expect(difference == nil)
    }

    @Test func parserAgreesWithJSONSerializationOnEveryObservationLine() throws {
        for line in try Fixture.text("city/observations.jsonl").split(separator: "\n") {
            #expect(Self.same(try JSONParser.parse(String(line)), try JSONSerialization.jsonObject(with: Data(line.utf8))), "\(line)")
        }
    }

    @Test(arguments: [#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, #"[1, -0.5, 2e3, 1E-2, true, false, null, {}]"#, #"{"é":"ü","k":[[]]}"#])
    func parserHandlesEscapesNumbersAndUnicode(_ text: String) throws {
        #expect(Self.same(try JSONParser.parse(text), try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\u{01}\"", "tru", "[1] 2", "\"\\ud800\""])
    func parserRejectsWhatRFC8259Rejects(_ text: String) {
        // (Foundation is laxer here — it accepts "[1,]" — so RFC 8259 is the reference, not Foundation.)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test func parserCountsLines() throws {
        guard case .object(let o) = try JSONParser.parse("{\n\"a\": 1,\n\n\"b\": {\"c\": 2}}") else { Issue.record("object"); return }
        #expect(o.line == 1)
        #expect(o.line(of: "a") == 2)
        #expect(o.line(of: "b") == 4)
        do {
            _ = try JSONParser.parse("[1,\n2,\n]")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
        }
    }

    @Test(arguments: [
        ("2026-03-01T08:00:00Z", Int64(1_772_352_000_000_000_000)),
        ("2026-03-01T09:00:00+01:00", Int64(1_772_352_000_000_000_000)),
        ("2026-03-01T03:00:00.25-05:00", Int64(1_772_352_000_250_000_000)),
        ("2026-03-01 08:00:00.123456789z", Int64(1_772_352_000_123_456_789)),
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("1969-12-31T23:59:59.5Z", Int64(-500_000_000)),
        ("2024-02-29T12:00:00Z", Int64(1_709_208_000_000_000_000)),
    ])
    func rfc3339ParsesExactly(_ text: String, _ nanoseconds: Int64) {
        #expect(RFC3339.parse(text) == Timestamp(nanosecondsSinceEpoch: nanoseconds))
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-03-01T24:00:00Z", "2026-03-01T08:00:00",
                      "2026-03-01T08:00:00.Z", "2026-3-01T08:00:00Z", "2026-03-01T08:00:60Z"])
    func rfc3339RejectsMalformedTimes(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    /// The date and time read a word at a time equal them read a byte at a time: for timestamps of
    /// every shape, each with one byte changed to anything, and for strings of timestamp characters.
    @Test func rfc3339HeadByWordsEqualsHeadByBytes() {
        var rng = SplitMix64(seed: 41)
        let alphabet = Array("0123456789--::TtZz +.x".utf8) + [0x2F, 0x3A, 0x3B, 0x40, 0xB0, 0xB5, 0xAD, 0xBA, 0xD4, 0x00, 0x7F]
        var read = 0
        for k in 0..<200_000 {
            var bytes: [UInt8]
            if k % 2 == 0 {
                let seconds = Int64.random(in: -80_000_000_000...250_000_000_000, using: &rng)
                let (y, m, d) = RFC3339.civilFromDays(Int(seconds.dividedReportingOverflow(by: 86_400).partialValue))
                let text = String(format: "%04d-%02d-%02d%@%02d:%02d:%02dZ", y, m, d, ["T", "t", " "].randomElement(using: &rng)!,
                                  Int.random(in: 0...23, using: &rng), Int.random(in: 0...59, using: &rng),
                                  Int.random(in: 0...59, using: &rng))
                bytes = Array(text.utf8)
                if Bool.random(using: &rng) { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = (0..<Int.random(in: 18...24, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            }
            let (words, oracle) = bytes.withUnsafeBufferPointer { (RFC3339.head($0), RFC3339.headByBytes($0)) }
            #expect(words.map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] } == oracle.map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5] },
                    "\(bytes)")
            if oracle != nil { read += 1 }
        }
        #expect(read > 50_000)
    }

    @Test func decimalsAreWrittenAsStringWouldWithZerosInFront() {
        var rng = SplitMix64(seed: 31)
        var out: [UInt8] = Array("prefix".utf8)
        var expected = "prefix"
        for k in 0..<20_000 {
            let value: Int = switch k % 4 {
            case 0: .random(in: 0..<100, using: &rng)
            case 1: .random(in: 0...Int.max, using: &rng)
            case 2: .random(in: -10_000...10_000, using: &rng)
            default: [0, Int.max, Int.min, -1, 9, 10, 99_999_999_999].randomElement(using: &rng)!
            }
            let width = Int.random(in: 0...24, using: &rng)
            JSONText.appendDecimal(value, width: width, to: &out)
            let digits = String(value.magnitude), sign = value < 0 ? "-" : ""
            expected += sign + String(repeating: "0", count: max(0, width - sign.count - digits.count)) + digits
        }
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test func unixSecondsAreExactAndFormattingRoundTrips() {
        #expect(RFC3339.parseUnixSeconds("1772352000.1") == Timestamp(nanosecondsSinceEpoch: 1_772_352_000_100_000_000))
        #expect(RFC3339.parseUnixSeconds("-1.5") == Timestamp(nanosecondsSinceEpoch: -1_500_000_000))
        #expect(RFC3339.parseUnixSeconds("1.7723520e9") == Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000))
        #expect(RFC3339.parseUnixSeconds("12abc") == nil)
        // Beyond 64-bit nanoseconds (2262): refused, not an overflow trap.
        #expect(RFC3339.parseUnixSeconds("17723520001") == nil)
        #expect(RFC3339.parseUnixSeconds("-99999999999.5") == nil)
        #expect(RFC3339.parseUnixSeconds("9223372036") == Timestamp(nanosecondsSinceEpoch: 9_223_372_036_000_000_000))
        #expect(RFC3339.format(Timestamp(nanosecondsSinceEpoch: 1_772_352_000_100_000_000)) == "2026-03-01T08:00:00.1Z")
        #expect(RFC3339.format(Timestamp(nanosecondsSinceEpoch: -500_000_000)) == "1969-12-31T23:59:59.5Z")
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let t = Timestamp(nanosecondsSinceEpoch: Int64.random(in: -2_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &rng))
            #expect(RFC3339.parse(RFC3339.format(t)) == t)
        }
    }
}
