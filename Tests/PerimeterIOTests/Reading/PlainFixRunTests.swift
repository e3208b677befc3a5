import Foundation
import Testing
import PerimeterTestSupport
@testable import Perimeter
@testable import PerimeterIO

/// `ObservationReader.readPlainFixes` against `next()`, its oracle: reading runs of plain fixes in
/// bulk, then one record at a time wherever a run stops, gives exactly the records (and errors) that
/// reading one record at a time gives — across buffer refills, a line longer than the buffer, CRLF
/// endings, blank lines and a last line without a newline.
@Suite struct PlainFixRunTests {
    /// What a reader yields, as comparable values: a record, or an error's line, field and message.
    enum Item: Equatable, CustomStringConvertible {
        case record(device: String, observation: Observation, line: Int)
        case error(line: Int?, field: String?, message: String)

        var description: String {
            switch self {
            case .record(let device, let observation, let line): "\(line): \(device) \(observation)"
            case .error(let line, let field, let message): "\(line ?? -1): error \(field ?? "-") \(message)"
            }
        }
    }

    static func oneAtATime(_ path: String) throws -> [Item] {
        var reader = try ObservationReader(path: path)
        var items: [Item] = []
        while let next = reader.next() { items.append(item(next)) }
        return items
    }

    /// Bulk runs with limits drawn at random (1 up to many blocks' worth), `next()` wherever a run stops.
    /// With `threads` of 0, the thread count changes from run to run (1 to 4).
    static func inRuns(_ path: String, threads: Int, seed: UInt64) throws -> (items: [Item], plain: Int) {
        var reader = try ObservationReader(path: path)
        reader.threads = max(1, threads)
        var rng = SplitMix64(seed: seed)
        var items: [Item] = [], plain = 0
        var run: [PlainFixRecord] = []
        while true {
            run.removeAll()
            let limit = Bool.random(using: &rng) ? Int.random(in: 1...3000, using: &rng) : Int.random(in: 1...40_000, using: &rng)
            if threads == 0 { reader.threads = Int.random(in: 1...4, using: &rng) }
            let n = reader.readPlainFixes(into: &run, limit: limit)
            #expect(n == run.count)
            if n > 0 {
                plain += n
                items += run.map { .record(device: reader.deviceName($0.deviceNumber), observation: .fix($0.fix), line: $0.line) }
                continue
            }
            guard let next = reader.next() else { break }
            items.append(item(next))
        }
        return (items, plain)
    }

    /// `inRuns` as the tool reads: the engine's records appended to one list that is never emptied
    /// (the first share writes to it directly), each device numbered to the engine through a map that
    /// is not the reader's own numbering.
    static func inRunsAsEngineRecords(_ path: String, threads: Int, seed: UInt64) throws -> (items: [Item], plain: Int) {
        var reader = try ObservationReader(path: path)
        reader.threads = max(1, threads)
        var rng = SplitMix64(seed: seed)
        var items: [Item] = [], plain = 0
        var records: [FixRecord] = [], deviceIDs: [DeviceID] = [], names: [Int32: String] = [:]
        while true {
            let limit = Bool.random(using: &rng) ? Int.random(in: 1...3000, using: &rng) : Int.random(in: 1...40_000, using: &rng)
            if threads == 0 { reader.threads = Int.random(in: 1...4, using: &rng) }
            let before = records.count
            let n = reader.readPlainFixes(into: &records, limit: limit, deviceIDs: &deviceIDs) { number, name in
                #expect(Int(number) == names.count)
                let id = DeviceID(index: 7 + 2 * number)
                names[id.index] = name
                return id
            }
            #expect(records.count == before + n)
            if n > 0 {
                plain += n
                items += records[before...].map { .record(device: names[$0.device.index] ?? "?", observation: .fix($0.fix), line: $0.cause) }
                continue
            }
            guard let next = reader.next() else { break }
            items.append(item(next))
        }
        return (items, plain)
    }

    static func item(_ result: Result<ObservationRecord, InputError>) -> Item {
        switch result {
        case .success(let r): .record(device: r.device, observation: r.observation, line: r.line)
        case .failure(let e): .error(line: e.line, field: e.field, message: e.message)
        }
    }

