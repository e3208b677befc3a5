#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `ObservationReader` fuzzed against an oracle that shares no code with it: observation files in
/// many producers' styles (JSON Lines and CSV), some lines mutated, read one record at a time
/// (`next()`) and in runs of plain fixes (`readPlainFixes`, line by line and in parallel blocks);
/// every line must give the oracle's record, bit for bit, or an error on that line naming the bad
/// field — never a different record, a skipped line or a crash — and every way of reading must give
/// the same items.
///
/// The oracle: a strict RFC 8259 recogniser written here (cross-checked on every line with Foundation's
/// `JSONSerialization`, whose disagreements are printed, not assumed wrong); `Double(String)` (strtod,
/// correctly rounded) on each number's text; exact decimal arithmetic for Unix seconds; an RFC 3339
/// reader written here (dates validated, leap years, offsets; checked against `gmtime_r`); an RFC 4180
/// splitter written here. Times are kept to the nanosecond, digits past it dropped (truncated), as
/// `RFC3339` documents.
@Suite struct ReaderFuzzTests {
    // MARK: - Producers

    enum NumberStyle: CaseIterable { case shortest, integral, fixed, significant17, exponent, upperExponent, padded, long }
    enum TimeStyle: Equatable {
        case unixInteger
        case unixFraction(Int)
        /// Seconds written with an exponent (a JSON number all the same).
        case unixExponent
        case rfc3339(fraction: Int, offsetMinutes: Int?, lowercase: Bool, space: Bool)
    }

    /// One producer's way of writing records.
    struct Producer {
        var order: [String]
        var colon = ":", comma = ",", open = "{", close = "}"
        var numbers = NumberStyle.shortest
        var time = TimeStyle.unixInteger
        var escapesNonASCII = false, escapesSlash = false, escapesKeys = false, upperHex = false
        /// Percent of fixes with speed, course and altitude; of those, percent written as null.
        var optionalRate = 0, nullRate = 0
        var sightingRate = 0
        var devices: [String] = ["d1"]
        /// CSV: every cell quoted.
        var quotesAll = false
        var crlf = false
    }

