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

/// The fast path for plain fix lines against the general parser, its oracle.
/// The event writer's bytes against Foundation's JSON parser as the oracle: names that need escaping,
/// text beyond ASCII, every verdict with its reason and diagnostics, refinements, dates before 1970
/// and with fractions.
@Suite struct EventEncodingTests {
    @Test func everyEventParsesBackToItsFields() throws {
        var rng = SplitMix64(seed: 41)
        let names = ["d1", "a\"quote", "back\\slash", "new\nline", "tab\t", "bell\u{07}", "é-ü", "🛰️ sat", "", "c9944",
                     "cr\r bs\u{08} ff\u{0C} us\u{1F} del\u{7F}", String(repeating: "\u{01}\"", count: 700)]
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        for k in 0..<2_000 {
            let verdict = Delivery.Verdict.allCases.randomElement(using: &rng)!
            let reason = verdict == .delivered ? nil : Delivery.Reason.allCases.randomElement(using: &rng)!
            let diagnostics = Diagnostics(rawValue: UInt16.random(in: 0...255, using: &rng))
            let event = MonitorEvent(
                device: names.randomElement(using: &rng)!, identifier: names.randomElement(using: &rng)!,
                state: [.satisfied, .unsatisfied, .unknown].randomElement(using: &rng)!,
                date: Timestamp(nanosecondsSinceEpoch: Int64.random(in: -4_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &rng)
                    / [1, 1_000, 1_000_000_000].randomElement(using: &rng)!),
                refinement: k % 3 == 0 ? BeaconIdentity(uuid: uuid, major: .random(in: 0...65535, using: &rng), minor: 7) : nil,
                delivery: Delivery(verdict: verdict, reason: reason, diagnostics: diagnostics), cause: k)
            let line = EventEncoding.jsonLine(event)
            #expect(line == Self.plainLine(event))
            #expect(line.hasSuffix("}\n") && line.hasPrefix("{\"device\":"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["device"] as? String == event.device)
            #expect(object["identifier"] as? String == event.identifier)
            #expect(object["state"] as? String == event.state.rawValue)
            #expect(object["date"] as? String == RFC3339.format(event.date))
            #expect(RFC3339.parse(RFC3339.format(event.date)) == event.date)
            #expect(object["delivery"] as? String == verdict.rawValue)
            #expect((object["reason"] as? String) == reason?.rawValue)
            #expect(object["diagnostics"] as? [String] == diagnostics.names)
            #expect(object["cause"] as? Int == k)
            if let r = event.refinement {
                let refinement = object["refinement"] as? [String: Any]
                #expect(refinement?["uuid"] as? String == uuid.uuidString)
                #expect(refinement?["major"] as? Int == Int(r.major) && refinement?["minor"] as? Int == 7)
            } else {
                #expect(object["refinement"] is NSNull)
            }
        }
    }
}

