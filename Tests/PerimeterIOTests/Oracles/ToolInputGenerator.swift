import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

// The writer of `ToolOracleTests`' input, in three files: its state, text and devices (here), good
// and bad records (`ToolInputGenerator+Records.swift`), and the stretches of the file
// (`ToolInputGenerator+Stretches.swift`).
extension ToolOracleTests {
    struct Generator {
        // (The suite's names, for this type's extensions in other files, which do not see them.)
        typealias Line = ToolOracleTests.Line
        typealias BadKind = ToolOracleTests.BadKind
        typealias Input = ToolOracleTests.Input
        typealias Uniform = ToolOracleTests.Uniform
        typealias Device = ToolOracleTests.Device
        static let csvHeader = ["type", "device", "t", "lat", "lon", "accuracy", "speed", "course", "altitude",
                                "uuid", "major", "minor", "rssi", "power", "state"]
        static let second: Int64 = 1_000_000_000
        static let base: Int64 = 1_772_352_000 * second  // 2026-03-01T08:00:00Z
        static let fancyNames = ["café 7", "a,b", "quo\"te", "Zoë-x", "雷-3", "back\\slash", "tab\there"]

        enum Value {
            case string(String), number(String), null
        }
        typealias Fields = [(name: String, value: Value)]

        let format: ObservationFormat
        var dice: Dice
        var lines: [Line] = []
        var devices: [Device] = []
        /// Devices that have had a good record.
        var started: [Int] = []
        var seams: [Int] = []
        var inUniform = false
        var fancy = 0, fresh = 0
        /// Devices the tail must include.
        var endWithExits: [Int] = []

        init(format: ObservationFormat, seed: UInt64) {
            self.format = format
            dice = Dice(rng: SplitMix64(seed: seed))
        }

        // Text.

        static func csvCell(_ s: String) -> String {
            s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
        }

        func render(_ fields: Fields, spaced: Bool = false) -> String {
            switch format {
            case .jsonLines:
                let colon = spaced ? ": " : ":", comma = spaced ? ", " : ","
                return "{" + fields.map { field in
                    let value: String = switch field.value {
                    case .string(let s): Fixture.jsonQuoted(s)
                    case .number(let n): n
                    case .null: "null"
                    }
                    return Fixture.jsonQuoted(field.name) + colon + value
                }.joined(separator: comma) + "}"
            case .csv:
                return Self.csvHeader.map { column in
                    switch fields.first(where: { $0.name == column })?.value {
                    case .string(let s)?, .number(let s)?: Self.csvCell(s)
                    case .null?, nil: ""
                    }
                }.joined(separator: ",")
            }
        }

        static func padded(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }

        /// `x` with `digits` decimals (x > 0).
        static func decimal(_ x: Double, _ digits: Int) -> String {
            var scale: Int64 = 1
            for _ in 0..<digits { scale *= 10 }
            let n = Int64((x * Double(scale)).rounded())
            return "\(n / scale)." + padded(n % scale, digits)
        }

        /// Foundation's Gregorian calendar in UTC: it names the days here, not day arithmetic like the
        /// reader's (`RFC3339`), so that a date the reader gets wrong cannot be wrong here the same way.
        static let utc: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        /// The year, month and day of the day `days` days after 1970-01-01.
        static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
            let date = utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            return (Int64(date.year!), Int64(date.month!), Int64(date.day!))
        }

        static func rfc3339(_ ns: Int64, offsetMinutes: Int64, fractionDigits: Int) -> String {
            let seconds = ns / second, fraction = ns % second
            let local = seconds + offsetMinutes * 60
            let days = local / 86_400, time = local % 86_400
            let (y, m, d) = civil(days)
            var s = "\(padded(y, 4))-\(padded(m, 2))-\(padded(d, 2))T\(padded(time / 3600, 2)):\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2))"
            if fractionDigits > 0 { s += "." + padded(fraction, 9).prefix(fractionDigits) }
            if offsetMinutes == 0 { return s + "Z" }
            let a = abs(offsetMinutes)
            return s + (offsetMinutes < 0 ? "-" : "+") + padded(a / 60, 2) + ":" + padded(a % 60, 2)
        }

        /// A time as one of the ways SPEC allows, exactly (times here are whole milliseconds).
        mutating func timeValue(_ ns: Int64) -> Value {
            let seconds = ns / Self.second, ms = ns % Self.second / 1_000_000
            switch dice.below(10) {
            case 0..<4:
                if ms == 0 && dice.percent(80) { return .number("\(seconds)") }
                var fraction = Self.padded(ms, 3)
                if dice.percent(50) { while fraction.count > 1 && fraction.hasSuffix("0") { fraction.removeLast() } }
                return .number("\(seconds).\(fraction)" + (dice.percent(20) ? "000" : ""))
            case 4 where ns % (Self.second / 10) == 0:
                var digits = "\(seconds)" + (ms == 0 ? "" : "\(ms / 100)")
                let first = digits.removeFirst()
                return .number("\(first).\(digits)" + dice.pick(["E9", "e9", "e+9"]))
            default:
                let digits = ms != 0 ? dice.pick([3, 6, 9]) : dice.pick([0, 0, 3])
                return .string(Self.rfc3339(ns, offsetMinutes: dice.pick([0, 0, 60, -300, 330, 0]), fractionDigits: digits))
            }
        }

        // Devices.

        mutating func introduce(_ name: String? = nil, uniform: Bool = false) -> Int {
            let name = name ?? {
                if !uniform && fancy < Self.fancyNames.count && dice.percent(5) {
                    fancy += 1
                    return Self.fancyNames[fancy - 1]
                }
                fresh += 1
                return "m\(fresh)"
            }()
            let offset = Int64(dice.below(600)) * Self.second + (uniform ? 0 : Int64(dice.below(1000)) * 1_000_000)
            devices.append(Device(name: name, lat: dice.double(45.7556...45.7644), lon: dice.double(4.8285...4.8415),
                                  time: Self.base + offset))
            return devices.count - 1
        }

        mutating func pickStarted() -> Int { dice.pick(started) }

        /// Moves device `d` on to its next good record.
        mutating func step(_ d: Int, uniform: Bool = false) {
            if !devices[d].started {
                devices[d].started = true
                started.append(d)
            } else if uniform {
                devices[d].time += Int64(dice.below(13)) * Self.second
            } else {
                switch dice.below(20) {
                case 0..<3: break  // the same time as its previous record
                case 3..<15: devices[d].time += Int64(1 + dice.below(20)) * Self.second
                default: devices[d].time += Int64(1 + dice.below(20_000)) * 1_000_000
                }
            }
            devices[d].lat = min(45.7648, max(45.7552, devices[d].lat + dice.double(-0.0005...0.0005)))
            devices[d].lon = min(4.8420, max(4.8280, devices[d].lon + dice.double(-0.0006...0.0006)))
        }

        mutating func append(_ line: Line) {
            var line = line
            if !inUniform && dice.percent(8) { line.crlf = true }
            lines.append(line)
        }

        mutating func seam(_ line: Line) {
            seams.append(lines.count)
            append(line)
        }
    }
}
