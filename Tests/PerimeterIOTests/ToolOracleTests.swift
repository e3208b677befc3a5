import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The batch tool's own layers — reading (line by line and in parallel blocks), the engine's batches
/// and their cuts at the event budget, bad records (quarantined, or the run stopped), the events'
/// encoding and the summary's counts — against an oracle that knows the input because it wrote it.
///
/// The input: a conditions set around one place (three circles, one starting `unsatisfied`, a
/// polygon, two beacon conditions), devices starting `always` (no authorization records but `app`,
/// so every event is delivered), and an observation file in JSON Lines and in CSV of some 26,000
/// lines: a first stretch of plain fixes all of one byte length (so that where the reader's parallel
/// blocks fall is known), then fix runs, sighting runs, runs of 1–100 records around the tool's
/// smallest batch (64), mixed stretches with `app` records, new devices throughout (each new
/// device's first record is where a batch is cut at a small event budget), blank lines, CRLF endings,
/// Unix seconds (whole, fractions, an exponent) and RFC 3339 times (offsets, fractions), equal times,
/// fancy device names, and a last line without a newline. Bad lines of kinds whose refusal is known
/// go in at known lines: around new devices (the batch cuts), around runs' ends, first and last.
///
/// The oracle for the events is the engine itself fed one record at a time with the good records
/// only (geometry is covered elsewhere): what is checked here is that the tool loses, duplicates,
/// reorders and misattributes nothing. Readings chosen where the texts leave room:
/// - a blank line (empty, or spaces and tabs only) is no record: not read, not rejected, counted as a
///   line (the README is silent; the reader skips them and its tests say so);
/// - a quarantined record is the line as written without its line ending (`\n` or `\r\n`);
/// - a run stopped at a bad line has written exactly the events of the records before it, and none
///   of the end of input (it never reached the end).
@Suite struct ToolOracleTests {
    // MARK: - Conditions

    static let desk = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"  // "desk": this UUID, major 1
    static let anyB = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"  // "any-b": this UUID, any major
    static let other = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"  // matches nothing