extension EventEncodingTests {
    /// The literals the writer copies are the raw values, and the longest line without names fits
    /// the room the writer sets aside for it.
    @Test func namesAreTheRawValuesAndTheLongestLineFits() {
        for state in ConditionState.allCases { #expect("\(EventEncoding.name(state))" == state.rawValue) }
        for verdict in Delivery.Verdict.allCases { #expect("\(EventEncoding.name(verdict))" == verdict.rawValue) }
        for reason in Delivery.Reason.allCases { #expect("\(EventEncoding.name(reason))" == reason.rawValue) }
        let longestReason = Delivery.Reason.allCases.max { $0.rawValue.utf8.count < $1.rawValue.utf8.count }!
        let event = MonitorEvent(device: "", identifier: "", state: .unsatisfied,
                                 date: Timestamp(nanosecondsSinceEpoch: Int64.min + 1),
                                 refinement: BeaconIdentity(uuid: UUID(), major: 65535, minor: 65535),
                                 delivery: Delivery(verdict: .delivered, reason: longestReason, diagnostics: Diagnostics(rawValue: 0xFF)),
                                 cause: Int.min)
        let line = EventEncoding.jsonLine(event)
        #expect(line == Self.plainLine(event))
        #expect(line.utf8.count <= EventEncoding.longestWithoutNames)
    }

    /// The line as plain string building writes it, the writer's byte-for-byte oracle: each scalar
    /// escaped as RFC 8259 requires (the writer escapes bytes).
    static func plainLine(_ e: MonitorEvent) -> String {
        let quoted = Fixture.jsonQuoted
        let reason = e.delivery.reason.map { quoted($0.rawValue) } ?? "null"
        let refinement = e.refinement.map { "{\"uuid\":\"\($0.uuid.uuidString)\",\"major\":\($0.major),\"minor\":\($0.minor)}" } ?? "null"
        return "{\"device\":" + quoted(e.device) + ",\"identifier\":" + quoted(e.identifier)
            + ",\"state\":\"" + e.state.rawValue + "\",\"date\":\"" + RFC3339.format(e.date)
            + "\",\"delivery\":\"" + e.delivery.verdict.rawValue + "\",\"reason\":" + reason + ",\"refinement\":" + refinement
            + ",\"diagnostics\":[" + e.delivery.diagnostics.names.map { "\"" + $0 + "\"" }.joined(separator: ",")
            + "],\"cause\":\(e.cause)}\n"
    }
}

@Suite struct PlainRecordDecoderTests {
    static func observation(_ record: PlainRecord) -> Observation {
        switch record {
        case .fix(let fix): .fix(fix)
        case .sighting(let sighting): .sighting(sighting)
        }
    }

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
        let times = ["1772352000", "1772352000.123456789", "\"2026-03-01T08:00:00Z\"", "\"2026-03-01T09:00:00.5+01:00\"", "\"yesterday\"", "+5", "-1.5",
                     "0", "01", "0.5", "00.5", "1772352000.1", "1772352000.12345678", "1772352000.", "1772352000e3", "17723520001",
                     "177235200012", "1772352000.0990", "7.25", "1772352000.123456789012"]
        for _ in 0..<3000 {
            let lat = numbers.randomElement(using: &rng)!, lon = numbers.randomElement(using: &rng)!
            let accuracy = numbers.randomElement(using: &rng)!, t = times.randomElement(using: &rng)!
            let device = ["d1", "é", "a\\\"b", "", "x y", "tab\there", "a\\\\b", "d123456789012345", "\u{7F}"].randomElement(using: &rng)!
            var fields = ["\"type\":\"fix\"", "\"device\":\"\(device)\"", "\"t\":\(t)", "\"lat\":\(lat)", "\"lon\":\(lon)", "\"accuracy\":\(accuracy)"]
            if Int.random(in: 0..<5, using: &rng) == 0 { fields.append("\"speed\":3") }
            if Int.random(in: 0..<8, using: &rng) == 0 { fields.removeLast(2) }
            fields.shuffle(using: &rng)
            let space = [" ", "", "\t"].randomElement(using: &rng)!
            lines.append("{" + fields.joined(separator: "," + space) + "}")
        }
        var fast = 0
        for line in lines {
            // The same answer however much of what follows the line may be loaded (a newline and
            // random bytes: the word-at-a-time readers must not heed them).
            let bytes = Array(line.utf8)
            let padded = bytes + [0x0A] + (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let withRoom = padded.withUnsafeBufferPointer {
                PlainRecordDecoder.decode(UnsafeBufferPointer(rebasing: $0[..<bytes.count]), readable: $0.count)
            }
            #expect(withRoom?.device == PlainRecordDecoder.decode(bytes)?.device
                    && withRoom?.record == PlainRecordDecoder.decode(bytes)?.record, "\(line)")
            guard let (range, record) = PlainRecordDecoder.decode(bytes) else { continue }
            let observation = Self.observation(record)
            let device = String(decoding: bytes[range], as: UTF8.self)
            fast += 1
            let expected = Self.general(line)
            #expect(expected?.device == device && expected?.observation == observation, "\(line)")
        }
        #expect(fast > 200)
    }
}

extension PlainRecordDecoderTests {
    @Test func csvFastPathAgreesWithTheGeneralReader() throws {
        var rng = SplitMix64(seed: 13)
        let header = ["type", "device", "t", "lat", "lon", "accuracy", "speed", "uuid"]
        let numbers = ["0", "-0", "12", "-12.5", "1e3", "01", "1.", ".5", "0x1A", "48.8566", " 3", "nan", "inf", "",
                       "-179.99999999999997", "48.123456789012345678901", "1234567.1234", "\"48.5\"", "4\"8"]
        var rows = ["type,device,t,lat,lon,accuracy,speed,uuid"]
        for _ in 0..<3000 {
            let t = ["1772352000", "1772352000.25", "2026-03-01T08:00:00Z", "later", "", "+5", "17723520001", "\"1772352000\""]
                .randomElement(using: &rng)!
            let type = ["fix", "fix", "fix", "sighting", "Fix"].randomElement(using: &rng)!
            // Cells longer than a word, with a quote at various places, test the scan for the cell's end.
            let device = ["d1", "é", "", "\"q\"", "a-long-device-name-42", "abcdefg\"", "abcdefgh\"i", "a-long-device\"name"]
                .randomElement(using: &rng)!
            let extra = Int.random(in: 0..<6, using: &rng) == 0 ? "3" : ""
            var cells = [type, device, t, numbers.randomElement(using: &rng)!, numbers.randomElement(using: &rng)!,
                         numbers.randomElement(using: &rng)!, extra, ""]
            switch Int.random(in: 0..<12, using: &rng) {
            case 0: cells.append("")  // a cell more than the header has
            case 1: cells.removeLast()  // one fewer
            default: break
            }
            rows.append(cells.joined(separator: ","))
        }
        let path = try Fixture.write(rows.joined(separator: "\n") + "\n", named: "fast.csv")
        // The general reader, line by line, is the oracle: decode each row through RecordFields.
        var fast = 0
        let columns = PlainRecordDecoder.CSVColumns(header: header)
        for row in rows.dropFirst() {
            guard let (range, record) = PlainRecordDecoder.decodeCSV(Array(row.utf8), columns: columns) else { continue }
            let observation = Self.observation(record)
            let device = String(decoding: Array(row.utf8)[range], as: UTF8.self)
            fast += 1
            guard case .success(let cells) = CSVRow.split(Array(row.utf8)) else { Issue.record("split \(row)"); continue }
            #expect(cells.count == header.count, "a row of \(cells.count) cells: \(row)")
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

extension PlainRecordDecoderTests {
    static let uuids = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "E2C56DB5DFFB48D2B060D0F5A71096E0",
                        "{E2C56DB5-DFFB-48D2-B060-D0F5A71096E0}", "E2C56DB5-DFFB-48D2-B060-D0F5A71096EG", "E2C56DB5-DFFB-48D2-B060_D0F5A71096E0",
                        "", "x"]
    static let integers = ["0", "7", "65535", "65536", "-1", "-60", "-200", "-201", "3.0", "3.5", "1e2", "50", "51", "01", "+3", "0x10"]

    /// Mostly `usual`, one time in four any of `others` (most of them wrong somewhere).
    static func pick(_ usual: String, _ others: [String], _ rng: inout SplitMix64) -> String {
        Int.random(in: 0..<4, using: &rng) == 0 ? others.randomElement(using: &rng)! : usual
    }

    /// Plain sightings, and near misses, in JSON Lines: the fast path answers only as the general
    /// parser does.
    @Test func sightingsAgreeWithTheGeneralParserWheneverItAnswers() throws {
        var rng = SplitMix64(seed: 14)
        var lines: [String] = []
        for _ in 0..<4000 {
            let uuid = Self.pick(Self.uuids[0], Self.uuids, &rng)
            var fields = ["\"type\":\"sighting\"", "\"device\":\"\(Self.pick("d1", ["é", "", "b\\\"q"], &rng))\"",
                          "\"t\":\(Self.pick("1772352000", ["\"2026-03-01T08:00:00Z\"", "\"soon\""], &rng))",
                          "\"uuid\":" + (Int.random(in: 0..<10, using: &rng) == 0 ? "5" : "\"\(uuid)\""),
                          "\"major\":\(Self.pick("7", Self.integers, &rng))", "\"minor\":\(Self.pick("65535", Self.integers, &rng))",
                          "\"rssi\":\(Self.pick("-60", Self.integers, &rng))"]
            if Bool.random(using: &rng) { fields.append("\"power\":\(Self.pick("-59", Self.integers, &rng))") }
            if Int.random(in: 0..<8, using: &rng) == 0 { fields.append("\"lat\":1") }
            if Int.random(in: 0..<8, using: &rng) == 0 { fields.remove(at: Int.random(in: 1..<fields.count, using: &rng)) }
            if Int.random(in: 0..<10, using: &rng) == 0 { fields.append(fields[3]) }
            fields.shuffle(using: &rng)
            lines.append("{" + fields.joined(separator: ",") + "}")
        }
        var fast = 0
        for line in lines {
            guard let (range, record) = PlainRecordDecoder.decode(Array(line.utf8)) else { continue }
            guard case .sighting = record else { Issue.record("not a sighting: \(line)"); continue }
            fast += 1
            let expected = Self.general(line)
            #expect(expected?.device == String(decoding: Array(line.utf8)[range], as: UTF8.self)
                    && expected?.observation == Self.observation(record), "\(line)")
        }
        #expect(fast > 300)
    }

    /// The same in CSV, fixes and sightings under one header.
    @Test func csvSightingsAgreeWithTheGeneralReader() throws {
        var rng = SplitMix64(seed: 15)
        let header = ["type", "device", "t", "lat", "lon", "accuracy", "uuid", "major", "minor", "rssi", "power", "speed"]
        let columns = PlainRecordDecoder.CSVColumns(header: header)
        var fast = 0, sightings = 0
        for _ in 0..<4000 {
            let isFix = Int.random(in: 0..<4, using: &rng) == 0
            var cells = [isFix ? "fix" : Self.pick("sighting", ["Sighting"], &rng), Self.pick("d1", ["é", ""], &rng),
                         Self.pick("1772352000", ["2026-03-01T08:00:00Z", "soon"], &rng), "", "", "",
                         Self.pick(Self.uuids[1], Self.uuids, &rng), Self.pick("0", Self.integers, &rng),
                         Self.pick("12", Self.integers, &rng), Self.pick("-70", Self.integers, &rng),
                         Bool.random(using: &rng) ? Self.pick("-59", Self.integers, &rng) : "", ""]
            if isFix || Int.random(in: 0..<10, using: &rng) == 0 { (cells[3], cells[4], cells[5]) = ("48.85", "2.35", "5") }
            if isFix && Bool.random(using: &rng) { for k in 6...10 { cells[k] = "" } }
            if Int.random(in: 0..<10, using: &rng) == 0 { cells[11] = "3" }
            let row = cells.joined(separator: ",")
            guard let (range, record) = PlainRecordDecoder.decodeCSV(Array(row.utf8), columns: columns) else { continue }
            fast += 1
            if case .sighting = record { sightings += 1 }
            guard case .success(let split) = CSVRow.split(Array(row.utf8)) else { Issue.record("split \(row)"); continue }
            let fields = zip(header, split).filter { !$0.1.isEmpty }.map { ($0.0, RecordFields.Value.text($0.1)) }
            let expected = try? ObservationDecoding.decode(RecordFields(fields: fields))
            #expect(expected?.device == String(decoding: Array(row.utf8)[range], as: UTF8.self)
                    && expected?.observation == Self.observation(record), "\(row)")
        }
        #expect(sightings > 200 && fast > sightings)
    }
}

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

