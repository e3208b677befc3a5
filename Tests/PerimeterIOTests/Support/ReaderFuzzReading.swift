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

/// `ReaderFuzzTests`' reading of a file (one record at a time, and in runs of plain fixes) and the
/// comparison of what it read with the oracle's expectations, bit for bit.
extension ReaderFuzzTests {
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
        // Blocks of 1 MiB, in chunks of 4–64 KiB: several blocks a file, many chunks a block.
        reader.blockLimit = 1 << 20
        reader.chunkTarget = 1 << Int.random(in: 12...16, using: &rng)
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
}
