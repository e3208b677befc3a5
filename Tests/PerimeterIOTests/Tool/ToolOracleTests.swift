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
///   line (docs/observations.md: blank lines are skipped but counted);
/// - a quarantined record is the line as written without its line ending (`\n` or `\r\n`);
/// - a run stopped at a bad line has written exactly the events of the records before it, and none
///   of the end of input (it never reached the end).
///
/// The oracle (the conditions, the input's writer and the events) is in `Oracles/ToolOracle.swift`
/// and `Oracles/ToolInput*.swift`; the tool's runs are in `Support/ToolRun.swift`.
@Suite struct ToolOracleTests {
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
    /// their chunks. The uniform stretch's lines all have one byte length, so a bad line of that
    /// length in place of a good one moves no edge; the blocks are found by reading the input without
    /// it as the tool does (`readPlainFixes` with the room the tool gives, `next()` when it declines),
    /// the chunks by the reader's rule (a block split in parts of about `chunkTarget` bytes, at least
    /// one a thread, each moved on to a line's start). The first chunk is mostly the first thread's,
    /// the last another's, and those between go to whichever comes free: the events must not depend on
    /// which. Bad lines the reader refuses (the block stops there) and ones it reads as fixes and the
    /// engine refuses (their line counted on from the block's first).
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
        reader.blockLimit = Self.blockLimit
        reader.chunkTarget = Self.chunkTarget
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
        let bytes = block.count * width, chunks = max(threads, bytes / Self.chunkTarget)
        try #require(chunks >= 8, "a block of many chunks: \(chunks)")
        func chunkStart(_ k: Int) -> Int { block.first + (bytes * k / chunks + width - 1) / width }
        var positions = [block.first, chunkStart(1) - 1, chunkStart(1), chunkStart(chunks / 2), chunkStart(chunks - 1) - 1,
                         chunkStart(chunks - 1), block.first + block.count - 1, block.first + block.count]
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

    /// Stop mode on 3 threads at the tool's batch size (262,144 records, docs/design/batches-and-shards.md): a file of
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