    static let allKeys = ["type", "device", "t", "lat", "lon", "accuracy", "speed", "course", "altitude",
                          "uuid", "major", "minor", "rssi", "power"]
    static let plainDevices = ["d1", "d22", "truck-7", "café", "ñandú-3", "x", "phone 12", "d6818", "🛰 sat", "a:b"]
    static let fancyDevices = ["Zoë \"Z\" 4", "back\\slash", "emoji 😀 phone", "a,b", "c,\"d\"", "tab\tdev", "slash/dev", "é"]
    static let uuids = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "f7826da6-4fa2-4e98-8024-bc5b71e0893e",
                        "00000000-0000-0000-0000-000000000000"]

    static func producer(_ rng: inout SplitMix64, plain: Bool, csv: Bool) -> Producer {
        var p = Producer(order: allKeys.shuffled(using: &rng))
        if rng.chance(30) { p.order = allKeys }
        let spaces = ["", " ", "\t", "  "]
        p.colon = rng.pick(spaces) + ":" + rng.pick(spaces)
        p.comma = rng.pick(["", "", " "]) + "," + rng.pick(spaces)
        p.open = "{" + rng.pick(["", "", " "])
        p.close = rng.pick(["", "", " "]) + "}"
        p.numbers = rng.pick(NumberStyle.allCases)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: p.time = .unixInteger
        case 2, 3: p.time = .unixFraction(Int.random(in: 1...9, using: &rng))
        case 4 where !plain: p.time = .unixExponent
        default:
            p.time = .rfc3339(fraction: rng.chance(40) ? 0 : Int.random(in: 1...9, using: &rng),
                              offsetMinutes: rng.chance(50) ? nil : rng.pick([0, 60, -300, 345, -570, 840, -720, 1439, -1439, 5]),
                              lowercase: rng.chance(15), space: rng.chance(10))
        }
        p.upperHex = rng.chance(50)
        p.crlf = rng.chance(20)
        let names = plain ? plainDevices : plainDevices + fancyDevices
        p.devices = (0..<Int.random(in: 1...6, using: &rng)).map { _ in rng.pick(names) }
        if !plain {
            p.escapesNonASCII = rng.chance(40)
            p.escapesSlash = rng.chance(30)
            p.escapesKeys = rng.chance(10)
            p.optionalRate = rng.pick([0, 10, 50])
            p.nullRate = rng.pick([0, 20])
            p.sightingRate = rng.pick([0, 5, 20])
            p.quotesAll = csv && rng.chance(25)
        }
        return p
    }

    static func number(_ v: Double, _ style: NumberStyle, _ rng: inout SplitMix64) -> String {
        switch style {
        case .shortest: return "\(v)"
        case .integral:
            if v == v.rounded(), abs(v) < 1e15 { return v == 0 && v.sign == .minus ? "-0" : String(Int64(v)) }
            return "\(v)"
        case .fixed: return String(format: "%.\(Int.random(in: 1...9, using: &rng))f", v)
        case .significant17: return String(format: "%.17g", v)
        case .exponent: return String(format: "%.\(Int.random(in: 0...16, using: &rng))e", v)
        case .upperExponent: return String(format: "%.8E", v)
        case .padded: return String(format: "%.15f", v)
        case .long: return String(format: "%.\(Int.random(in: 15...24, using: &rng))f", v)
        }
    }

    /// A coordinate-like value: random to 17 digits mostly, with whole numbers, zeros of both signs,
    /// tiny values (leading zeros in the fraction) and the range's ends.
    static func value(in range: ClosedRange<Double>, _ rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: return Double(Int.random(in: Int(range.lowerBound)...Int(range.upperBound), using: &rng))
        case 1: return rng.pick([0.0, -0.0, range.lowerBound, range.upperBound])
        case 2: return Double.random(in: -0.001...0.001, using: &rng)
        case 3: return (Double.random(in: range, using: &rng) * 1e6).rounded() / 1e6
        default: return Double.random(in: range, using: &rng)
        }
    }

    /// Nanoseconds since 1970 as `style` writes them (digits past the style's are dropped).
    static func time(_ ns: Int64, _ style: TimeStyle, _ rng: inout SplitMix64) -> (text: String, quoted: Bool) {
        let negative = ns < 0
        let magnitude = ns.magnitude
        let whole = magnitude / 1_000_000_000, fraction = magnitude % 1_000_000_000
        let nine = String(format: "%09llu", UInt64(fraction))
        switch style {
        case .unixInteger:
            return ((negative && whole > 0 ? "-" : "") + String(whole), false)
        case .unixFraction(let digits):
            return ((negative ? "-" : "") + String(whole) + "." + nine.prefix(digits), false)
        case .unixExponent:
            let text = String(whole) + nine
            let significant = text.drop { $0 == "0" }
            guard !significant.isEmpty else { return ("0e0", false) }
            let exponent = significant.count - 10
            return ((negative ? "-" : "") + significant.prefix(1) + "." + significant.dropFirst().prefix(Int.random(in: 0...18, using: &rng))
                + rng.pick(["e", "E"]) + (exponent >= 0 ? rng.pick(["", "+"]) : "") + String(exponent), false)
        case .rfc3339(let digits, let offset, let lowercase, let space):
            // Floor to whole seconds for the date; the fraction is always positive.
            var seconds = ns / 1_000_000_000, nanos = ns % 1_000_000_000
            if nanos < 0 { seconds -= 1; nanos += 1_000_000_000 }
            var local = time_t(seconds + Int64((offset ?? 0) * 60))
            var fields = tm()
            gmtime_r(&local, &fields)
            var text = String(format: "%04d-%02d-%02d", Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
            text += space ? " " : lowercase ? "t" : "T"
            text += String(format: "%02d:%02d:%02d", Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec))
            if digits > 0 { text += "." + String(format: "%09lld", nanos).prefix(digits) }
            if let offset {
                let m = abs(offset)
                text += (offset < 0 || (offset == 0 && rng.chance(50)) ? "-" : "+") + String(format: "%02d:%02d", m / 60, m % 60)
            } else {
                text += lowercase ? "z" : "Z"
            }
            return (text, true)
        }
    }

    static func jsonString(_ s: String, _ p: Producer) -> String {
        var out = "\""
        func hex(_ v: UInt32) -> String { String(format: p.upperHex ? "\\u%04X" : "\\u%04x", v) }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where p.escapesSlash: out += "\\/"
            case "\t": out += p.escapesNonASCII ? hex(9) : "\\t"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += hex(scalar.value)
            case _ where scalar.value > 0x7E && p.escapesNonASCII:
                if scalar.value > 0xFFFF {
                    let v = scalar.value - 0x10000
                    out += hex(0xD800 + (v >> 10)) + hex(0xDC00 + (v & 0x3FF))
                } else {
                    out += hex(scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A record's fields as a producer writes their values: name, value text, whether it is a JSON
    /// string (else a number or literal), for JSON Lines and CSV alike.
    static func fields(_ p: Producer, ns: Int64, sighting: Bool, _ rng: inout SplitMix64) -> [(String, String, Bool)] {
        let (t, quoted) = time(ns, p.time, &rng)
        var fields: [(String, String, Bool)] = [("type", sighting ? "sighting" : "fix", true), ("device", rng.pick(p.devices), true), ("t", t, quoted)]
        if sighting {
            fields += [("uuid", rng.pick(uuids), true),
                       ("major", number(Double(Int.random(in: 0...65535, using: &rng)), rng.chance(80) ? .integral : p.numbers, &rng), false),
                       ("minor", number(Double(rng.pick([0, 1, 7, 65535, Int.random(in: 0...65535, using: &rng)])), .integral, &rng), false),
                       ("rssi", number(Double(Int.random(in: -100...0, using: &rng)), .integral, &rng), false)]
            if rng.chance(50) { fields.append(("power", number(Double(Int.random(in: -80...(-40), using: &rng)), .integral, &rng), false)) }
            return fields
        }
        fields += [("lat", number(value(in: -90...90, &rng), p.numbers, &rng), false),
                   ("lon", number(value(in: -180...180, &rng), p.numbers, &rng), false),
                   ("accuracy", number(rng.chance(5) ? -1 : rng.chance(3) ? Double.random(in: 1e6...1e10, using: &rng)
                                       : value(in: 0...200, &rng).magnitude, p.numbers, &rng), false)]
        if rng.chance(p.optionalRate) {
            for (name, range) in [("speed", 0.0...60.0), ("course", 0.0...360.0), ("altitude", -100.0...9000.0)] where rng.chance(70) {
                fields.append((name, rng.chance(p.nullRate) ? "null" : number(value(in: range, &rng), p.numbers, &rng), false))
            }
        }
        return fields
    }

    static func jsonLine(_ p: Producer, _ fields: [(String, String, Bool)], _ rng: inout SplitMix64) -> String {
        let members = fields.sorted { p.order.firstIndex(of: $0.0)! < p.order.firstIndex(of: $1.0)! }.map { name, value, quoted in
            let key = p.escapesKeys && rng.chance(50)
                ? "\"" + String(format: "\\u%04x", name.unicodeScalars.first!.value) + name.dropFirst() + "\"" : "\"" + name + "\""
            return key + p.colon + (quoted ? jsonString(value, p) : value)
        }
        return p.open + members.joined(separator: p.comma) + p.close
    }

    static func csvCell(_ text: String, quoted: Bool) -> String {
        let needs = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
        return quoted || needs ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    static func csvLine(_ p: Producer, header: [String], _ fields: [(String, String, Bool)]) -> String {
        header.map { name in
            guard let value = fields.first(where: { $0.0 == name })?.1, value != "null" else { return p.quotesAll ? "\"\"" : "" }
            return csvCell(value, quoted: p.quotesAll)
        }.joined(separator: ",")
    }

    // MARK: - Mutations

    static let jsonOddValues = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0", "\"\"", "null", "true", "false", "+1", "01",
                                "-01", ".5", "1.", "1e-400", "0x10", "\"48.5\"", "[]", "{}", "1e", "-", "- 1", "1 2", "-0.0",
                                "4.9e-324", "1.7976931348623157e308", "123456789012345678901234567890", "0.1e1", "1E+2"]
    static let csvOddValues = ["NaN", "nan", "Infinity", "inf", "1e400", "-0", "\"\"", "null", "true", "+1", "01", ".5", "1.", "0x10",
                               " 5", "5 ", "1e-400", "\"5\"", "- 1", "1e", "-0.0", "1,5", "\"1,5\"", "1_0", "0x1p-2"]
    /// Times at the edges of what RFC 3339 and 64-bit nanoseconds allow, and just past them.
    static let oddTimes = ["\"2026-02-29T00:00:00Z\"", "\"2024-02-29T23:59:60Z\"", "\"2026-03-01T08:00:00+24:00\"", "\"2026-03-01T08:00:00.Z\"",
                           "\"2026-03-01T08:00:00+01:60\"", "\"2026-03-01T08:00:00-00:00\"", "\"0000-01-01T00:00:00Z\"", "\"9999-12-31T23:59:59Z\"",
                           "\"2262-04-11T23:47:16.854775807Z\"", "\"2262-04-11T23:47:16.854775808Z\"", "\"1677-09-21T00:12:44Z\"",
                           "\"2026-03-01T08:00:00.1234567891Z\"", "\"2026-03-01T08:00:00.000000000999Z\"", "\"2026-03-01T08:00:00\"",
                           "\"2026-03-01T08:00Z\"", "\"2026-03-01t08:00:00z\"", "\"1900-02-29T00:00:00Z\"", "\"2000-02-29T12:00:00+14:00\"",
                           "\"2026-03-01T08:00:00+05:30\"", "\"2026-03-01T08:00:00.5-09:30\"", "\"2026-03-01T08:00:00,5Z\"",
                           "10000000000", "9223372036", "9223372036.854775807", "9223372036.854775808", "-9223372036.854775807",
                           "-9223372036.854775808", "99999999999", "1e10", "-0", "0.0000000001", "-0.0000000005", "1772352000.123456789123",
                           "1772352000.99999999", "177235200.5", "17723520001", "1.7723520001e9", "1772352000e0", "0e400", "01772352000"]
    static let interestingBytes: [UInt8] = Array("0123456789-+.eE\"\\,{}[]: \taZ".utf8) + [0x0D, 0x0A, 0x00, 0x7F, 0xFF, 0xC3, 0xA9, 0x80, 0xEF]

    /// One random byte-level change.
    static func mutateBytes(_ line: inout [UInt8], _ rng: inout SplitMix64) {
        guard !line.isEmpty else { return }
        let k = Int.random(in: 0..<line.count, using: &rng)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: line[k] ^= 1 << UInt8.random(in: 0...7, using: &rng)
        case 1: line[k] = rng.pick(interestingBytes)
        case 2: line.remove(at: k)
        case 3: line.insert(line[k], at: k)
        case 4: line.insert(rng.pick(interestingBytes), at: k)
        case 5: line.removeSubrange(k...)
        default: mutateDigit(&line, &rng)
        }
    }

    /// A digit for another: mostly still a record, with another value.
    static func mutateDigit(_ line: inout [UInt8], _ rng: inout SplitMix64, leading: Bool = true) {
        let digits = line.indices.filter { (48...57).contains(line[$0]) && (leading || ($0 > 0 && (48...57).contains(line[$0 - 1]))) }
        if let d = digits.isEmpty ? nil : rng.pick(digits) { line[d] = UInt8.random(in: 48...57, using: &rng) }
    }

    /// A record line, perhaps mutated (`rate` percent of lines), as bytes without its newline.
    static func recordLine(_ p: Producer, csvHeader: [String]?, ns: Int64, rate: Int, _ rng: inout SplitMix64) -> [UInt8] {
        let sighting = rng.chance(p.sightingRate) && (csvHeader?.contains("uuid") ?? true)
        var fields = fields(p, ns: ns, sighting: sighting, &rng)
        let mutated = rng.chance(rate)
        let kind = mutated ? Int.random(in: 0..<10, using: &rng) : -1
        if let header = csvHeader {
            fields.removeAll { !header.contains($0.0) }
            if kind == 0 || kind == 1 {
                // A value replaced, written raw (quotes and commas as the odd value has them).
                let k = Int.random(in: 0..<fields.count, using: &rng)
                var odd = rng.pick(csvOddValues)
                if fields[k].0 == "t" && rng.chance(70) { odd = rng.pick(oddTimes).replacingOccurrences(of: "\"", with: "") }
                let cells = header.map { name -> String in
                    guard let index = fields.firstIndex(where: { $0.0 == name }) else { return p.quotesAll ? "\"\"" : "" }
                    if index == k { return odd }
                    return fields[index].1 == "null" ? "" : csvCell(fields[index].1, quoted: p.quotesAll)
                }
                return Array(cells.joined(separator: ",").utf8)
            }
            var line = Array(csvLine(p, header: header, fields).utf8)
            switch kind {
            case 2: line += Array(",".utf8)  // a cell too many
            case 3: if let comma = line.lastIndex(of: UInt8(ascii: ",")) { line.removeSubrange(comma...) }  // one too few
            case 4:
                // The device quoted, with a line break inside: one RFC 4180 record on two lines.
                let device = "multi\nline " + rng.pick(p.devices)
                fields[1].1 = device
                line = Array(csvLine(p, header: header, fields).utf8)
            case 5, 6, 7, 8, 9: mutateBytes(&line, &rng)
            default: break
            }
            return line
        }
        var text: String
        switch kind {
        case 0, 1:
            let k = Int.random(in: 0..<fields.count, using: &rng)
            fields[k] = (fields[k].0, rng.pick(fields[k].0 == "t" && rng.chance(70) ? oddTimes : jsonOddValues), false)
            text = jsonLine(p, fields, &rng)
        case 2:
            // A key twice: with the same value, or another.
            let k = Int.random(in: 0..<fields.count, using: &rng)
            var copy = fields[k]
            if rng.chance(50) { copy.1 = copy.2 ? "other" : "12.5" }
            let member = "\"" + copy.0 + "\":" + (copy.2 ? jsonString(copy.1, p) : copy.1)
            text = jsonLine(p, fields, &rng)
            text = rng.chance(50) ? String(text.dropLast()) + "," + member + "}" : "{" + member + "," + text.dropFirst()
        default:
            text = jsonLine(p, fields, &rng)
        }
        var line = Array(text.utf8)
        if kind >= 3 { mutateBytes(&line, &rng) }
        if kind >= 7 { mutateBytes(&line, &rng) }
        return line
    }

    /// A file's bytes: segments of different producers, the last one mixing two; some lines mutated,
    /// some blank or only spaces, some with spaces after them, CRLF endings for some producers.
    static func file(csv: Bool, lines count: Int, segments: Int, rate: Int, plainSegments: Bool, bom: Bool,
                     finalNewline: Bool, _ rng: inout SplitMix64) -> (bytes: [UInt8], header: [String]?) {
        var header: [String]?
        if csv {
            var columns = ["type", "device", "t", "lat", "lon", "accuracy"]
            if rng.chance(70) { columns += ["speed", "course", "altitude"] }
            if rng.chance(70) { columns += ["uuid", "major", "minor", "rssi", "power"] }
            header = columns.shuffled(using: &rng)
        }
        var out: [UInt8] = bom ? [0xEF, 0xBB, 0xBF] : []
        if let header { out += Array(header.joined(separator: ",").utf8) + [0x0A] }
        var producers = (0..<segments).map { _ in producer(&rng, plain: false, csv: csv) }
        if plainSegments {
            // Every other segment plain fixes only, as a long run in a real recording.
            for k in stride(from: 0, to: segments, by: 2) { producers[k] = producer(&rng, plain: true, csv: csv) }
        }
        var ns = rng.chance(50) ? Int64(1_772_352_000) * 1_000_000_000 : Int64.random(in: -2_000_000_000...4_000_000_000, using: &rng) * 1_000_000_000
        let edges: [Int64] = [1_709_208_000_000_000_000, 951_782_400_000_000_000, -2_203_891_200_000_000_000, 0, -1, -1_500_000_000,
                              .max, .min + 1_000_000_000, .min + 1, .min + 500_000_000, 2_147_483_648_000_000_000, 4_107_542_400_000_000_000, 1_772_352_000_999_999_999]
        // Where each segment starts: equal shares, or short stretches of everything between long plain runs.
        var starts = (0..<segments).map { $0 * count / segments }
        if plainSegments {
            let dirty = 1_500, clean = (count - segments / 2 * dirty) / ((segments + 1) / 2)
            starts = (0..<segments).map { k in (k + 1) / 2 * clean + k / 2 * dirty }
        }
        for k in 0..<count {
            let segment = starts.lastIndex { $0 <= k }!
            let clean = plainSegments && segment % 2 == 0
            // A plain segment's last 3,000 lines have, rarely, a line changed or an extreme time; the
            // lines before, none: a run longer than a parallel block's worth, whatever came before.
            let end = segment + 1 < segments ? starts[segment + 1] : count
            let pristine = clean && end - k > 3_000
            var p = producers[segment]
            if segment == segments - 1 && segments > 1 && rng.chance(50) { p = producers[segment - 1] }
            ns = ns &+ Int64.random(in: 0...3_000_000_000, using: &rng)
            let t = !pristine && Int.random(in: 0..<(clean ? 1000 : 100), using: &rng) == 0 ? rng.pick(edges) : ns
            var line: [UInt8]
            if !clean && rng.chance(2) {
                line = Array(rng.pick(["", "   ", "\t", " \t ", "\r", "\u{0B}", " \r "]).utf8)
            } else {
                line = recordLine(p, csvHeader: header, ns: t, rate: clean ? 0 : rate, &rng)
                // Plain runs: now and then a digit changed (still a plain fix, mostly), rarely anything.
                if clean && !pristine && Int.random(in: 0..<300, using: &rng) == 0 { mutateDigit(&line, &rng, leading: false) }
                if clean && !pristine && Int.random(in: 0..<1000, using: &rng) == 0 { mutateBytes(&line, &rng) }
                if !clean && rng.chance(2) { line += Array(rng.pick([" ", "  ", "\t", " \t"]).utf8) }
            }
            out += line
            if k < count - 1 || finalNewline { out += p.crlf ? [0x0D, 0x0A] : [0x0A] }
        }
        return (out, header)
    }

    // MARK: - The oracle: JSON (RFC 8259)

    indirect enum JSON {
        case null, bool(Bool), number(String), string(String), array([JSON]), object([(key: String, value: JSON, raw: ArraySlice<UInt8>)])
    }

    /// A strict RFC 8259 recogniser: UTF-8 only, no BOM, no trailing commas, no control characters
    /// in strings, paired surrogates, the number grammar exactly.
    struct StrictJSON {
        let b: [UInt8]
        var i = 0

        static func parse(_ bytes: [UInt8]) -> JSON? {
            var p = StrictJSON(b: bytes)
            p.space()
            guard let v = p.value(depth: 0) else { return nil }
            p.space()
            return p.i == bytes.count ? v : nil
        }

        var current: UInt8? { i < b.count ? b[i] : nil }

        mutating func space() {
            while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) -> JSON? {
            guard depth < 64, let c = current else { return nil }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["):
                i += 1
                space()
                var elements: [JSON] = []
                if current == UInt8(ascii: "]") { i += 1; return .array([]) }
                while true {
                    space()
                    guard let e = value(depth: depth + 1) else { return nil }
                    elements.append(e)
                    space()
                    if current == UInt8(ascii: ",") { i += 1; continue }
                    guard current == UInt8(ascii: "]") else { return nil }
                    i += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        mutating func object(depth: Int) -> JSON? {
            i += 1
            space()
            var members: [(key: String, value: JSON, raw: ArraySlice<UInt8>)] = []
            if current == UInt8(ascii: "}") { i += 1; return .object([]) }
            while true {
                space()
                guard current == UInt8(ascii: "\""), let key = string() else { return nil }
                space()
                guard current == UInt8(ascii: ":") else { return nil }
                i += 1
                space()
                let start = i
                guard let v = value(depth: depth + 1) else { return nil }
                members.append((key, v, b[start..<i]))
                space()
                if current == UInt8(ascii: ",") { i += 1; continue }
                guard current == UInt8(ascii: "}") else { return nil }
                i += 1
                return .object(members)
            }
        }

        mutating func literal(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { return false }
            i += w.count
            return true
        }

        mutating func digits() -> Int {
            let start = i
            while let c = current, (48...57).contains(c) { i += 1 }
            return i - start
        }

        mutating func number() -> JSON? {
            let start = i
            if current == UInt8(ascii: "-") { i += 1 }
            guard let first = current, (48...57).contains(first) else { return nil }
            if first == UInt8(ascii: "0") { i += 1 } else { _ = digits() }
            if current == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return nil }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                i += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return nil }
            }
            return .number(String(decoding: b[start..<i], as: UTF8.self))
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let d = Character(Unicode.Scalar(b[i])).hexDigitValue else { return nil }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        /// The string at `i` (its opening quote), decoded; `nil` if it breaks a rule.
        mutating func string() -> String? {
            i += 1
            var out: [UInt8] = []
            while true {
                guard let c = current else { return nil }
                i += 1
                switch c {
                case UInt8(ascii: "\""): return String(validating: out, as: UTF8.self)
                case 0..<0x20: return nil
                case UInt8(ascii: "\\"):
                    guard let e = current else { return nil }
                    i += 1
                    let simple: [UInt8: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09]
                    if let s = simple[e] { out.append(s); continue }
                    guard e == UInt8(ascii: "u"), let high = hex4() else { return nil }
                    var scalar = high
                    if (0xD800..<0xDC00).contains(high) {
                        guard current == UInt8(ascii: "\\"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "u") else { return nil }
                        i += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { return nil }
                    out += Array(String(Character(u)).utf8)
                default: out.append(c)
                }
            }
        }
    }

    // MARK: - The oracle: numbers and times

    /// `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?` with JSON's rule against leading zeros: a JSON number.
    static func isJSONNumber(_ s: String) -> Bool {
        let b = Array(s.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        let start = i
        guard digits() > 0 else { return false }
        if b[start] == UInt8(ascii: "0"), i - start > 1 { return false }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }

    enum Instant: Equatable {
        case ns(Int64)
        /// A leap second (`:60`): valid RFC 3339 that a count of nanoseconds cannot hold; read as the next second, if at all.
        case leap(Int64)
        case outOfRange
        case invalid
    }

    /// A decimal number of seconds (sign, digits either side of an optional point, an optional
    /// exponent) to nanoseconds exactly, digits past the nanosecond dropped.
    static func exactSeconds(_ s: String) -> Instant {
        let b = Array(s.utf8)
        var i = 0, negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") { negative = b[i] == UInt8(ascii: "-"); i += 1 }
        var digits: [UInt8] = [], point = 0
        while i < b.count, (48...57).contains(b[i]) { digits.append(b[i] - 48); i += 1 }
        point = digits.count
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, (48...57).contains(b[i]) { digits.append(b[i] - 48); i += 1 }
        }
        guard !digits.isEmpty else { return .invalid }
        var exponent = 0
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var sign = 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { sign = b[i] == UInt8(ascii: "-") ? -1 : 1; i += 1 }
            let start = i
            while i < b.count, (48...57).contains(b[i]) { exponent = min(exponent * 10 + Int(b[i] - 48), 100_000); i += 1 }
            guard i > start else { return .invalid }
            exponent *= sign
        }
        guard i == b.count else { return .invalid }
        guard let firstNonZero = digits.firstIndex(where: { $0 != 0 }) else { return .ns(0) }
        digits.removeFirst(firstNonZero)
        point -= firstNonZero
        // The digits before the point once the value is in nanoseconds.
        let whole = point + exponent + 9
        guard whole > 0 else { return .ns(0) }
        guard whole <= 20 else { return .outOfRange }
        var magnitude: Int128 = 0
        for k in 0..<whole { magnitude = magnitude * 10 + Int128(k < digits.count ? digits[k] : 0) }
        let value = negative ? -magnitude : magnitude
        guard value >= Int128(Int64.min), value <= Int128(Int64.max) else { return .outOfRange }
        return .ns(Int64(value))
    }

    /// RFC 3339 §5.6 `date-time` (with its note's lowercase `t`/`z` and a space for `T`), to nanoseconds.
    static func rfc3339(_ s: String) -> Instant {
        let b = Array(s.utf8)
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var v = 0
            for k in i..<(i + count) {
                guard (48...57).contains(b[k]) else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += count
            return v
        }
        func expect(_ bytes: String) -> Bool {
            guard i < b.count, bytes.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("Tt "),
              let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2) else { return .invalid }
        var fraction: Int128 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var count = 0
            while i < b.count, (48...57).contains(b[i]) {
                if count < 9 { fraction = fraction * 10 + Int128(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return .invalid }
            for _ in min(count, 9)..<9 { fraction *= 10 }
        }
        var offset = 0
        if expect("Zz") {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh <= 23, om <= 59 else { return .invalid }
            offset = sign * (oh * 60 + om) * 60
        } else {
            return .invalid
        }
        guard i == b.count else { return .invalid }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= monthDays[month - 1], hour <= 23, minute <= 59, second <= 60 else {
            return .invalid
        }
        // Days since 0000-03-01 of the proleptic Gregorian calendar, by whole years and months.
        func days(_ y: Int, _ m: Int, _ d: Int) -> Int {
            let (yy, mm) = m >= 3 ? (y, m - 3) : (y - 1, m + 9)
            func floorDiv(_ a: Int, _ n: Int) -> Int { a >= 0 ? a / n : -((-a + n - 1) / n) }
            return 365 * yy + floorDiv(yy, 4) - floorDiv(yy, 100) + floorDiv(yy, 400) + (153 * mm + 2) / 5 + d - 1
        }
        let seconds = Int128(days(year, month, day) - days(1970, 1, 1)) * 86_400 + Int128(hour * 3600 + minute * 60 + second - offset)
        let ns = seconds * 1_000_000_000 + fraction
        guard ns >= Int128(Int64.min), ns <= Int128(Int64.max) else { return .outOfRange }
        return second == 60 ? .leap(Int64(ns)) : .ns(Int64(ns))
    }

    // MARK: - The oracle: what a line must give

    indirect enum Verdict {
        /// Exactly this record.
        case record(String, Observation)
        /// An error on the line, naming one of these fields (`nil`: any field or none).
        case error(Set<String>?)
        /// Input the contract leaves open (a BOM, a leap second): an error naming one of
        /// the fields, or exactly this record.
        case recordOrError(String, Observation, Set<String>?)
        /// Only spaces: nothing, or an error.
        case nothingOrError
        /// A line inside a CSV record that began on an earlier line: nothing, an error, or what the
        /// line would give on its own.
        case continuation(Verdict?)
        /// A record type the generator never writes: not checked.
        case unchecked
    }

    struct Expectation {
        var verdict: Verdict
        var why: String
    }

    /// A field's value as the oracle sees it.
    enum FieldValue {
        case json(JSON)
        /// A CSV cell's bytes (unquoted).
        case cell([UInt8])
    }

    enum Converted<T> {
        case ok(T)
        /// Not what the contract's formats say, but unambiguous: accepting it with this value is fine.
        case lax(T)
        case bad(String)
    }

    static func text(_ v: FieldValue) -> Converted<String> {
        switch v {
        case .json(.string(let s)): return .ok(s)
        case .json(let other): return .bad("\(other) is not a string")
        case .cell(let bytes):
            guard let s = String(validating: bytes, as: UTF8.self) else { return .bad("the cell is not UTF-8: \(bytes)") }
            return .ok(s)
        }
    }

    static func double(_ v: FieldValue) -> Converted<Double?> {
        switch v {
        case .json(.number(let t)):
            let d = Double(t)!
            return d.isFinite ? .ok(d) : .bad("\(t) is beyond Double's range")
        case .json(let other): return .bad("\(other) is not a number")
        case .cell(let bytes):
            guard let s = String(validating: bytes, as: UTF8.self) else { return .bad("not UTF-8") }
            // A CSV number is written as JSON writes one (README): `+1`, `.5`, `01`, `0x10` are errors.
            guard isJSONNumber(s) else { return .bad("\"\(s)\" is not a JSON number") }
            let d = Double(s)!
            return d.isFinite ? .ok(d) : .bad("\(s) is beyond Double's range")
        }
    }

    static func time(_ v: FieldValue) -> Converted<Int64> {
        func instant(_ i: Instant, _ text: String) -> Converted<Int64> {
            switch i {
            case .ns(let ns): return .ok(ns)
            case .leap(let ns): return .lax(ns)
            case .outOfRange: return .bad("\(text) is outside 64-bit nanoseconds")
            case .invalid: return .bad("\(text) is neither RFC 3339 nor Unix seconds")
            }
        }
        switch v {
        case .json(.number(let t)): return instant(exactSeconds(t), t)
        case .json(.string(let s)): return instant(rfc3339(s), s)
        case .json(let other): return .bad("\(other) is not a time")
        case .cell(let bytes):
            guard let s = String(validating: bytes, as: UTF8.self) else { return .bad("not UTF-8") }
            if isJSONNumber(s) { return instant(exactSeconds(s), s) }
            return instant(rfc3339(s), s)
        }
    }

    /// A record's fields (JSON members in order, or a CSV row's non-empty cells) → what the reader must give.
    static func decide(_ members: [(key: String, value: FieldValue, raw: ArraySlice<UInt8>)]) -> Expectation {
        var bad: [String: String] = [:], lax: [String: String] = [:]
        var first: [String: FieldValue] = [:], seen: [String: ArraySlice<UInt8>] = [:]
        var keys: [String] = []
        for m in members {
            if let earlier = seen[m.key] {
                if Array(earlier) == Array(m.raw) { lax[m.key] = "named twice, with the same value" }
                else { bad[m.key] = "named twice, with different values" }
                continue
            }
            seen[m.key] = m.raw
            if case .json(.null) = m.value { continue }  // null: absent
            first[m.key] = m.value
            keys.append(m.key)
        }
        func note<T>(_ name: String, _ c: Converted<T>) -> T? {
            switch c {
            case .ok(let v): return v
            case .lax(let v): lax[name] = "lax"; return v
            case .bad(let why): bad[name] = why; return nil
            }
        }
        func required<T>(_ name: String, _ convert: (FieldValue) -> Converted<T?>) -> T? {
            guard let v = first[name] else { bad[name] = "missing"; return nil }
            guard let value = note(name, convert(v)) else { return nil }
            if value == nil { bad[name] = "missing" }
            return value
        }
        func optional<T>(_ name: String, _ convert: (FieldValue) -> Converted<T?>) -> T? {
            guard let v = first[name] else { return nil }
            return note(name, convert(v)) ?? nil
        }
        func integer(_ name: String, _ range: ClosedRange<Int>, strict: ClosedRange<Int>, mandatory: Bool) -> Int? {
            guard let d = mandatory ? required(name, double) : optional(name, double) else { return nil }
            guard d == d.rounded(), abs(d) < 1e9 else { bad[name] = "\(d) is not an integer"; return nil }
            let v = Int(d)
            if !range.contains(v) { bad[name] = "\(v) is outside \(range)"; return nil }
            if !strict.contains(v) { lax[name] = "\(v) is outside \(strict)" }
            return v
        }
        let type = first["type"].flatMap { note("type", text($0)) }
        if first["type"] == nil { bad["type"] = "missing" }
        let device = first["device"].flatMap { note("device", text($0)) }
        if first["device"] == nil { bad["device"] = "missing" }
        if device == "" { lax["device"] = "empty" }
        let t = first["t"].flatMap { note("t", time($0)) }
        if first["t"] == nil { bad["t"] = "missing" }
        let allowed: Set<String>
        var observation: Observation?
        switch type {
        case "fix":
            allowed = ["type", "device", "t", "lat", "lon", "accuracy", "speed", "course", "altitude"]
            let lat = required("lat", double), lon = required("lon", double), accuracy = required("accuracy", double)
            let speed = optional("speed", double), course = optional("course", double), altitude = optional("altitude", double)
            if let t, let lat, let lon, let accuracy {
                observation = .fix(Fix(time: Timestamp(nanosecondsSinceEpoch: t), coordinate: Coordinate(latitude: lat, longitude: lon),
                                       horizontalAccuracy: accuracy, speed: speed, course: course, altitude: altitude))
            }
        case "sighting":
            allowed = ["type", "device", "t", "uuid", "major", "minor", "rssi", "power"]
            var uuid: UUID?
            if let v = first["uuid"] {
                if let s = note("uuid", text(v)) {
                    uuid = UUID(uuidString: s)
                    if uuid == nil { bad["uuid"] = "\"\(s)\" is not a UUID" }
                }
            } else {
                bad["uuid"] = "missing"
            }
            let major = integer("major", 0...65535, strict: 0...65535, mandatory: true)
            let minor = integer("minor", 0...65535, strict: 0...65535, mandatory: true)
            let rssi = integer("rssi", -1_000_000...1_000_000, strict: -200...0, mandatory: true)
            let power = integer("power", -1_000_000...1_000_000, strict: -200...50, mandatory: false)
            if let t, let uuid, let major, let minor, let rssi {
                observation = .sighting(BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: t),
                                                       identity: BeaconIdentity(uuid: uuid, major: UInt16(major), minor: UInt16(minor)),
                                                       rssi: rssi, measuredPower: power ?? -59))
            }
        case "app", "request", "answer", "settings", "session":
            return Expectation(verdict: .unchecked, why: "a \(type!) record")
        default:
            allowed = []
            if type != nil { bad["type"] = "unknown type \(type!.debugDescription)" }
        }
        if type == "fix" || type == "sighting" {
            for key in keys where !allowed.contains(key) { bad[key] = "not a field of a \(type!)" }
        }
        if !bad.isEmpty {
            return Expectation(verdict: .error(Set(bad.keys).union(lax.keys)),
                               why: bad.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        }
        guard let observation, let device else { return Expectation(verdict: .error(nil), why: "incomplete") }
        if !lax.isEmpty {
            return Expectation(verdict: .recordOrError(device, observation, Set(lax.keys)),
                               why: lax.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        }
        return Expectation(verdict: .record(device, observation), why: "valid")
    }

    static func isSpace(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }
    }

    /// The file's lines as the oracle numbers them: split at LF, a CR before it dropped.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> [UInt8] in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }
        if bytes.last == 0x0A { lines.removeLast() }
        return lines
    }

    static func jsonExpectations(_ lines: [[UInt8]], notes: inout Notes) -> [Expectation?] {
        lines.enumerated().map { k, raw in
            var line = raw
            let bom = k == 0 && line.starts(with: [0xEF, 0xBB, 0xBF])
            if bom { line.removeFirst(3) }
            let parsed = StrictJSON.parse(line)
            notes.crossCheck(raw, bom ? StrictJSON.parse(raw) : parsed)
            if isSpace(line) { return Expectation(verdict: .nothingOrError, why: "only spaces") }
            guard let parsed else { return Expectation(verdict: .error(nil), why: "not JSON (RFC 8259)") }
            guard case .object(let members) = parsed else { return Expectation(verdict: .error(nil), why: "not a JSON object") }
            var e = decide(members.map { ($0.key, .json($0.value), $0.raw) })
            if bom, case .record(let d, let o) = e.verdict {
                e = Expectation(verdict: .recordOrError(d, o, nil), why: "a UTF-8 BOM before the first line (RFC 8259 §8.1: may be ignored)")
            }
            return e
        }
    }

    enum Row {
        case cells([[UInt8]], crInCell: Bool)
        /// A quoted cell went on past the line's end: the record's cells, and its last line.
        case spans([[UInt8]], last: Int)
        case invalid(String)
    }

    /// RFC 4180: cells separated by commas; a cell either has no quote, comma or line break, or is
    /// quoted with `""` for a quote inside, and may then hold line breaks.
    static func row(_ lines: [[UInt8]], at k: Int, singleLine: Bool) -> Row {
        var cells: [[UInt8]] = [], li = k, line = lines[k], i = 0, cr = false
        while true {
            var cell: [UInt8] = []
            if i < line.count, line[i] == UInt8(ascii: "\"") {
                i += 1
                while true {
                    if i == line.count {
                        guard !singleLine, li + 1 < lines.count else { return .invalid("a quoted cell not closed") }
                        li += 1
                        line = lines[li]
                        i = 0
                        cell.append(0x0A)
                        continue
                    }
                    if line[i] == UInt8(ascii: "\"") {
                        if i + 1 < line.count, line[i + 1] == UInt8(ascii: "\"") { cell.append(line[i]); i += 2; continue }
                        i += 1
                        break
                    }
                    cell.append(line[i])
                    i += 1
                }
                guard i == line.count || line[i] == UInt8(ascii: ",") else { return .invalid("text after a closing quote") }
            } else {
                while i < line.count, line[i] != UInt8(ascii: ",") {
                    if line[i] == UInt8(ascii: "\"") { return .invalid("a quote in an unquoted cell") }
                    if line[i] == 0x0D { cr = true }
                    cell.append(line[i])
                    i += 1
                }
            }
            cells.append(cell)
            if i == line.count { break }
            i += 1
        }
        return li > k ? .spans(cells, last: li) : .cells(cells, crInCell: cr)
    }

    static func csvRecord(_ cells: [[UInt8]], header: [String], crInCell: Bool) -> Expectation {
        guard cells.count == header.count else {
            return Expectation(verdict: .error(nil), why: "\(cells.count) cells, the header has \(header.count)")
        }
        var e = decide(zip(header, cells).filter { !$0.1.isEmpty }.map { ($0.0, .cell($0.1), ArraySlice($0.1)) })
        if crInCell, case .record(let d, let o) = e.verdict {
            e = Expectation(verdict: .recordOrError(d, o, nil), why: "a CR inside an unquoted cell")
        }
        return e
    }

    static func csvExpectations(_ lines: [[UInt8]], header: [String]) -> [Expectation?] {
        var out = [Expectation?](repeating: nil, count: lines.count)
        var k = 1
        while k < lines.count {
            defer { k += 1 }
            if isSpace(lines[k]) { out[k] = Expectation(verdict: .nothingOrError, why: "only spaces"); continue }
            switch row(lines, at: k, singleLine: false) {
            case .invalid(let why): out[k] = Expectation(verdict: .error(nil), why: why)
            case .cells(let cells, let cr): out[k] = csvRecord(cells, header: header, crInCell: cr)
            case .spans(let cells, let last):
                guard cells.count == header.count else {
                    out[k] = Expectation(verdict: .error(nil), why: "a quoted cell not closed on its line")
                    continue
                }
                // RFC 4180 allows it; the reader documents that a quoted cell may not span lines: an error, then.
                out[k] = Expectation(verdict: .error(nil), why: "a quoted cell with a line break (the reader's documented limit)")
                for j in (k + 1)...last {
                    let alone: Verdict? = switch row(lines, at: j, singleLine: true) {
                    case .cells(let cells, let cr): csvRecord(cells, header: header, crInCell: cr).verdict
                    default: nil
                    }
                    out[j] = Expectation(verdict: .continuation(alone), why: "inside the record of line \(k + 1)")
                }
                k = last
            }
        }
        return out
    }

    // MARK: - Foundation's JSONSerialization, cross-checked

    /// Where `JSONSerialization` and the strict recogniser disagree: noted, counted, printed.
    struct Notes {
        var counts: [String: Int] = [:]
        var samples: [String: String] = [:]

        mutating func note(_ what: String, _ line: [UInt8]) {
            counts[what, default: 0] += 1
            if samples[what] == nil { samples[what] = ReaderFuzzTests.literal(line) }
        }

        mutating func crossCheck(_ line: [UInt8], _ strict: JSON?) {
            let foundation = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
            switch (strict, foundation) {
            case (nil, nil): return
            case (nil, _?):
                let text = String(decoding: line, as: UTF8.self)
                note(line.starts(with: [0xEF, 0xBB, 0xBF]) ? "JSONSerialization accepts a UTF-8 BOM (RFC 8259 lets a parser ignore it)"
                     : text.range(of: #",\s*[}\]]"#, options: .regularExpression) != nil ? "JSONSerialization accepts a trailing comma (RFC 8259 forbids)"
                     : "JSONSerialization accepts what RFC 8259 forbids (other)", line)
            case (_?, nil):
                note(String(decoding: line, as: UTF8.self).range(of: #"[0-9][eE]\+?[0-9]{3}"#, options: .regularExpression) != nil
                     ? "JSONSerialization refuses a number beyond Double's range (1e400; RFC 8259 allows it)"
                     : "JSONSerialization refuses valid RFC 8259 (other)", line)
            case (.object(let members)?, let object?):
                guard let dictionary = object as? [String: Any] else { note("JSONSerialization: not a dictionary", line); return }
                for (key, value, _) in members {
                    guard let theirs = dictionary[key] else { note("JSONSerialization lost a key", line); continue }
                    if members.filter({ $0.key == key }).count > 1 {
                        if members.last(where: { $0.key == key })!.raw != members.first(where: { $0.key == key })!.raw {
                            note("duplicate key with different values: JSONSerialization keeps the last (RFC 8259: unpredictable)", line)
                        }
                        continue
                    }
                    switch value {
                    case .string(let s):
                        if (theirs as? String).map({ Array($0.unicodeScalars) == Array(s.unicodeScalars) }) != true {
                            note("JSONSerialization decodes a string otherwise", line)
                        }
                    case .number(let t):
                        let ours = Double(t)!
                        guard let n = theirs as? NSNumber else { note("JSONSerialization: a number is not an NSNumber", line); continue }
                        if n.doubleValue.bitPattern != ours.bitPattern {
                            if ours == 0 && n.doubleValue == 0 {
                                note("JSONSerialization drops the sign of an integer -0", line)
                            } else if n is NSDecimalNumber {
                                note("JSONSerialization's NSDecimalNumber.doubleValue is not correctly rounded", line)
                            } else {
                                note("JSONSerialization rounds a number otherwise than strtod", line)
                            }
                        }
                    default: break
                    }
                }
            case (_?, _?): return
            }
        }

        func report(_ label: String) {
            for (what, count) in counts.sorted(by: { $0.key < $1.key }) {
                print("[\(label)] oracle note ×\(count): \(what), e.g. \(samples[what]!)")
            }
        }
    }

    /// A line as a Swift string literal (or its bytes, when it is not UTF-8).
    static func literal(_ line: [UInt8]) -> String {
        guard let s = String(validating: line, as: UTF8.self) else { return "bytes \(line)" }
        return s.debugDescription
    }

    // MARK: - Reading

    struct Item {
        enum Outcome {
            case record(String, Observation)
            case error(InputError)
        }
        var line: Int
        var outcome: Outcome
    }

    static func item(_ next: Result<ObservationRecord, InputError>) -> Item {
        switch next {
        case .success(let r): Item(line: r.line, outcome: .record(r.device, r.observation))
        case .failure(let e): Item(line: e.line ?? -1, outcome: .error(e))
        }
    }

    /// Every record and error `next()` gives, checking the reader's device numbers and current line on the way.
    static func oneAtATime(_ path: String, format: ObservationFormat? = nil) throws -> [Item] {
        var reader = try ObservationReader(path: path, format: format)
        var items: [Item] = []
        while let next = reader.next() {
            if case .success(let r) = next {
                #expect(reader.deviceName(r.deviceNumber) == r.device && reader.currentLine == r.line, "line \(r.line)")
            }
            items.append(item(next))
        }
        return items
    }

    /// Runs of plain fixes (`readPlainFixes`, as the public API or as the engine's records), `next()`
    /// wherever a run stops. `threads` 0: a thread count drawn for every run. Also the longest run.
    static func inRuns(_ path: String, threads: Int, engineRecords: Bool, seed: UInt64) throws -> (items: [Item], longest: Int) {
        var reader = try ObservationReader(path: path)
        reader.threads = max(1, threads)
        var rng = SplitMix64(seed: seed)
        var items: [Item] = [], longest = 0
        var run: [PlainFixRecord] = [], records: [FixRecord] = [], ids: [DeviceID] = [], names: [Int32: String] = [:]
        while true {
            let limit = rng.chance(70) ? Int.random(in: 4096...60_000, using: &rng) : Int.random(in: 1...5000, using: &rng)
            if threads == 0 { reader.threads = Int.random(in: 1...4, using: &rng) }
            let n: Int
            if engineRecords {
                let before = records.count
                n = reader.readPlainFixes(into: &records, limit: limit, deviceIDs: &ids) { number, name in
                    let id = DeviceID(index: 5 + 3 * number)
                    names[id.index] = name
                    return id
                }
                #expect(records.count == before + n)
                items += records[before...].map { Item(line: $0.cause, outcome: .record(names[$0.device.index] ?? "<unnamed>", .fix($0.fix))) }
            } else {
                run.removeAll(keepingCapacity: true)
                n = reader.readPlainFixes(into: &run, limit: limit)
                #expect(run.count == n)
                items += run.map { Item(line: $0.line, outcome: .record(reader.deviceName($0.deviceNumber), .fix($0.fix))) }
            }
            #expect(n <= limit)
            longest = max(longest, n)
            if n > 0 { continue }
            guard let next = reader.next() else { break }
            items.append(item(next))
        }
        return (items, longest)
    }

    // MARK: - Comparing

    static func bits(_ d: Double?) -> UInt64? { d?.bitPattern }

    /// Where two observations differ, bit for bit (`nil`: nowhere).
    static func difference(_ a: Observation, _ b: Observation) -> String? {
        switch (a, b) {
        case (.fix(let x), .fix(let y)):
            var d: [String] = []
            if x.time != y.time { d.append("t \(x.time.nanosecondsSinceEpoch) ≠ \(y.time.nanosecondsSinceEpoch) ns") }
            if bits(x.coordinate.latitude) != bits(y.coordinate.latitude) { d.append("lat \(x.coordinate.latitude) ≠ \(y.coordinate.latitude)") }
            if bits(x.coordinate.longitude) != bits(y.coordinate.longitude) { d.append("lon \(x.coordinate.longitude) ≠ \(y.coordinate.longitude)") }
            if bits(x.horizontalAccuracy) != bits(y.horizontalAccuracy) { d.append("accuracy \(x.horizontalAccuracy) ≠ \(y.horizontalAccuracy)") }
            if bits(x.speed) != bits(y.speed) { d.append("speed \(String(describing: x.speed)) ≠ \(String(describing: y.speed))") }
            if bits(x.course) != bits(y.course) { d.append("course \(String(describing: x.course)) ≠ \(String(describing: y.course))") }
            if bits(x.altitude) != bits(y.altitude) { d.append("altitude \(String(describing: x.altitude)) ≠ \(String(describing: y.altitude))") }
            return d.isEmpty ? nil : d.joined(separator: ", ")
        case (.sighting(let x), .sighting(let y)):
            var d: [String] = []
            if x.time != y.time { d.append("t \(x.time.nanosecondsSinceEpoch) ≠ \(y.time.nanosecondsSinceEpoch) ns") }
            if x.identity != y.identity { d.append("identity \(x.identity) ≠ \(y.identity)") }
            if x.rssi != y.rssi { d.append("rssi \(x.rssi) ≠ \(y.rssi)") }
            if x.measuredPower != y.measuredPower { d.append("power \(x.measuredPower) ≠ \(y.measuredPower)") }
            return d.isEmpty ? nil : d.joined(separator: ", ")
        default:
            return a == b ? nil : "\(a) ≠ \(b)"
        }
    }

    static func describe(_ item: Item?) -> String {
        switch item?.outcome {
        case nil: "nothing"
        case .record(let d, let o)?: "a record: device \(d.debugDescription), \(o)"
        case .error(let e)?: "an error: \(e)"
        }
    }

    struct Mismatch: CustomStringConvertible {
        var path: String
        var line: Int
        var text: String
        var oracle: String
        var reader: String
        var description: String { "[\(path)] line \(line): \(text)\n  oracle: \(oracle)\n  reader: \(reader)" }
    }

    /// Whether `item` is what `e` allows; if not, why.
    static func verdictProblem(_ verdict: Verdict, _ item: Item?, file: String) -> String? {
        if case .error(let error)? = item?.outcome, error.file != file { return "the error names file \(error.file)" }
        func fieldOK(_ fields: Set<String>?, _ error: InputError) -> String? {
            guard let fields, !fields.isEmpty else { return nil }
            return error.field.map(fields.contains) == true ? nil : "the error names field \(error.field ?? "none"), not one of \(fields.sorted())"
        }
        switch (verdict, item?.outcome) {
        case (.unchecked, _): return nil
        case (.record(let d, let o), .record(let rd, let ro)?), (.recordOrError(let d, let o, _), .record(let rd, let ro)?):
            if Array(d.utf8) != Array(rd.utf8) { return "device \(rd.debugDescription), not \(d.debugDescription)" }
            return difference(ro, o)
        case (.record, _): return item == nil ? "the line was skipped" : "a valid line was refused"
        case (.error(let fields), .error(let e)?), (.recordOrError(_, _, let fields), .error(let e)?): return fieldOK(fields, e)
        case (.error, .record?): return "a bad line gave a record"
        case (.error, nil), (.recordOrError, nil): return "the line was skipped"
        case (.nothingOrError, .record?): return "a blank line gave a record"
        case (.nothingOrError, _): return nil
        case (.continuation(let alone), .record?):
            guard let alone, case .record = alone else { return "a line inside a quoted cell gave a record" }
            return verdictProblem(alone, item, file: file)
        case (.continuation, _): return nil
        }
    }

    static func oracleText(_ e: Expectation) -> String {
        switch e.verdict {
        case .record(let d, let o): "record \(d.debugDescription) \(o) (\(e.why))"
        case .error(let fields): "error\(fields.map { " naming one of \($0.sorted())" } ?? "") (\(e.why))"
        case .recordOrError(let d, let o, let fields): "record \(d.debugDescription) \(o), or an error naming \(fields?.sorted() ?? []) (\(e.why))"
        case .nothingOrError: "nothing or an error (\(e.why))"
        case .continuation: "nothing, an error, or the line's own record (\(e.why))"
        case .unchecked: "anything"
        }
    }

    /// Every line's item against its expectation: one item per line that is not blank, in line order.
    static func check(_ items: [Item], _ expectations: [Expectation?], lines: [[UInt8]], path: String, label: String? = nil,
                      into found: inout [Mismatch]) {
        let shown = label ?? path
        var p = 0
        var previous = 0
        for item in items {
            if item.line <= previous {
                found.append(Mismatch(path: shown, line: item.line, text: "", oracle: "lines in order, one item each",
                                      reader: "\(describe(item)) after an item for line \(previous)"))
            }
            previous = item.line
        }
        for (k, expectation) in expectations.enumerated() {
            let line = k + 1
            var here: Item?
            if p < items.count, items[p].line == line {
                here = items[p]
                p += 1
            }
            guard let expectation else {
                if here != nil {
                    found.append(Mismatch(path: shown, line: line, text: literal(lines[k]), oracle: "nothing (the header)", reader: describe(here)))
                }
                continue
            }
            if let problem = verdictProblem(expectation.verdict, here, file: path) {
                found.append(Mismatch(path: shown, line: line, text: literal(lines[k]), oracle: oracleText(expectation),
                                      reader: describe(here) + " — " + problem))
            }
        }
        if p < items.count {
            found.append(Mismatch(path: shown, line: items[p].line, text: "", oracle: "no more items",
                                  reader: "\(items.count - p) more, the first \(describe(items[p]))"))
        }
    }

    /// Where two ways of reading differ (`nil`: nowhere): the first differing item.
    static func firstDifference(_ a: [Item], _ b: [Item]) -> String? {
        for (k, (x, y)) in zip(a, b).enumerated() {
            var same = x.line == y.line
            switch (x.outcome, y.outcome) {
            case (.record(let dx, let ox), .record(let dy, let oy)): same = same && Array(dx.utf8) == Array(dy.utf8) && difference(ox, oy) == nil
            case (.error(let ex), .error(let ey)): same = same && ex == ey
            default: same = false
            }
            if !same { return "item \(k): line \(x.line) \(describe(x)) against line \(y.line) \(describe(y))" }
        }
        return a.count == b.count ? nil : "\(a.count) items against \(b.count)"
    }

    /// Records the mismatches as failures.
    /// (With READER_FUZZ_DUMP set to a directory, every mismatch is also written there, one file per test.)
    static func report(_ found: [Mismatch], label: String) {
        if let dump = ProcessInfo.processInfo.environment["READER_FUZZ_DUMP"] {
            try? found.map(\.description).joined(separator: "\n").write(toFile: dump + "/" + label.replacingOccurrences(of: " ", with: "-") + ".txt",
                                                                       atomically: true, encoding: .utf8)
        }
        for m in found.prefix(25) { Issue.record(Comment(rawValue: m.description)) }
        if found.count > 25 { Issue.record("[\(label)] \(found.count - 25) more mismatches") }
    }

    static func write(_ bytes: [UInt8], named name: String) throws -> String {
        let path = Fixture.temporaryPath(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func tally(_ expectations: [Expectation?]) -> (records: Int, errors: Int, open: Int) {
        var r = 0, e = 0, o = 0
        for x in expectations {
            switch x?.verdict {
            case .record?: r += 1
            case .error?: e += 1
            case nil: break
            default: o += 1
            }
        }
        return (r, e, o)
    }

    // MARK: - Tests

    /// JSON Lines or CSV (`csv`), eight files of a few thousand lines, one record at a time (`next()`)
    /// and in runs on one thread.
    @Test(arguments: [false, true])
    func filesMatchTheOracle(csv: Bool) throws {
        var found: [Mismatch] = [], notes = Notes()
        var total = 0, counts = (records: 0, errors: 0, open: 0)
        let label = csv ? "csv" : "jsonLines"
        for seed in UInt64(1)...8 {
            var rng = SplitMix64(seed: (csv ? 0xC5F_0000 : 0x5EED_0000) + seed)
            let (bytes, header) = Self.file(csv: csv, lines: 2_500, segments: Int.random(in: 2...4, using: &rng), rate: 12, plainSegments: false,
                                            bom: !csv && seed == 3, finalNewline: seed % 2 == (csv ? 1 : 0), &rng)
            let name = csv ? (seed == 4 ? "obs-\(seed).txt" : "obs-\(seed).csv")
                : seed == 5 ? "obs-\(seed).log" : seed == 6 ? "obs-\(seed).ndjson" : "obs-\(seed).jsonl"
            let path = try Self.write(bytes, named: name)
            let lines = Self.lines(bytes)
            let expectations = csv ? Self.csvExpectations(lines, header: header!) : Self.jsonExpectations(lines, notes: &notes)
            let items = try Self.oneAtATime(path)
            Self.check(items, expectations, lines: lines, path: path, into: &found)
            let (runs, _) = try Self.inRuns(path, threads: 1, engineRecords: seed % 2 == 0, seed: seed)
            if let d = Self.firstDifference(items, runs) { Issue.record("[\(path)] next() and runs differ: \(d)") }
            total += lines.count
            let t = Self.tally(expectations)
            counts = (counts.records + t.records, counts.errors + t.errors, counts.open + t.open)
        }
        print("[\(label)] 8 files, \(total) lines: \(counts.records) records, \(counts.errors) errors, \(counts.open) open; \(found.count) mismatches")
        if !csv { notes.report(label) }
        Self.report(found, label: label)
    }

    /// Files of several megabytes: long runs of plain fixes (parallel blocks) between stretches of
    /// everything else; `next()` alone, and runs on 4 threads and on 1–4 drawn per run, must give the
    /// oracle's items and the same items as each other.
    @Test(arguments: [false, true])
    func blockPathMatchesTheOracleAndNext(csv: Bool) throws {
        var rng = SplitMix64(seed: csv ? 0xB10C_C5F : 0xB10C_150)
        let (bytes, header) = Self.file(csv: csv, lines: csv ? 60_000 : 45_000, segments: 5, rate: 8, plainSegments: true, bom: false,
                                   finalNewline: true, &rng)
        #expect(bytes.count > 4 * ObservationReader.largestBlock)
        let path = try Self.write(bytes, named: csv ? "blocks.csv" : "blocks.jsonl")
        let lines = Self.lines(bytes)
        var notes = Notes(), found: [Mismatch] = []
        let expectations = csv ? Self.csvExpectations(lines, header: header!) : Self.jsonExpectations(lines, notes: &notes)
        let items = try Self.oneAtATime(path)
        Self.check(items, expectations, lines: lines, path: path, into: &found)
        for (threads, engine) in [(4, false), (0, true)] {
            let (runs, longest) = try Self.inRuns(path, threads: threads, engineRecords: engine, seed: UInt64(threads) + 7)
            #expect(longest > ObservationReader.parallelRun, "no parallel block was read")
            if let d = Self.firstDifference(items, runs) { Issue.record("[\(path)] next() and runs on \(threads) threads differ: \(d)") }
            Self.check(runs, expectations, lines: lines, path: path, label: path + " (runs, \(threads) threads)", into: &found)
        }
        let t = Self.tally(expectations)
        let label = csv ? "blocks csv" : "blocks jsonl"
        print("[\(label)] \(bytes.count) bytes, \(lines.count) lines: \(t.records) records, \(t.errors) errors, \(t.open) open; \(found.count) mismatches")
        notes.report(label)
        Self.report(found, label: label)
    }

    // MARK: - The bugs found, each on its smallest line

    /// Every item of a file read one record at a time, and in runs of plain fixes on 4 threads.
    static func read(_ bytes: [UInt8], named name: String) throws -> (next: [Item], runs: [Item], path: String) {
        let path = try write(bytes, named: name)
        return (try oneAtATime(path), try inRuns(path, threads: 4, engineRecords: false, seed: 1).items, path)
    }

    static func time(of item: Item?) -> Int64? {
        if case .record(_, let o)? = item?.outcome { return o.time.nanosecondsSinceEpoch }
        return nil
    }

    static func errorField(of item: Item?) -> String?? {
        if case .error(let e)? = item?.outcome { return .some(e.field) }
        return nil
    }

    /// Unix seconds with an exponent are a JSON number like any other, and `RFC3339` promises times
    /// "exact (no Double on the way), so that equal instants written differently compare equal".
    @Test func unixSecondsWithAnExponentAreExact() throws {
        let plain = #"{"type":"fix","device":"d","t":1772353759.005,"lat":0,"lon":0,"accuracy":1}"#
        let exponent = #"{"type":"fix","device":"d","t":1.772353759005E9,"lat":0,"lon":0,"accuracy":1}"#
        let far = #"{"type":"fix","device":"d","t":-9.2e9,"lat":0,"lon":0,"accuracy":1}"#
        let (items, runs, _) = try Self.read(Array((plain + "\n" + exponent + "\n" + far + "\n").utf8), named: "exponent.jsonl")
        #expect(Self.time(of: items.first) == 1_772_353_759_005_000_000)
        #expect(Self.time(of: items.dropFirst().first) == 1_772_353_759_005_000_000)
        #expect(Self.time(of: items.dropFirst(2).first) == -9_200_000_000_000_000_000)
        #expect(Self.firstDifference(items, runs) == nil)
        let csv = "type,device,t,lat,lon,accuracy\nfix,d,1.772353759005E9,0,0,1\n"
        let (cells, cellRuns, _) = try Self.read(Array(csv.utf8), named: "exponent.csv")
        #expect(Self.time(of: cells.first) == 1_772_353_759_005_000_000)
        #expect(Self.firstDifference(cells, cellRuns) == nil)
    }

    /// RFC 8259: names "SHOULD be unique", and software receiving duplicates is unpredictable; SPEC §1:
    /// never a silently different record. The reader keeps the first `lat`; Foundation would keep the last.
    @Test func aKeyNamedTwiceWithDifferentValuesIsAnError() throws {
        let line = #"{"type":"fix","device":"d","t":1,"lat":1,"lon":2,"accuracy":3,"lat":4}"#
        let (items, runs, _) = try Self.read(Array((line + "\n").utf8), named: "twice.jsonl")
        #expect(Self.errorField(of: items.first) == .some("lat"), "\(Self.describe(items.first))")
        #expect(Self.firstDifference(items, runs) == nil)
    }

    /// `1e400` is a valid JSON number whose value no Double holds: the CSV reader refuses it, the
    /// JSON Lines reader reads ±infinity (an accuracy of -infinity passes as "no valid fix", a speed
    /// of +infinity is kept).
    @Test func aNumberBeyondDoubleIsAnError() throws {
        let lines = [#"{"type":"fix","device":"d","t":1,"lat":1,"lon":2,"accuracy":3,"speed":1e400}"#,
                     #"{"type":"fix","device":"d","t":1,"lat":1,"lon":2,"accuracy":-1e400}"#]
        let (items, _, _) = try Self.read(Array((lines.joined(separator: "\n") + "\n").utf8), named: "huge.jsonl")
        #expect(Self.errorField(of: items.first) == .some("speed"), "\(Self.describe(items.first))")
        #expect(Self.errorField(of: items.dropFirst().first) == .some("accuracy"), "\(Self.describe(items.dropFirst().first))")
        let csv = "type,device,t,lat,lon,accuracy,speed\nfix,d,1,1,2,3,1e400\n"
        let (cells, _, _) = try Self.read(Array(csv.utf8), named: "huge.csv")
        #expect(Self.errorField(of: cells.first) == .some("speed"))
    }

    /// A CSV written in Latin-1 (`caf\xE9`): its device names are not UTF-8. The reader puts U+FFFD in
    /// their place, so `café` and `cafè` become one device, `caf\u{FFFD}`, silently.
    @Test func aCSVCellThatIsNotUTF8IsAnError() throws {
        let bytes = Array("type,device,t,lat,lon,accuracy\nfix,caf".utf8) + [0xE9] + Array(",1,0,0,1\nfix,caf".utf8) + [0xE8]
            + Array(",2,0,0,1\n".utf8)
        let (items, runs, _) = try Self.read(bytes, named: "latin1.csv")
        #expect(Self.errorField(of: items.first) == .some("device"), "\(Self.describe(items.first))")
        #expect(Self.errorField(of: items.dropFirst().first) == .some("device"), "\(Self.describe(items.dropFirst().first))")
        #expect(Self.firstDifference(items, runs) == nil)
    }

    /// The earliest 64-bit nanosecond is 1677-09-21T00:12:43.145224192Z (-9223372036.854775808 s);
    /// times in its second are representable, but the readers multiply whole seconds first.
    @Test func theEarliestRepresentableTimesAreRead() throws {
        let lines = [#"{"type":"fix","device":"d","t":"1677-09-21T00:12:43.5Z","lat":0,"lon":0,"accuracy":1}"#,
                     #"{"type":"fix","device":"d","t":-9223372036.854775808,"lat":0,"lon":0,"accuracy":1}"#,
                     #"{"type":"fix","device":"d","t":"1677-09-21T00:12:44Z","lat":0,"lon":0,"accuracy":1}"#]
        let (items, _, _) = try Self.read(Array((lines.joined(separator: "\n") + "\n").utf8), named: "earliest.jsonl")
        #expect(Self.time(of: items.first) == Int64.min + 354_775_808)
        #expect(Self.time(of: items.dropFirst().first) == Int64.min)
        #expect(Self.time(of: items.dropFirst(2).first) == Int64.min + 854_775_808)
    }

    /// A UTF-8 BOM before the first line (RFC 8259 §8.1 lets a parser ignore it; spreadsheets write
    /// one before a CSV header, and a JSON Lines file without a known extension is told apart by its
    /// first byte) is skipped: both records are read, by every path, whatever the extension.
    @Test(arguments: ["bom.jsonl", "bom.log", "bom.csv", "bom.txt"])
    func aByteOrderMarkIsSkipped(_ name: String) throws {
        let csv = name.hasSuffix(".csv") || name.hasSuffix(".txt")
        let text = csv ? "type,device,t,lat,lon,accuracy\nfix,d,1,2,3,4\nfix,d,2,2,3,4\n"
            : #"{"type":"fix","device":"d","t":1,"lat":2,"lon":3,"accuracy":4}"# + "\n" + #"{"type":"fix","device":"d","t":2,"lat":2,"lon":3,"accuracy":4}"# + "\n"
        let (items, runs, _) = try Self.read([0xEF, 0xBB, 0xBF] + Array(text.utf8), named: name)
        #expect(Self.firstDifference(items, runs) == nil)
        let fix = { (t: Int64) in Observation.fix(Fix(time: Timestamp(nanosecondsSinceEpoch: t * 1_000_000_000),
                                                      coordinate: Coordinate(latitude: 2, longitude: 3), horizontalAccuracy: 4)) }
        let firstLine = csv ? 2 : 1
        #expect(items.count == 2)
        for item in items {
            guard case .record(let device, let observation) = item.outcome else {
                Issue.record("line \(item.line): \(Self.describe(item))")
                continue
            }
            #expect(device == "d" && Self.difference(observation, fix(Int64(item.line - firstLine + 1))) == nil)
        }
    }

    /// The oracle's own parts against independent references: RFC 3339 against `gmtime_r`, exact
    /// seconds against integer arithmetic, the strict recogniser against what RFC 8259 says.
    @Test func theOracleIsRight() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<3_000 {
            let ns = Int64.random(in: -9_000_000_000_000_000_000...9_000_000_000_000_000_000, using: &rng)
            let style = TimeStyle.rfc3339(fraction: 9, offsetMinutes: rng.pick([nil, 0, 330, -600]), lowercase: false, space: false)
            let (text, _) = Self.time(ns, style, &rng)
            #expect(Self.rfc3339(text) == .ns(ns), "\(text)")
            let (unix, _) = Self.time(ns, .unixFraction(9), &rng)
            #expect(Self.exactSeconds(unix) == .ns(ns), "\(unix)")
        }
        #expect(Self.rfc3339("2024-02-29T00:00:00Z") == .ns(1_709_164_800_000_000_000))
        #expect(Self.rfc3339("2100-02-29T00:00:00Z") == .invalid)
        #expect(Self.rfc3339("2000-02-29T00:00:00Z") == .ns(951_782_400_000_000_000))
        #expect(Self.rfc3339("2016-12-31T23:59:60Z") == .leap(1_483_228_800_000_000_000))
        #expect(Self.rfc3339("2026-03-01T08:00:00+0100") == .invalid)
        #expect(Self.exactSeconds("1.7723520001e9") == .ns(1_772_352_000_100_000_000))
        #expect(Self.exactSeconds("-1.5") == .ns(-1_500_000_000))
        #expect(Self.exactSeconds("1e400") == .outOfRange && Self.exactSeconds("1e-400") == .ns(0))
        for bad in ["{\"a\":1,}", "{\"a\":01}", "{\"a\":NaN}", "\u{FEFF}{}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\u{01}\"}", "{\"a\":+1}", "{'a':1}"] {
            #expect(StrictJSON.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
        for good in ["{\"a\":-0}", "{\"a\":1e400}", " {\"\\u0074\":[1,{}]}\r", "{\"a\":\"\\ud83d\\ude00\\/\"}", "{\"a\":1,\"a\":2}"] {
            #expect(StrictJSON.parse(Array(good.utf8)) != nil, "\(good)")
        }
    }
}

fileprivate extension RandomNumberGenerator {
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
    mutating func pick<T>(_ elements: [T]) -> T { elements[Int.random(in: 0..<elements.count, using: &self)] }
}
