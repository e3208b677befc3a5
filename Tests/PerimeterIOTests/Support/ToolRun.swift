import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `ToolOracleTests`' runs of the batch tool as `perimeter evaluate` makes them, and the checks of
/// its quarantine file and summary.
extension ToolOracleTests {
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

    /// The reader's parallel blocks and their chunks in these runs: smaller than the tool's, so that the
    /// input holds several blocks of many chunks.
    static let blockLimit = 1 << 20, chunkTarget = 1 << 13

    /// `BatchEvaluation.run` as `perimeter evaluate` calls it: the reader and the engine on `threads`
    /// threads, a quarantine output only in `.quarantine` mode; the reader's blocks and chunks smaller.
    static func tool(_ path: String, threads: Int, budget: Int, mode: BatchEvaluation.BadRecords) throws -> ToolRun {
        var engine = try engine(threads: threads)
        var reader = try ObservationReader(path: path)
        reader.threads = threads
        reader.blockLimit = blockLimit
        reader.chunkTarget = chunkTarget
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
}