    static func engine(threads: Int = 1) throws -> MonitoringEngine {
        var engine = MonitoringEngine()
        func circle(_ lat: Double, _ lon: Double, _ radius: Double) throws -> Condition {
            .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
        }
        try engine.add(circle(45.7600, 4.8350, 120), identifier: "core")
        try engine.add(circle(45.7612, 4.8368, 250), identifier: "east", assuming: .unsatisfied)
        try engine.add(circle(45.7590, 4.8335, 450), identifier: "wide")
        let ring = [(45.7578, 4.8322), (45.7578, 4.8384), (45.7606, 4.8398), (45.7624, 4.8360), (45.7610, 4.8318), (45.7578, 4.8322)]
        let polygon = GeoPolygon(exterior: ring.map { Coordinate(latitude: $0.0, longitude: $0.1) })
        try engine.add(.polygon(try PolygonalGeographicCondition(polygons: [polygon])), identifier: "block")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: UUID(uuidString: desk)!, major: 1)), identifier: "desk")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: UUID(uuidString: anyB)!)), identifier: "any-b")
        engine.batchThreads = threads
        return engine
    }

    /// A small event budget: below what one new device's start can produce (3 geographic conditions
    /// starting `unknown` + 2 beacon conditions = 5), so that every new device's first record, except
    /// at a batch's start, begins a new batch.
    static let smallBudget = 4

    // MARK: - Lines

    struct Line: Sendable {
        enum Kind: Sendable {
            case good(device: String, observation: Observation)
            /// Refused: the field the error must name (nil: the whole record), and a word its reason must hold.
            case bad(field: String?, mentions: String)
            case blank
        }
        var kind: Kind
        /// The line as written, without its line ending.
        var text: String
        var crlf = false
        /// For a line of the uniform stretch: what it says, so that a variant can say otherwise in as many bytes.
        var uniform: Uniform?

        var isBad: Bool { if case .bad = kind { true } else { false } }
        var isGood: Bool { if case .good = kind { true } else { false } }
    }

    struct Uniform: Sendable {
        var device: String
        var seconds: Int64
        var lat: String
        var lon: String
        var accuracy: String
    }

    struct Input: Sendable {
        var format: ObservationFormat
        var lines: [Line]
        var lastWithoutNewline: Bool
        /// Indices of the uniform stretch.
        var uniform: Range<Int>
        /// Indices of bad lines placed at seams (around new devices, runs' ends), and the first and last bad lines.
        var seams: [Int]

        /// The file line of `lines[index]` (CSV: after its header).
        func lineNumber(_ index: Int) -> Int { index + (format == .csv ? 2 : 1) }
        func index(ofLine line: Int) -> Int { line - (format == .csv ? 2 : 1) }

        var text: String {
            var out = format == .csv ? Generator.csvHeader.joined(separator: ",") + "\n" : ""
            for (k, line) in lines.enumerated() {
                out += line.text
                if line.crlf { out += "\r" }
                if k < lines.count - 1 || !lastWithoutNewline { out += "\n" }
            }
            return out
        }

        /// Every bad line before `index` made blank (blank lines are no records: the good lines and
        /// their numbers stay as they were).
        func badLinesBlanked(before index: Int) -> Input {
            var copy = self
            for k in 0..<index where copy.lines[k].isBad {
                copy.lines[k] = Line(kind: .blank, text: "", crlf: copy.lines[k].crlf)
            }
            return copy
        }
    }

    /// Dice from a seeded generator (names of their own: the module's tests extend `SplitMix64` too).
    struct Dice {
        var rng: SplitMix64
        mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &rng) }
        mutating func perMille(_ n: Int) -> Bool { below(1000) < n }
        mutating func percent(_ n: Int) -> Bool { below(100) < n }
        mutating func pick<T>(_ xs: [T]) -> T { xs[below(xs.count)] }
        mutating func double(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
    }

    // MARK: - Generator

    enum BadKind: CaseIterable {
        case malformed, notAnObject, unknownType, missingLat, nonNumericLat, outOfRange, major70000, duplicateField,
             foreignField, unknownField, outOfOrder, emptyRecord, emptyDevice, leapSecond
        /// Kinds the reader refuses (the engine never sees them).
        static let readerRefused: [BadKind] = [.malformed, .notAnObject, .unknownType, .missingLat, .nonNumericLat, .major70000,
                                               .duplicateField, .foreignField, .unknownField, .emptyRecord, .emptyDevice, .leapSecond]
    }

    struct Device {
        var name: String
        var lat: Double
        var lon: Double
        /// Its last good record's time (before its first, the time its first will have), ns since 1970.
        var time: Int64
        var started = false
    }

    struct Generator {
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

        static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let doe = z - era * 146_097
            let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
            let mp = (5 * doy + 2) / 153
            let d = doy - (153 * mp + 2) / 5 + 1
            let m = mp < 10 ? mp + 3 : mp - 9
            return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
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

        // Good records.

        mutating func goodFix(_ d: Int, plain: Bool = true) -> Line {
            step(d)
            let dev = devices[d]
            let lat = plain || dice.percent(50) ? Self.decimal(dev.lat, 6) : "\(dev.lat)"
            let lon = plain || dice.percent(50) ? Self.decimal(dev.lon, 6) : "\(dev.lon)"
            let accuracy = dice.percent(3) ? "-1" : dice.percent(10) ? "\(dice.below(60) + 5).5" : "\(dice.below(75) + 5)"
            var fields: Fields = [("type", .string("fix")), ("device", .string(dev.name)), ("t", timeValue(dev.time)),
                                  ("lat", .number(lat)), ("lon", .number(lon)), ("accuracy", .number(accuracy))]
            var speed: Double?, altitude: Double?
            if !plain {
                if dice.percent(30) {
                    speed = 1.25
                    fields.append(("speed", .number("1.25")))
                }
                if dice.percent(30) {
                    altitude = 170.5
                    fields.append(("altitude", .number("170.5")))
                }
                if format == .jsonLines && dice.percent(20) { fields.append(("course", .null)) }
                if dice.percent(50) { fields.shuffle(using: &dice.rng) }
            }
            let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: dev.time),
                          coordinate: Coordinate(latitude: Double(lat)!, longitude: Double(lon)!),
                          horizontalAccuracy: Double(accuracy)!, speed: speed, altitude: altitude)
            return Line(kind: .good(device: dev.name, observation: .fix(fix)), text: render(fields, spaced: !plain && dice.percent(50)))
        }

        mutating func goodSighting(_ d: Int, uuid: String? = nil, major: Int? = nil, rssi: Int? = nil) -> Line {
            step(d)
            let dev = devices[d]
            let uuid = uuid ?? dice.pick([ToolOracleTests.desk, ToolOracleTests.desk, ToolOracleTests.desk, ToolOracleTests.anyB, ToolOracleTests.anyB.lowercased(), ToolOracleTests.other])
            let major = major ?? dice.pick([1, 1, 2, 0, 65535])
            let minor = dice.pick([0, 7, 300, 65535])
            let rssi = rssi ?? dice.pick([-40, -60, -71, -88, -100, -200, 0])
            let power = dice.percent(20) ? -65 : nil
            var fields: Fields = [("type", .string("sighting")), ("device", .string(dev.name)), ("t", timeValue(dev.time)),
                                  ("uuid", .string(uuid)), ("major", .number("\(major)")), ("minor", .number("\(minor)")),
                                  ("rssi", .number("\(rssi)"))]
            if let power { fields.append(("power", .number("\(power)"))) }
            if dice.percent(10) { fields.shuffle(using: &dice.rng) }
            let sighting = BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: dev.time),
                                          identity: BeaconIdentity(uuid: UUID(uuidString: uuid)!, major: UInt16(major), minor: UInt16(minor)),
                                          rssi: rssi, measuredPower: power ?? BeaconSighting.defaultMeasuredPower)
            return Line(kind: .good(device: dev.name, observation: .sighting(sighting)), text: render(fields))
        }

        mutating func goodApp(_ d: Int) -> Line {
            step(d)
            let dev = devices[d]
            let state = dice.pick(AppState.allCases)
            let fields: Fields = [("type", .string("app")), ("device", .string(dev.name)), ("t", timeValue(dev.time)),
                                  ("state", .string(state.rawValue))]
            return Line(kind: .good(device: dev.name, observation: .app(AppStateChange(time: Timestamp(nanosecondsSinceEpoch: dev.time), state: state))),
                        text: render(fields))
        }

        // Bad records.

        /// A bad line of device `d` (which it does not move on). Its time is later than the device's
        /// last good record, so that the device's next good records are older than it — except out of
        /// order, which is older than that last good record.
        mutating func bad(_ kind: BadKind, _ d: Int, sighting: Bool = false) -> Line {
            var kind = kind
            if format == .csv && [.duplicateField, .unknownField].contains(kind) { kind = .foreignField }
            if kind == .outOfOrder && !devices[d].started { kind = .outOfRange }
            let dev = devices[d]
            let time = kind == .outOfOrder ? dev.time - Int64(1 + dice.below(60_000)) * 1_000_000
                : dev.time + Int64(dice.below(300)) * Self.second
            let asSighting = kind == .major70000 || (sighting && ![.missingLat, .nonNumericLat, .outOfRange].contains(kind))
            var fields: Fields = asSighting
                ? [("type", .string("sighting")), ("device", .string(dev.name)), ("t", timeValue(time)), ("uuid", .string(ToolOracleTests.desk)),
                   ("major", .number("1")), ("minor", .number("2")), ("rssi", .number("-70"))]
                : [("type", .string("fix")), ("device", .string(dev.name)), ("t", timeValue(time)),
                   ("lat", .number(Self.decimal(dev.lat, 6))), ("lon", .number(Self.decimal(dev.lon, 6))), ("accuracy", .number("10"))]
            func set(_ name: String, _ value: Value) { fields[fields.firstIndex { $0.name == name }!].value = value }
            var field: String?, mentions: String
            switch kind {
            case .malformed:
                let whole = render(fields)
                if format == .jsonLines {
                    let text = String(whole.prefix(1 + dice.below(whole.count - 1)))  // a proper prefix: never a whole object
                    return Line(kind: .bad(field: nil, mentions: "JSON"), text: text)
                }
                let commas = whole.indices.filter { whole[$0] == "," }
                var text = whole
                text.remove(at: dice.pick(commas))
                return Line(kind: .bad(field: nil, mentions: "cells"), text: text)
            case .notAnObject:
                if format == .csv {
                    return Line(kind: .bad(field: nil, mentions: "quote"), text: "fix,\"\(dev.name),1772352000,45.76,4.83,10,,,,,,,,,")
                }
                return Line(kind: .bad(field: nil, mentions: "object"), text: dice.pick(["[1,2,3]", "\"fix\"", "42", "null", "[{\"type\":\"fix\"}]"]))
            case .unknownType:
                let type = dice.pick(format == .csv ? ["fax", "walk", "Fix", "fixes"] : ["fax", "walk", "Fix", "fixes", ""])
                set("type", .string(type))
                (field, mentions) = ("type", "\"\(type)\"")
            case .missingLat:
                if format == .jsonLines && dice.percent(50) { set("lat", .null) } else { fields.removeAll { $0.name == "lat" } }
                (field, mentions) = ("lat", "missing")
            case .nonNumericLat:
                set("lat", .string(format == .csv ? "45.76N" : "45.76"))
                (field, mentions) = ("lat", "number")
            case .outOfRange:
                if dice.percent(60) {
                    set("lat", .number(dice.pick(["95", "95.0", "-95.5", "90.000001"])))
                    (field, mentions) = ("lat", "latitude")
                } else {
                    set("lon", .number(dice.pick(["181", "-180.5"])))
                    (field, mentions) = ("lon", "longitude")
                }
            case .major70000:
                set("major", .number("70000"))
                (field, mentions) = ("major", "70000")
            case .duplicateField:
                let name = asSighting ? "rssi" : "accuracy"
                fields.append((name, asSighting ? .number("-70") : .number("10")))
                (field, mentions) = (name, "twice")
            case .foreignField:
                let name = asSighting ? "accuracy" : "rssi"
                fields.append((name, .number(asSighting ? "10" : "-70")))
                (field, mentions) = (name, "\"\(name)\"")
            case .unknownField:
                fields.append(("sped", .number("3")))
                (field, mentions) = ("sped", "sped")
            case .outOfOrder:
                (field, mentions) = ("t", "older")
            case .emptyRecord:
                return Line(kind: .bad(field: "type", mentions: "missing"),
                            text: format == .csv ? String(repeating: ",", count: Self.csvHeader.count - 1) : dice.pick(["{}", "{ }", "{\"type\":null}"]))
            case .emptyDevice:
                set("device", .string(""))
                (field, mentions) = ("device", format == .csv ? "missing" : "empty")
            case .leapSecond:
                set("t", .string("2026-03-01T08:59:60Z"))
                (field, mentions) = ("t", "RFC 3339")
            }
            return Line(kind: .bad(field: field, mentions: mentions), text: render(fields))
        }

        mutating func randomBad(_ d: Int, sighting: Bool = false) -> Line {
            bad(dice.pick(BadKind.allCases), d, sighting: sighting)
        }

        // The uniform stretch: plain fixes all of one byte length.

        /// (Long names: long lines, so that a parallel block holds fewer of them.)
        var uniformPrefix: String { "uniform-\(format == .csv ? "csv" : "json")-device-with-a-rather-long-name-for-wide-lines-" }

        static func uniformText(_ format: ObservationFormat, type: String = "fix", _ u: Uniform, lat: String? = nil) -> String {
            switch format {
            case .jsonLines:
                return "{\"type\":\"\(type)\",\"device\":\"\(u.device)\",\"t\":\(u.seconds),\"lat\":\(lat ?? u.lat),\"lon\":\(u.lon),\"accuracy\":\(u.accuracy)}"
            case .csv:
                return "\(type),\(u.device),\(u.seconds),\(lat ?? u.lat),\(u.lon),\(u.accuracy)" + String(repeating: ",", count: csvHeader.count - 6)
            }
        }

        mutating func uniformRun(_ count: Int, devices deviceCount: Int, badFirst: Bool = true) {
            inUniform = true
            defer { inUniform = false }
            var own: [Int] = []
            let every = count / deviceCount
            let first = introduce(uniformPrefix + "0000", uniform: true)
            own.append(first)
            if badFirst {
                // The first line is bad (a field a fix does not have / a cell too few).
                append(format == .csv ? bad(.malformed, first) : bad(.unknownField, first))
                seams.append(lines.count - 1)
            }
            for i in (badFirst ? 1 : 0)..<count {
                let d: Int
                if i == (badFirst ? 1 : 0) {
                    d = first
                } else if i % every == 1 && own.count < deviceCount {
                    d = introduce(uniformPrefix + Self.padded(Int64(own.count), 4), uniform: true)
                    own.append(d)
                } else {
                    d = dice.pick(own)
                }
                step(d, uniform: true)
                let dev = devices[d]
                let u = Uniform(device: dev.name, seconds: dev.time / Self.second, lat: Self.decimal(dev.lat, 6),
                                lon: Self.decimal(dev.lon, 6), accuracy: "\(10 + dice.below(90))")
                let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: dev.time),
                              coordinate: Coordinate(latitude: Double(u.lat)!, longitude: Double(u.lon)!),
                              horizontalAccuracy: Double(u.accuracy)!)
                append(Line(kind: .good(device: dev.name, observation: .fix(fix)), text: Self.uniformText(format, u), uniform: u))
            }
        }

        // The mixed part.

        /// A new device's first record in a run of fixes (sightings), with bad lines around it: just
        /// before (the last record of a batch cut at the small budget), just after (the second of the
        /// next), both, or as the new device's own first line (refused: the reader has met the device,
        /// the engine has not started it).
        mutating func newDeviceSeam(sighting: Bool) {
            let f = introduce()
            func good(_ d: Int) -> Line { sighting ? goodSighting(d) : goodFix(d) }
            func engineRefused() -> Line {
                sighting ? bad(.outOfOrder, pickStarted(), sighting: true) : bad(dice.pick([.outOfOrder, .outOfRange]), pickStarted())
            }
            switch dice.below(5) {
            case 0:
                seam(engineRefused())
                append(good(f))
            case 1:
                append(good(f))
                seam(engineRefused())
            case 2:
                // (Another new device starts in between: the reader meets the two in one order, the
                // engine starts them in the other; both end the input with exits, which come in the
                // order the engine started them: `refusedFirstRecordDoesNotPlaceItsDevice`.)
                seam(sighting ? bad(.major70000, f) : bad(.outOfRange, f))
                append(good(pickStarted()))
                let g = introduce()
                append(good(g))
                for _ in 0..<dice.below(3) { append(good(pickStarted())) }
                append(good(f))
                endWithExits += [f, g]
            case 3:
                seam(bad(dice.pick(BadKind.readerRefused), pickStarted(), sighting: sighting))
                append(good(f))
            default:
                seam(engineRefused())
                append(good(f))
                seam(engineRefused())
            }
        }

        mutating func fixRun(_ n: Int) {
            for _ in 0..<n {
                if dice.perMille(30) {
                    newDeviceSeam(sighting: false)
                } else if dice.perMille(10) {
                    append(randomBad(pickStarted()))
                } else if dice.perMille(3) {
                    append(Line(kind: .blank, text: dice.pick(["", " ", "\t", "  \t "])))
                } else {
                    append(goodFix(pickStarted(), plain: dice.percent(85)))
                }
            }
        }

        mutating func sightingRun(_ n: Int) {
            for _ in 0..<n {
                if dice.perMille(30) {
                    newDeviceSeam(sighting: true)
                } else if dice.perMille(10) {
                    append(randomBad(pickStarted(), sighting: true))
                } else {
                    append(goodSighting(pickStarted()))
                }
            }
        }

        /// Runs of fixes and of sightings, alternating, around the tool's smallest batch (64): a run of
        /// fewer records is applied one at a time. Some end with a record refused for its order.
        mutating func shortRuns() {
            var sighting = dice.percent(50)
            for _ in 0..<(3 + dice.below(5)) {
                let n = dice.pick([1, 2, 5, 62, 63, 64, 65, 100])
                for k in 0..<n {
                    if k == n - 1 && dice.percent(30) {
                        seam(bad(.outOfOrder, pickStarted(), sighting: sighting))
                    } else {
                        append(sighting ? goodSighting(pickStarted()) : goodFix(pickStarted()))
                    }
                }
                sighting.toggle()
            }
        }

        mutating func mixed(_ n: Int) {
            for _ in 0..<n {
                let r = dice.below(100)
                switch r {
                case 0..<50: append(goodFix(pickStarted(), plain: dice.percent(60)))
                case 50..<78: append(goodSighting(pickStarted()))
                case 78..<82: append(goodApp(pickStarted()))
                case 82..<86: append(randomBad(pickStarted(), sighting: dice.percent(40)))
                case 86..<89: append(Line(kind: .blank, text: dice.pick(["", " ", "\t"])))
                case 89..<92: append(randomBad(introduce(), sighting: dice.percent(40)))  // a device never seen again
                default:
                    let f = introduce()
                    append(dice.percent(70) ? goodFix(f) : goodSighting(f))
                }
            }
        }

        /// The end: devices see the desk beacon, then send one last fix exactly the exit timeout (30 s)
        /// later, so that their exits fall due at their last record and fire at the end of input, in
        /// the order the devices were met.
        mutating func tail(_ count: Int) {
            var seen = Set<Int>()
            let chosen = (endWithExits + started.shuffled(using: &dice.rng).prefix(count)).filter { seen.insert($0).inserted }
            for d in chosen {
                append(goodSighting(d, uuid: ToolOracleTests.desk, major: 1, rssi: -60))
            }
            for d in chosen.shuffled(using: &dice.rng) {
                let sightingTime = devices[d].time
                append(goodFix(d))
                // (goodFix stepped the time on: put it exactly 30 s after the sighting.)
                let last = lines.count - 1
                guard case .good(let name, .fix(var fix)) = lines[last].kind else { continue }
                devices[d].time = sightingTime + 30 * Self.second
                fix.time = Timestamp(nanosecondsSinceEpoch: devices[d].time)
                var fields: Fields = [("type", .string("fix")), ("device", .string(name)), ("t", timeValue(devices[d].time)),
                                      ("lat", .number("\(fix.coordinate.latitude)")), ("lon", .number("\(fix.coordinate.longitude)")),
                                      ("accuracy", .number("\(fix.horizontalAccuracy)"))]
                if dice.percent(30) { fields.reverse() }
                lines[last].kind = .good(device: name, observation: .fix(fix))
                lines[last].text = render(fields)
            }
        }

        static func generate(_ format: ObservationFormat, seed: UInt64, uniform: Int, total: Int) -> Input {
            var g = Generator(format: format, seed: seed)
            g.uniformRun(uniform, devices: 170)
            let uniformRange = 0..<g.lines.count
            // A few devices to start the mixed part with.
            for _ in 0..<5 { g.append(g.goodFix(g.introduce())) }
            while g.lines.count < total {
                switch g.dice.below(10) {
                case 0..<3: g.mixed(10 + g.dice.below(190))
                case 3..<6: g.fixRun(64 + g.dice.below(2500))
                case 6..<8: g.sightingRun(64 + g.dice.below(600))
                default: g.shortRuns()
                }
            }
            g.tail(150)
            // The last line without its newline: in JSON Lines a record cut off in the middle (bad),
            // in CSV the tail's last fix.
            if format == .jsonLines { g.seam(g.bad(.malformed, g.pickStarted())) }
            g.lines[g.lines.count - 1].crlf = false
            return Input(format: format, lines: g.lines, lastWithoutNewline: true, uniform: uniformRange, seams: g.seams)
        }
    }

    // MARK: - The oracle

    struct Oracle: Sendable {
        /// Each good record's line and its events' JSON Lines, in input order.
        var records: [(line: Int, events: String)] = []
        /// The end of input's events.
        var finish = ""
        /// Good records the engine refused (the generator's mistake, or the engine's).
        var refused: [String] = []

        var events: String { records.map(\.events).joined() + finish }

        /// What a run stopped at `line` has written: the events of the records before it.
        func events(before line: Int) -> String {
            records.lazy.filter { $0.line < line }.map(\.events).joined()
        }

        init(_ input: Input) throws {
            var engine = try ToolOracleTests.engine()
            var events: [MonitorEvent] = []
            for (k, line) in input.lines.enumerated() {
                guard case .good(let device, let observation) = line.kind else { continue }
                events.removeAll(keepingCapacity: true)
                do throws(ObservationProblem) {
                    try engine.process(observation, device: device, cause: input.lineNumber(k), into: &events)
                } catch {
                    refused.append("line \(input.lineNumber(k)): \(error) — \(line.text)")
                }
                records.append((input.lineNumber(k), events.map(EventEncoding.jsonLine).joined()))
            }
            events.removeAll()
            engine.finish(into: &events)
            finish = events.map(EventEncoding.jsonLine).joined()
        }
    }

    struct Prepared: Sendable {
        var input: Input
        var oracle: Oracle
    }

    static let prepared: [ObservationFormat: Result<Prepared, any Error>] = {
        var all: [ObservationFormat: Result<Prepared, any Error>] = [:]
        for (format, seed) in [(ObservationFormat.jsonLines, UInt64(2026)), (.csv, 3031)] {
            all[format] = Result {
                let input = Generator.generate(format, seed: seed, uniform: 12_000, total: 25_500)
                return Prepared(input: input, oracle: try Oracle(input))
            }
        }
        return all
    }()

    // MARK: - The tool

    struct ToolRun {
        var summary: EvaluationSummary?
        var error: InputError?
        var events: String
        var quarantine: String?
    }

    static func write(_ input: Input, _ name: String) throws -> String {
        try Fixture.write(input.text, named: name + (input.format == .csv ? ".csv" : ".jsonl"))
    }

    /// `BatchEvaluation.run` as `perimeter evaluate` calls it: the reader and the engine on `threads`
    /// threads, a quarantine output only in `.quarantine` mode.
    static func tool(_ path: String, threads: Int, budget: Int, mode: BatchEvaluation.BadRecords) throws -> ToolRun {
        var engine = try engine(threads: threads)
        var reader = try ObservationReader(path: path)
        reader.threads = threads
        let out = Fixture.temporaryPath("tool-oracle-events.jsonl"), bad = Fixture.temporaryPath("tool-oracle-bad.jsonl")
        var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out))
        if mode == .quarantine { outputs.quarantine = try BufferedOutput(path: bad) }
        var run = ToolRun(events: "")
        do {
            run.summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: mode,
                                                  eventBudget: budget)
        } catch {
            run.error = error
        }
        _ = consume outputs  // (flushed as it goes)
        run.events = try String(contentsOfFile: out, encoding: .utf8)
        if mode == .quarantine { run.quarantine = try String(contentsOfFile: bad, encoding: .utf8) }
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: bad)
        return run
    }

    /// Where two texts of lines first differ, or nil.
    static func difference(_ got: String, _ expected: String) -> String? {
        guard got != expected else { return nil }
        let a = got.split(separator: "\n", omittingEmptySubsequences: false)
        let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        return firstDifference(a, b) ?? "the same lines, different bytes"
    }

    // MARK: - Checks

    /// The quarantine file against the bad lines: one line each, in input order, with its line
    /// number, field, a reason that says what is wrong, and its text as written.
    static func checkQuarantine(_ text: String, _ input: Input, path: String, _ what: String) throws {
        let expected = input.lines.indices.filter { input.lines[$0].isBad }
        let got = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(text.hasSuffix("\n") || text.isEmpty)
        #expect(got.count == expected.count, "\(what): \(got.count) quarantined, \(expected.count) bad lines")
        var problems: [String] = []
        for (k, (line, index)) in zip(got, expected).enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard case .bad(let field, let mentions) = input.lines[index].kind else { continue }
            let number = input.lineNumber(index)
            let gotLine = object["line"] as? Int, gotField = object["field"] as? String, reason = object["reason"] as? String ?? ""
            let record = object["record"] as? String
            if object["file"] as? String != path || gotLine != number || gotField != field || !reason.contains(mentions)
                || record != input.lines[index].text || (field == nil) != (object["field"] is NSNull) {
                problems.append("quarantine line \(k + 1): \(line)\n   expected line \(number), field \(field ?? "null"), a reason with \"\(mentions)\", record \(input.lines[index].text)")
            }
        }
        #expect(problems.isEmpty, "\(what): \(problems.count) wrong quarantine lines, first: \(problems.first ?? "")")
    }

    static func verdictCounts(_ events: String) -> [Delivery.Verdict: Int] {
        var counts: [Delivery.Verdict: Int] = [:]
        for line in events.split(separator: "\n") {
            for verdict in Delivery.Verdict.allCases where line.contains("\"delivery\":\"\(verdict.rawValue)\"") {
                counts[verdict, default: 0] += 1
            }
        }
        return counts
    }

    // MARK: - Tests

    /// Quarantine mode, threads 1 and 3, the default and a small event budget: the events are the
    /// plain run's, byte for byte; the quarantine file holds exactly the bad lines; the summary's
    /// counts are the input's and the events file's. Every configuration writes the same bytes.
    @Test(arguments: [ObservationFormat.jsonLines, .csv])
    func quarantinedRunsEqualThePlainRun(_ format: ObservationFormat) throws {
        let prepared = try #require(Self.prepared[format]).get()
        let input = prepared.input, oracle = prepared.oracle
        #expect(oracle.refused.isEmpty, "the engine refused records the generator wrote as good: \(oracle.refused.prefix(3))")
        let good = input.lines.filter(\.isGood).count, bad = input.lines.filter(\.isBad).count
        let blank = input.lines.count - good - bad
        // The input has what it is meant to have.
        #expect(input.lines.count >= 25_000 && bad > 200 && blank > 20)
        #expect(input.lines.contains { $0.crlf && $0.isBad } && input.lines.contains { $0.crlf && $0.isGood })
        #expect(oracle.finish.split(separator: "\n").count >= 20, "exits at the end of input: \(oracle.finish.split(separator: "\n").count)")
        let expected = oracle.events
        #expect(expected.contains("\"refinement\":{") && expected.contains("\"identifier\":\"block\""))

        let path = try Self.write(input, "tool-oracle")
        var first: ToolRun?
        var largestWrite: [Int: Int] = [:]
        for threads in [1, 3] {
            for budget in [BatchEvaluation.defaultEventBudget, Self.smallBudget] {
                let what = "\(format) threads \(threads) budget \(budget)"
                let run = try Self.tool(path, threads: threads, budget: budget, mode: .quarantine)
                #expect(run.error == nil, "\(what): \(run.error.map(String.init(describing:)) ?? "")")
                let summary = try #require(run.summary)
                largestWrite[budget] = max(largestWrite[budget] ?? 0, summary.largestWrite)
                #expect(Self.difference(run.events, expected) == nil, "\(what): \(Self.difference(run.events, expected) ?? "")")
                try Self.checkQuarantine(run.quarantine ?? "", input, path: path, what)
                #expect(summary.recordsRead == good + bad, "\(what): \(summary.recordsRead) records read, \(good) good + \(bad) bad lines")
                #expect(summary.rejected == bad, "\(what)")
                let lines = run.events.split(separator: "\n").count
                #expect(summary.events == lines, "\(what)")
                #expect(summary.verdicts == Self.verdictCounts(run.events), "\(what): \(summary.verdicts)")
                #expect(summary.verdicts == [.delivered: lines] && summary.reasons.isEmpty && summary.heldAtEnd == 0, "\(what)")
                if let first {
                    #expect(run.events == first.events && run.quarantine == first.quarantine, "\(what): not the bytes of the first run")
                } else {
                    first = run
                }
            }
        }
        // The small budget did cut batches (the events held at once were far fewer).
        #expect(largestWrite[Self.smallBudget]! * 4 < largestWrite[BatchEvaluation.defaultEventBudget]!, "\(largestWrite)")
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Stop mode (the default): the run stops at the first bad line, with an error naming the file,
    /// that line and its field, having written exactly the events of the records before it. For
    /// bad lines at seams through the file (each made the first by blanking the bad lines before
    /// it), on 1 and 3 threads, with the default and the small budget.
    @Test(arguments: [ObservationFormat.jsonLines, .csv])
    func stopsAtTheFirstBadLine(_ format: ObservationFormat) throws {
        let prepared = try #require(Self.prepared[format]).get()
        let input = prepared.input, oracle = prepared.oracle
        let seams = input.seams
        let chosen = [seams[0]] + (1...4).map { seams[seams.count * $0 / 5] } + [seams[seams.count - 1]]
        for (k, index) in chosen.enumerated() {
            let variant = input.badLinesBlanked(before: index)
            let threads = k % 2 == 0 ? 3 : 1, budget = k % 4 < 2 ? BatchEvaluation.defaultEventBudget : Self.smallBudget
            let path = try Self.write(variant, "tool-oracle-stop")
            let line = input.lineNumber(index)
            try Self.checkStop(path: path, variant: variant, index: index, oracle: oracle, threads: threads, budget: budget,
                               "\(format) line \(line) threads \(threads) budget \(budget)")
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// A device whose first line the engine refuses (latitude 95: the reader reads it, the engine
    /// refuses it) is met there by the tool's reader, which names it to the engine; another device
    /// starts before the first one's first good record. The end of input takes devices in the order
    /// the engine started them, as in the plain run of the good records, and as when the reader
    /// refuses the same line (latitude `"95"`, a string): which layer refuses a bad record must not
    /// change the events (a refused record "changes nothing", `MonitoringEngine.process`). At
    /// f864638 the tool wrote x's exits first (devices were taken in the order they were named).
    @Test func refusedFirstRecordDoesNotPlaceItsDevice() throws {
        let desk = #""uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":0,"rssi":-60"#
        func lines(firstLat: String) -> [String] {
            [#"{"type":"fix","device":"x","t":1772352000,"lat":\#(firstLat),"lon":4.835,"accuracy":10}"#,
             #"{"type":"sighting","device":"y","t":1772352000,\#(desk)}"#,
             #"{"type":"sighting","device":"x","t":1772352000,\#(desk)}"#,
             #"{"type":"fix","device":"y","t":1772352030,"lat":45.76,"lon":4.835,"accuracy":10}"#,
             #"{"type":"fix","device":"x","t":1772352030,"lat":45.76,"lon":4.835,"accuracy":10}"#]
        }
        // The plain run: lines 2–5 one at a time, then the end of input.
        var plain = try Self.engine()
        var events: [MonitorEvent] = []
        var reader = try ObservationReader(path: try Fixture.write(lines(firstLat: "45.76").joined(separator: "\n") + "\n", named: "plain.jsonl"))
        while let next = reader.next() {
            let record = try next.get()
            if record.line > 1 { try plain.process(record.observation, device: record.device, cause: record.line, into: &events) }
        }
        plain.finish(into: &events)
        let expected = events.map(EventEncoding.jsonLine).joined()
        // At the end of input: y's exits (desk, any-b), then x's.
        #expect(expected.split(separator: "\n").suffix(4).map { $0.prefix(14) } == [#"{"device":"y","#, #"{"device":"y","#, #"{"device":"x","#, #"{"device":"x","#],
                "\(expected)")

        for (firstLat, refusedBy) in [("\"95\"", "the reader"), ("95", "the engine")] {
            let path = try Fixture.write(lines(firstLat: firstLat).joined(separator: "\n") + "\n", named: "refused-first.jsonl")
            let run = try Self.tool(path, threads: 1, budget: BatchEvaluation.defaultEventBudget, mode: .quarantine)
            #expect(run.summary?.rejected == 1)
            #expect(run.quarantine?.hasPrefix(#"{"file":"\#(path)","line":1,"field":"lat","#) == true, "\(run.quarantine ?? "")")
            #expect(run.events == expected, "refused by \(refusedBy):\n\(run.events)")
        }
    }

    static func checkStop(path: String, variant: Input, index: Int, oracle: Oracle, threads: Int, budget: Int, _ what: String) throws {
        guard case .bad(let field, let mentions) = variant.lines[index].kind else {
            Issue.record("\(what): not a bad line")
            return
        }
        let line = variant.lineNumber(index)
        let run = try tool(path, threads: threads, budget: budget, mode: .stop)
        #expect(run.summary == nil, "\(what): did not stop")
        let error = try #require(run.error, "\(what)")
        #expect(error.file == path && error.line == line && error.field == field && error.message.contains(mentions),
                "\(what): \(error), expected line \(line), field \(field ?? "nil"), a reason with \"\(mentions)\"")
        #expect(error.description.hasPrefix("\(path):\(line): " + (field.map { "field \"\($0)\": " } ?? "")), "\(what): \(error)")
        let expected = oracle.events(before: line)
        #expect(difference(run.events, expected) == nil, "\(what): \(difference(run.events, expected) ?? "")")
    }

    /// Stop mode on 3 threads, with the bad line at the edges of the reader's parallel blocks and of
    /// their shares. The uniform stretch's lines all have one byte length, so a bad line of that
    /// length in place of a good one moves no edge; the blocks are found by reading the input without
    /// it as the tool does (`readPlainFixes` with the room the tool gives, `next()` when it declines),
    /// the shares by the reader's rule (a block split in `threads` parts of equal bytes, each moved on
    /// to a line's start). Bad lines the reader refuses (the block stops there) and ones it reads as
    /// fixes and the engine refuses (their line counted on from the block's first).
    @Test(arguments: [ObservationFormat.jsonLines, .csv])
    func stopsAtTheEdgesOfParallelBlocks(_ format: ObservationFormat) throws {
        let prepared = try #require(Self.prepared[format]).get()
        let threads = 3
        let clean = prepared.input.badLinesBlanked(before: prepared.input.lines.count)
        let cleanPath = try Self.write(clean, "tool-oracle-clean")
        defer { try? FileManager.default.removeItem(atPath: cleanPath) }
        let uniformEnd = clean.lineNumber(clean.uniform.upperBound - 1)
        let width = clean.lines[clean.uniform.upperBound - 1].text.utf8.count + 1
        #expect(clean.lines[clean.uniform.dropFirst()].allSatisfy { $0.text.utf8.count + 1 == width && !$0.crlf })

        // The blocks, as the tool's reader takes them.
        var reader = try ObservationReader(path: cleanPath)
        reader.threads = threads
        var fixes: [PlainFixRecord] = [], pending = 0, blocks: [(first: Int, count: Int)] = []
        while reader.currentLine < uniformEnd {
            let first = reader.currentLine + 1
            let n = reader.readPlainFixes(into: &fixes, limit: BatchEvaluation.batchSize - pending)
            fixes.removeAll(keepingCapacity: true)
            if n > 0 {
                if n > ObservationReader.parallelRun { blocks.append((first, n)) }
                pending += n
                continue
            }
            guard let next = reader.next() else { break }
            pending += 1
            _ = next
        }
        let inside = blocks.filter { $0.first + $0.count <= uniformEnd - 10 }
        try #require(inside.count >= 1, "the uniform stretch is read in parallel blocks: \(blocks)")
        let block = inside[0]
        func shareStart(_ k: Int) -> Int {
            let bytes = block.count * width, b = bytes * k / threads
            return block.first + (b + width - 1) / width
        }
        var positions = [block.first, shareStart(1) - 1, shareStart(1), shareStart(2), block.first + block.count - 1, block.first + block.count]
        if inside.count >= 2 || blocks.count >= 2 { positions.append(blocks[1].first + 1) }

        let readerKinds = ["unknownType", "malformed", "nonNumericLat"], engineKinds = ["outOfRange", "outOfOrder"]
        var k = 0
        for (p, line) in positions.enumerated() {
            for kind in [readerKinds[p % readerKinds.count], engineKinds[p % engineKinds.count]] {
                defer { k += 1 }
                let index = clean.index(ofLine: line)
                guard clean.uniform.contains(index), clean.lines[index].uniform != nil else {
                    Issue.record("line \(line) is not in the uniform stretch")
                    continue
                }
                var variant = clean
                let replaced = try Self.sameLength(kind, at: index, in: clean)
                #expect(replaced.text.utf8.count + 1 == width, "\(kind) at \(line): not the uniform length")
                variant.lines[index] = replaced
                let path = try Self.write(variant, "tool-oracle-block")
                let budget = k % 4 < 2 ? BatchEvaluation.defaultEventBudget : Self.smallBudget
                try Self.checkStop(path: path, variant: variant, index: index, oracle: prepared.oracle, threads: threads, budget: budget,
                                   "\(format) \(kind) at line \(line) (block \(block.first)…\(block.first + block.count - 1)) budget \(budget)")
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// A bad line in place of the uniform line `index`, in as many bytes.
    static func sameLength(_ kind: String, at index: Int, in clean: Input) throws -> Line {
        let format = clean.format
        let u = try #require(clean.lines[index].uniform)
                let replaced: Line
                switch kind {
                case "unknownType":
                    replaced = Line(kind: .bad(field: "type", mentions: "\"fax\""), text: Generator.uniformText(format, type: "fax", u))
                case "malformed":
                    let text = Generator.uniformText(format, u)
                    replaced = format == .csv ? Line(kind: .bad(field: nil, mentions: "cells"), text: String(text.dropLast()) + ";")
                        : Line(kind: .bad(field: nil, mentions: "JSON"), text: "[" + text.dropFirst())
                case "nonNumericLat":
                    replaced = Line(kind: .bad(field: "lat", mentions: "number"),
                                    text: Generator.uniformText(format, u, lat: format == .csv ? "45.76123N" : "\"45.7612\""))
                case "outOfRange":
                    replaced = Line(kind: .bad(field: "lat", mentions: "latitude"), text: Generator.uniformText(format, u, lat: "95.000000"))
                default:
                    // Older than the device of the good line before it, whose last record that is.
                    let previous = try #require(clean.lines[..<index].lastIndex { $0.uniform != nil && $0.isGood })
                    var older = try #require(clean.lines[previous].uniform)
                    older.seconds -= 5
                    replaced = Line(kind: .bad(field: "t", mentions: "older"), text: Generator.uniformText(format, older))
                }
        return replaced
    }

    /// Stop mode on 3 threads at the tool's batch size (262,144 records, README "The tool"): a file of
    /// plain fixes only, so that the first batch is lines 1–262,144 exactly, and the reader's block
    /// that fills it is cut at the room left (mid-share), the next block starting at line 262,145.
    /// A bad line the engine refuses as the first batch's last record and as the second's first.
    @Test func stopsAtTheBatchSize() throws {
        var g = Generator(format: .jsonLines, seed: 4242)
        g.uniformRun(BatchEvaluation.batchSize + 3_000, devices: 400, badFirst: false)
        let clean = Input(format: .jsonLines, lines: g.lines, lastWithoutNewline: false, uniform: 0..<g.lines.count, seams: [])
        let oracle = try Oracle(clean)
        #expect(oracle.refused.isEmpty)
        for (line, kind) in [(BatchEvaluation.batchSize, "outOfOrder"), (BatchEvaluation.batchSize + 1, "outOfRange")] {
            var variant = clean
            let index = clean.index(ofLine: line)
            variant.lines[index] = try Self.sameLength(kind, at: index, in: clean)
            #expect(variant.lines[index].text.utf8.count == clean.lines[index].text.utf8.count)
            let path = try Self.write(variant, "tool-oracle-batch")
            try Self.checkStop(path: path, variant: variant, index: index, oracle: oracle, threads: 3,
                               budget: BatchEvaluation.defaultEventBudget, "\(kind) at line \(line)")
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
