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

/// Mutations of `ReaderFuzzTests`' lines (odd values, bytes and digits changed) and the files made
/// of them.
extension ReaderFuzzTests {
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
}
