import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The stretches of `ToolOracleTests`' input: the uniform stretch of plain fixes of one byte length,
/// the mixed part (runs of fixes and sightings, new devices at seams, short runs), the tail of
/// exits at the end of input, and the whole file.
extension ToolOracleTests.Generator {
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
        var g = Self(format: format, seed: seed)
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
