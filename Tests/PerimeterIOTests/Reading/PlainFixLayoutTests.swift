import Foundation
import Testing
import PerimeterTestSupport
@testable import Perimeter
@testable import PerimeterIO

/// `PlainFixLayout` against `PlainRecordDecoder`, its oracle: a layout learned from one line answers,
/// for lines written alike, exactly what the decoder answers, and answers nothing for lines written
/// otherwise.
@Suite struct PlainFixLayoutTests {
    /// A producer's way of writing fixes: key order, spacing, and the time's form.
    struct Style {
        var order: [String]
        var space: String
        var quotedTime: Bool

        func line(device: String, t: String, lat: String, lon: String, accuracy: String) -> String {
            let values = ["type": "\"fix\"", "device": "\"\(device)\"", "t": quotedTime ? "\"\(t)\"" : t,
                          "lat": lat, "lon": lon, "accuracy": accuracy]
            return "{" + order.map { "\"\($0)\":" + space + values[$0]! }.joined(separator: "," + space) + "}"
        }
    }

    static let numbers = ["0", "-0", "12", "-12.5", "1e3", "1E-3", "01", "1.", ".5", "-", "48.8566", "-179.99999999999997",
                          "2.1257861594550715", "48.91905316183738", "23.70833543143861", "NaN", "1234567.25", "12345678.5",
                          "0.12345678901234567", "5"]
    static let unixTimes = ["1772352000", "1772352000.123456789", "0", "01", "0.5", "1772352000.1", "1772352000.12345678",
                            "1772352000.", "1772352000e3", "17723520001", "177235200012", "-1.5", "+5"]
    static let rfcTimes = ["2026-03-01T08:00:00Z", "2026-03-01T09:00:00.5+01:00", "yesterday", "2026-03-01T08:00:00.123456789Z"]
    static let devices = ["d1", "d6818", "é", "", "x y", "a\\\"b", "d123456789012345", "tab\there"]

