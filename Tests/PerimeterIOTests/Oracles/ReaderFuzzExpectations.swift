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

/// `ReaderFuzzTests`' oracle for a line: what it must give (a record, an error naming a field, or
/// what the contract leaves open), and the JSON Lines file's lines.
extension ReaderFuzzTests {
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
            // A CSV number is written as JSON writes one (docs/observations.md): `+1`, `.5`, `01`, `0x10` are errors.
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
}