    /// Lines of every kind: plain fixes (most), fixes the fast path leaves to the general one (an
    /// extra field, an escape, a number it refuses), other records, bad records, blank lines; every
    /// other stretch of 6,000 lines holds plain fixes only, as long runs do.
    static func records(csv: Bool, count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        var lines: [String] = []
        var t = 1_772_352_000
        for k in 0..<count {
            t += Int.random(in: 0...1, using: &rng)
            let device = "d\(Int.random(in: 0..<300, using: &rng))"
            let lat = String(Double.random(in: 48...49, using: &rng)), lon = String(Double.random(in: 2...3, using: &rng))
            let accuracy = String(Double.random(in: 5...65, using: &rng))
            let kind = (k / 6000) % 2 == 1 ? 39 : Int.random(in: 0..<40, using: &rng)
            if csv {
                // type,device,t,lat,lon,accuracy,speed,uuid,major,minor,rssi
                switch kind {
                case 0: lines.append("fix,\(device),\(t),\(lat),\(lon),\(accuracy),3,,,,")
                case 1: lines.append("sighting,\(device),\(t),,,,,E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,1,2,-60")
                case 2: lines.append("fix,\"\(device)\",\(t),\(lat),\(lon),\(accuracy),,,,,")
                case 3: lines.append("fix,\(device),\(t),north,\(lon),\(accuracy),,,,,")
                case 4: lines.append("")
                case 5: lines.append("fix,\(device),\(t),\(lat),\(lon),\(accuracy),,,,,\r")
                default: lines.append("fix,\(device),\(t),\(lat),\(lon),\(accuracy),,,,,")
                }
            } else {
                let fields = "\"device\":\"\(device)\",\"t\":\(t),\"lat\":\(lat),\"lon\":\(lon),\"accuracy\":\(accuracy)"
                switch kind {
                case 0: lines.append("{\"type\":\"fix\",\(fields),\"speed\":3}")
                case 1: lines.append("{\"type\":\"sighting\",\"device\":\"\(device)\",\"t\":\(t),\"uuid\":\"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\",\"major\":1,\"minor\":2,\"rssi\":-60}")
                case 2: lines.append("{\"type\":\"fix\",\"device\":\"\\u0064\(k % 7)\",\"t\":\(t),\"lat\":1,\"lon\":2,\"accuracy\":3}")
                case 3: lines.append("{\"type\":\"fix\",\(fields.replacingOccurrences(of: "\"lat\":", with: "\"lat\":0"))}")
                case 4: lines.append("  ")
                case 5: lines.append("{\"type\":\"fix\",\(fields)}\r")
                case 6: lines.append("{\"type\":\"fix\",")
                default: lines.append("{\"type\":\"fix\",\(fields)}")
                }
            }
            if k == count / 2 || k == count * 3 / 4 {
                // Longer than the reader's buffer, then than a parallel block: the buffer must grow,
                // and the line is still a plain fix.
                let long = "L" + String(repeating: "x", count: (k == count / 2 ? LineReader.chunkSize : ObservationReader.largestBlock) + 1000)
                lines.append(csv ? "fix,\(long),\(t),1,2,3,,,,," : "{\"type\":\"fix\",\"device\":\"\(long)\",\"t\":\(t),\"lat\":1,\"lon\":2,\"accuracy\":3}")
            }
        }
        return lines
    }

    @Test(arguments: [false, true], [1, 3, 0])
    func bulkRunsReadWhatOneAtATimeReads(csv: Bool, threads: Int) throws {
        let trailingNewline = threads == 1
        var lines = Self.records(csv: csv, count: 40_000, seed: csv ? 21 : 22)
        if csv { lines.insert("type,device,t,lat,lon,accuracy,speed,uuid,major,minor,rssi", at: 0) }
        let text = lines.joined(separator: "\n") + (trailingNewline ? "\n" : "")
        #expect(text.utf8.count > 4 * LineReader.chunkSize)
        let path = try Fixture.write(text, named: csv ? "runs.csv" : "runs.jsonl")
        let oracle = try Self.oneAtATime(path)
        let (items, plain) = try Self.inRuns(path, threads: threads, seed: 5)
        Self.expect(items, plain: plain, toEqual: oracle)
        #expect(oracle.contains { if case .error = $0 { true } else { false } })
        #expect(oracle.contains { if case .record(let device, _, _) = $0 { device.hasPrefix("L") } else { false } })
    }

    @Test(arguments: [false, true], [3, 0])
    func engineRecordsAppendedToOneListReadWhatOneAtATimeReads(csv: Bool, threads: Int) throws {
        var lines = Self.records(csv: csv, count: 40_000, seed: csv ? 23 : 24)
        if csv { lines.insert("type,device,t,lat,lon,accuracy,speed,uuid,major,minor,rssi", at: 0) }
        let path = try Fixture.write(lines.joined(separator: "\n"), named: csv ? "engine-runs.csv" : "engine-runs.jsonl")
        let oracle = try Self.oneAtATime(path)
        let (items, plain) = try Self.inRunsAsEngineRecords(path, threads: threads, seed: 6)
        Self.expect(items, plain: plain, toEqual: oracle)
    }

    /// The items read in runs are the oracle's, most of them plain fixes, and the first difference
    /// is named if not.
    static func expect(_ items: [Item], plain: Int, toEqual oracle: [Item]) {
        #expect(items.count == oracle.count)
        #expect(plain > 36_000)
        if let k = zip(items, oracle).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("first difference at item \(k): \(items[k]) against \(oracle[k])")
        }
    }
}