    static func decode(_ text: String, padding: [UInt8], layout: PlainFixLayout?) -> (layout: String?, decoder: String?) {
        let bytes = Array(text.utf8)
        let padded = bytes + [0x0A] + padding
        return padded.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[..<bytes.count])
            func describe(_ r: (device: Range<Int>, record: PlainRecord)?) -> String? {
                r.map { "\(String(decoding: bytes[$0.device], as: UTF8.self)) \($0.record)" }
            }
            return (describe(layout?.decode(line, readable: all.count)), describe(PlainRecordDecoder.decode(line, readable: all.count)))
        }
    }

    @Test func aLearnedLayoutAnswersAsTheDecoderDoes() {
        var rng = SplitMix64(seed: 31)
        let keys = ["type", "device", "t", "lat", "lon", "accuracy"]
        var answered = 0
        for _ in 0..<40 {
            let style = Style(order: keys.shuffled(using: &rng), space: ["", " ", "\t"].randomElement(using: &rng)!,
                              quotedTime: Int.random(in: 0..<4, using: &rng) == 0)
            let other = Style(order: keys.shuffled(using: &rng), space: style.space, quotedTime: style.quotedTime)
            let learnedFrom = style.line(device: "d1", t: style.quotedTime ? "2026-03-01T08:00:00Z" : "1772352000.5",
                                         lat: "48.85", lon: "2.35", accuracy: "5")
            let layout = Array(learnedFrom.utf8).withUnsafeBufferPointer { PlainFixLayout(learning: $0) }
            #expect(layout != nil, "\(learnedFrom)")
            for _ in 0..<300 {
                let times = style.quotedTime ? Self.rfcTimes : Self.unixTimes
                let sameStyle = Int.random(in: 0..<6, using: &rng) != 0
                // One line in three has a recording's usual values and room after it: the layout must read those.
                let usual = Int.random(in: 0..<3, using: &rng) == 0
                let line = (sameStyle ? style : other).line(
                    device: usual ? "d6818" : Self.devices.randomElement(using: &rng)!,
                    t: usual ? (style.quotedTime ? Self.rfcTimes[1] : ["1772352000", "1772352000.12345678"].randomElement(using: &rng)!)
                        : times.randomElement(using: &rng)!,
                    lat: usual ? "48.91905316183738" : Self.numbers.randomElement(using: &rng)!,
                    lon: usual ? "-2.1257861594550715" : Self.numbers.randomElement(using: &rng)!,
                    accuracy: usual ? "23.70833543143861" : Self.numbers.randomElement(using: &rng)!)
                let padding = (0..<(usual ? 64 : Int.random(in: 0...40, using: &rng))).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let (byLayout, byDecoder) = Self.decode(line, padding: padding, layout: layout)
                if let byLayout {
                    answered += 1
                    #expect(byLayout == byDecoder, "\(line)")
                    // (Another key order is another layout, unless the shuffle gave the same order.)
                    #expect(sameStyle || other.order == style.order, "\(line)")
                } else if usual && sameStyle {
                    Issue.record("not read: \(line)")
                }
            }
        }
        #expect(answered > 3000)
    }

    /// A line that differs from the learned one in any byte of its text, or that ends otherwise, is not read.
    @Test func anyDifferenceInTheTextDeclines() {
        let learnedFrom = "{\"type\":\"fix\",\"device\":\"d1\",\"t\":1772352000,\"lat\":48.85,\"lon\":2.35,\"accuracy\":5}"
        let layout = Array(learnedFrom.utf8).withUnsafeBufferPointer { PlainFixLayout(learning: $0) }!
        #expect(Self.decode(learnedFrom, padding: [], layout: layout).layout != nil)
        let bytes = Array(learnedFrom.utf8)
        // Every byte of the text: the positions outside the five values.
        let values = [("device", "\"d1\""), ("t", "1772352000"), ("lat", "48.85"), ("lon", "2.35"), ("accuracy", "5")].map { key, value in
            let at = bytes.firstRange(of: Array("\"\(key)\":\(value)".utf8))!
            return at.upperBound - value.utf8.count ..< at.upperBound
        }
        for k in bytes.indices where !values.contains(where: { $0.contains(k) }) {
            for padding in [[UInt8](), [UInt8](repeating: 0x7D, count: 16)] {
                var changed = bytes
                changed[k] = bytes[k] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
                #expect(Self.decode(String(decoding: changed, as: UTF8.self), padding: padding, layout: layout).layout == nil,
                        "byte \(k)")
            }
        }
        #expect(Self.decode(learnedFrom + " ", padding: [], layout: layout).layout == nil)
        #expect(Self.decode(String(learnedFrom.dropLast()), padding: [], layout: layout).layout == nil)
        #expect(Self.decode(learnedFrom.replacingOccurrences(of: "\"fix\"", with: "\"sighting\""), padding: [],
                            layout: layout).layout == nil)
    }

    /// Records read one at a time (`next()`, which reads plain fixes through the layout it learns)
    /// equal the general parser's, in a file whose producer changes layout twice and then mixes
    /// two, with sightings among the fixes.
    @Test func oneAtATimeReadsEveryLayoutAsTheGeneralParserDoes() throws {
        var rng = SplitMix64(seed: 32)
        let keys = ["type", "device", "t", "lat", "lon", "accuracy"]
        let a = Style(order: keys, space: "", quotedTime: false), b = Style(order: keys.reversed(), space: " ", quotedTime: false)
        var lines: [String] = []
        for k in 0..<12_000 {
            let style = k < 4_000 ? a : k < 8_000 ? b : Bool.random(using: &rng) ? a : b
            if k % 97 == 0 {
                lines.append("{\"type\":\"sighting\",\"device\":\"d\(k % 13)\",\"t\":\(1_772_352_000 + k),\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"major\":1,\"minor\":2,\"rssi\":-60}")
                continue
            }
            lines.append(style.line(device: "d\(k % 13)", t: String(1_772_352_000 + k), lat: String(Double.random(in: 48...49, using: &rng)),
                                    lon: String(Double.random(in: 2...3, using: &rng)), accuracy: String(Double.random(in: 5...65, using: &rng))))
        }
        let path = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "layouts.jsonl")
        var reader = try ObservationReader(path: path)
        var k = 0
        while let next = reader.next() {
            guard case .success(let record) = next else { Issue.record("line \(k + 1) refused"); break }
            let expected = PlainRecordDecoderTests.general(lines[k])
            #expect(record.device == expected?.device && record.observation == expected?.observation, "line \(k + 1)")
            k += 1
        }
        #expect(k == lines.count)
    }

    /// Only a plain fix whose time the layout reads teaches one.
    @Test func learnsOnlyFromPlainFixes() {
        for line in ["{\"type\":\"sighting\",\"device\":\"d1\",\"t\":1,\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"major\":1,\"minor\":2,\"rssi\":-60}",
                     "{\"type\":\"fix\",\"device\":\"d1\",\"t\":1,\"lat\":1,\"lon\":2,\"accuracy\":3,\"speed\":4}",
                     "{\"type\":\"fix\",\"device\":\"d1\",\"t\":1e3,\"lat\":1,\"lon\":2,\"accuracy\":3}",
                     "{\"type\":\"fix\",\"device\":\"d\\u0031\",\"t\":1,\"lat\":1,\"lon\":2,\"accuracy\":3}"] {
            #expect(Array(line.utf8).withUnsafeBufferPointer { PlainFixLayout(learning: $0) } == nil, "\(line)")
        }
    }
}
