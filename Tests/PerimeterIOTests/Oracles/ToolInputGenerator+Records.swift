import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Good and bad records of `ToolOracleTests`' input, each line with what it must give.
extension ToolOracleTests.Generator {
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
}