@Suite struct DeviceNamesTests {
    @Test func numbersNamesInOrderOfFirstAppearanceAndFindsThemAgain() {
        var names = DeviceNames()
        var rng = SplitMix64(seed: 41)
        var expected: [String: Int32] = [:]
        for _ in 0..<50_000 {
            let name = ["d\(Int.random(in: 0..<5000, using: &rng))", "é\(Int.random(in: 0..<50, using: &rng))", "",
                        String(repeating: "x", count: Int.random(in: 1..<80, using: &rng))].randomElement(using: &rng)!
            let got = Array(name.utf8).withUnsafeBufferPointer { names.number($0) }
            let want = expected[name] ?? Int32(expected.count)
            expected[name] = want
            #expect(got == want)
        }
        #expect(names.names.count == expected.count)
        for (name, number) in expected { #expect(names.names[Int(number)] == name) }
        #expect([UInt8]([0x64, 0xFF]).withUnsafeBufferPointer { names.number($0) } == nil)
    }

    @Test func theReaderNumbersDevicesOnBothPaths() throws {
        // Fast-path fixes and general-path records (a sighting, an app record) share the numbering.
        let path = try Fixture.write("""
            {"type":"fix","device":"b","t":1,"lat":1,"lon":2,"accuracy":5}
            {"type":"app","device":"a","t":2,"state":"foreground"}
            {"type":"fix","device":"a","t":3,"lat":1,"lon":2,"accuracy":5}
            {"type":"fix","device":"b","t":4,"lat":1,"lon":2,"accuracy":5,"speed":1}
            {"type":"fix","device":"\\u0062","t":5,"lat":1,"lon":2,"accuracy":5}

            """, named: "numbers.jsonl")
        var reader = try ObservationReader(path: path)
        var numbers: [String] = []
        while let next = reader.next() {
            let record = try next.get()
            numbers.append("\(record.device)=\(record.deviceNumber)")
        }
        #expect(numbers == ["b=0", "a=1", "a=1", "b=0", "b=0"])
    }
}