extension PlainFixRunTests {
    /// Fewer threads than the run before: only as many shares as threads now count.
    @Test func fewerThreadsThanBefore() throws {
        let lines = (0..<30_000).map { k in
            "{\"type\":\"fix\",\"device\":\"d\(k % 97)\",\"t\":\(1_772_352_000 + k),\"lat\":48.\(k),\"lon\":2.\(k),\"accuracy\":5}"
        }
        let path = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "fewer.jsonl")
        let oracle = try Self.oneAtATime(path)
        var reader = try ObservationReader(path: path)
        var run: [PlainFixRecord] = [], items: [Item] = []
        for threads in [4, 2, 3, 1] {
            reader.threads = threads
            run.removeAll()
            _ = reader.readPlainFixes(into: &run, limit: 7_000)
            items += run.map { .record(device: reader.deviceName($0.deviceNumber), observation: .fix($0.fix), line: $0.line) }
        }
        while let next = reader.next() { items.append(Self.item(next)) }
        #expect(items == oracle)
    }

    /// Runs that want few records each (as a batch's last ones do) read short blocks; reading ahead of
    /// each must keep about a block unread, not a block more every time: it once piled up unread
    /// bytes without bound, a megabyte or more per batch of the tool.
    @Test func shortBlocksKeepWhatIsReadAheadBounded() throws {
        let count = 120_000
        let lines = (0..<count).map { k in
            "{\"type\":\"fix\",\"device\":\"d\(k % 97)\",\"t\":\(1_772_352_000 + k),\"lat\":48.\(k),\"lon\":2.\(k),\"accuracy\":5}"
        }
        let path = try Fixture.write(lines.joined(separator: "\n") + "\n", named: "short-blocks.jsonl")
        var reader = try ObservationReader(path: path)
        reader.threads = 2
        reader.blockLimit = 1 << 20
        var run: [PlainFixRecord] = [], read = 0, mostUnread = 0, k = 0
        while true {
            run.removeAll()
            let n = reader.readPlainFixes(into: &run, limit: k % 2 == 0 ? ObservationReader.parallelTail : 3000)
            guard n > 0 else { break }
            #expect(run.first?.line == read + 1)
            read += n
            k += 1
            mostUnread = max(mostUnread, reader.lines.unreadBytes)
        }
        #expect(read == count)
        #expect(mostUnread <= 2 * reader.blockLimit, "\(mostUnread) bytes unread at most")
        #expect(reader.next() == nil)
    }

    /// A run's records hold what the engine evaluates, in 48 bytes: every copy a block of fixes
    /// goes through (decoded, merged, made into the engine's records) moves a third less memory.
    @Test func plainFixRecordsAreCompact() {
        let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: 5), coordinate: Coordinate(latitude: 1, longitude: 2),
                      horizontalAccuracy: 7, speed: 1)
        let record = PlainFixRecord(deviceNumber: 3, fix: fix, line: 11)
        #expect(record.fix == Fix(time: fix.time, coordinate: fix.coordinate, horizontalAccuracy: 7))
        #expect(record.deviceNumber == 3 && record.line == 11)
        #expect(MemoryLayout<PlainFixRecord>.stride == 48)
    }
}
