import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The fast path for plain fix lines against the general parser, its oracle.
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
