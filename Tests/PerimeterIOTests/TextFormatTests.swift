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

    @Test func unixSecondsAreExactAndFormattingRoundTrips() {
        #expect(RFC3339.parseUnixSeconds("1772352000.1") == Timestamp(nanosecondsSinceEpoch: 1_772_352_000_100_000_000))
        #expect(RFC3339.parseUnixSeconds("-1.5") == Timestamp(nanosecondsSinceEpoch: -1_500_000_000))
        #expect(RFC3339.parseUnixSeconds("1.7723520e9") == Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000))
        #expect(RFC3339.parseUnixSeconds("12abc") == nil)
        #expect(RFC3339.format(Timestamp(nanosecondsSinceEpoch: 1_772_352_000_100_000_000)) == "2026-03-01T08:00:00.1Z")
        #expect(RFC3339.format(Timestamp(nanosecondsSinceEpoch: -500_000_000)) == "1969-12-31T23:59:59.5Z")
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let t = Timestamp(nanosecondsSinceEpoch: Int64.random(in: -2_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &rng))
            #expect(RFC3339.parse(RFC3339.format(t)) == t)
        }
    }
}

/// The fast path for plain fix lines against the general parser, its oracle.
@Suite struct FastFixDecoderTests {
    static func general(_ line: String) -> ObservationRecord? {
        guard case .object(let o)? = try? JSONParser.parse(line),
              let (device, observation) = try? ObservationDecoding.decode(RecordFields(fields: o.members.map { ($0.key, .json($0.value)) }))
        else { return nil }
        return ObservationRecord(device: device, observation: observation, line: 0)
    }

    @Test func agreesWithTheGeneralParserWheneverItAnswers() throws {
        var lines = try Fixture.text("city/observations.jsonl").split(separator: "\n").map(String.init)
        var rng = SplitMix64(seed: 12)
        let numbers = ["0", "-0", "12", "-12.5", "1e3", "1E-3", "2.5e+2", "01", "1.", ".5", "-", "0x1A", "1e", "48.8566", "-179.99999999999997", "NaN", "1_0"]
        let times = ["1772352000", "1772352000.123456789", "\"2026-03-01T08:00:00Z\"", "\"2026-03-01T09:00:00.5+01:00\"", "\"yesterday\"", "+5", "-1.5"]
        for _ in 0..<3000 {
            let lat = numbers.randomElement(using: &rng)!, lon = numbers.randomElement(using: &rng)!
            let accuracy = numbers.randomElement(using: &rng)!, t = times.randomElement(using: &rng)!
            let device = ["d1", "é", "a\\\"b", "", "x y"].randomElement(using: &rng)!
            var fields = ["\"type\":\"fix\"", "\"device\":\"\(device)\"", "\"t\":\(t)", "\"lat\":\(lat)", "\"lon\":\(lon)", "\"accuracy\":\(accuracy)"]
            if Int.random(in: 0..<5, using: &rng) == 0 { fields.append("\"speed\":3") }
            if Int.random(in: 0..<8, using: &rng) == 0 { fields.removeLast(2) }
            fields.shuffle(using: &rng)
            let space = [" ", "", "\t"].randomElement(using: &rng)!
            lines.append("{" + fields.joined(separator: "," + space) + "}")
        }
        var fast = 0
        for line in lines {
            guard let (device, observation) = FastFixDecoder.decode(Array(line.utf8)) else { continue }
            fast += 1
            let expected = Self.general(line)
            #expect(expected?.device == device && expected?.observation == observation, "\(line)")
        }
        #expect(fast > 200)
    }
}

extension FastFixDecoderTests {
    @Test func csvFastPathAgreesWithTheGeneralReader() throws {
        var rng = SplitMix64(seed: 13)
        let header = ["type", "device", "t", "lat", "lon", "accuracy", "speed", "uuid"]
        let numbers = ["0", "-0", "12", "-12.5", "1e3", "01", "1.", ".5", "0x1A", "48.8566", " 3", "nan", "inf", ""]
        var rows = ["type,device,t,lat,lon,accuracy,speed,uuid"]
        for _ in 0..<3000 {
            let t = ["1772352000", "1772352000.25", "2026-03-01T08:00:00Z", "later", "", "+5"].randomElement(using: &rng)!
            let type = ["fix", "fix", "fix", "sighting", "Fix"].randomElement(using: &rng)!
            let device = ["d1", "é", "", "\"q\""].randomElement(using: &rng)!
            let extra = Int.random(in: 0..<6, using: &rng) == 0 ? "3" : ""
            rows.append([type, device, t, numbers.randomElement(using: &rng)!, numbers.randomElement(using: &rng)!,
                         numbers.randomElement(using: &rng)!, extra, ""].joined(separator: ","))
        }
        let path = try Fixture.write(rows.joined(separator: "\n") + "\n", named: "fast.csv")
        // The general reader, line by line, is the oracle: decode each row through RecordFields.
        var fast = 0
        let columns = try #require(FastFixDecoder.CSVColumns(header: header))
        for row in rows.dropFirst() {
            guard let (device, observation) = FastFixDecoder.decodeCSV(Array(row.utf8), columns: columns) else { continue }
            fast += 1
            guard case .success(let cells) = CSVRow.split(Array(row.utf8)) else { Issue.record("split \(row)"); continue }
            let fields = zip(header, cells).filter { !$0.1.isEmpty }.map { ($0.0, RecordFields.Value.text($0.1)) }
            let expected = try? ObservationDecoding.decode(RecordFields(fields: fields))
            #expect(expected?.device == device && expected?.observation == observation, "\(row)")
        }
        #expect(fast > 20)
        // And the reader as a whole gives the same records with and without the fast path's help.
        var reader = try ObservationReader(path: path)
        var read = 0
        while let next = reader.next() { if case .success = next { read += 1 } }
        #expect(read >= fast)
    }
}
