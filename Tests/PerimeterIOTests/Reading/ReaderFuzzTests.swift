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
///
/// The oracle is in `Oracles/StrictJSON.swift` and `Oracles/ReaderFuzz*.swift`; the producers,
/// mutations and reading are in `Support/ReaderFuzz*.swift`.
@Suite struct ReaderFuzzTests {
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
        #expect(bytes.count > 4 << 20, "several blocks of the runs' 1 MiB")
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
