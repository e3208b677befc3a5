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

/// The producers of `ReaderFuzzTests`' files: observation lines in many producers' styles (number
/// and time styles, key orders, device names, spacing), in JSON Lines and in CSV.
extension ReaderFuzzTests {
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
}
