import Foundation
import FuzzSupport
import Perimeter
import PerimeterIO

/// The whole evaluate path: conditions and observations in, events out through `BatchEvaluation.run`
/// (the tool's path: reader and engine on 2 threads, output through `BufferedOutput` to files), in
/// quarantine mode and in stop mode, against the one-record-at-a-time oracle (`EvaluateFuzz`).
///
/// Input: the conditions' bytes, a 0x00 byte, the observations' bytes (later 0x00 bytes belong to the
/// observations). Without a 0x00 byte the whole input is observations, against `defaultConditions`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let nul = bytes.firstIndex(of: 0) {
        EvaluateFuzz.check(conditions: UnsafeBufferPointer(rebasing: bytes[..<nul]),
                           observations: UnsafeBufferPointer(rebasing: bytes[(nul + 1)...]))
    } else {
        EvaluateFuzz.check(conditions: nil, observations: bytes)
    }
    return 0
}

enum EvaluateFuzz {
    /// Inputs whose conditions pass these are skipped (executions stay fast).
    static let largestConditions = 8192
    static let mostConditions = 32
    static let mostVertices = 512

    static let defaultDefinitions: [ConditionDefinition] = {
        let (definitions, problems) = ConditionsReader.parse(Data(defaultConditions.utf8), file: "default.geojson")
        guard problems.isEmpty else { Fuzz.finding("harness: the default conditions have problems: \(problems)") }
        return definitions
    }()

    static func check(conditions: UnsafeBufferPointer<UInt8>?, observations: UnsafeBufferPointer<UInt8>) {
        let definitions: [ConditionDefinition]
        if let conditions {
            guard conditions.count <= largestConditions else { return }
            // The tool refuses a file with any problem; the good definitions still make an engine to evaluate against.
            definitions = ConditionsReader.parse(Data(buffer: conditions), file: "conditions.geojson").0
            let vertices = definitions.reduce(0) { n, d in if case .polygon(let p) = d.condition { n + p.vertexCount } else { n } }
            guard definitions.count <= mostConditions, vertices <= mostVertices else { return }
        } else {
            definitions = defaultDefinitions
        }
        let list = definitions.map { ($0.condition, $0.identifier, $0.assuming) }
        func engine(threads: Int) -> MonitoringEngine? {
            var engine = MonitoringEngine()
            engine.batchThreads = threads
            do { try engine.add(contentsOf: list) } catch { return nil }
            return engine
        }
        guard var oracleEngine = engine(threads: 1) else { return }

        // A name without an extension: the format is sniffed from the first line, as for standard input.
        let path = Scratch.path("observations")
        Scratch.write(observations, to: path)
        defer { Scratch.remove(path) }
        // A quarter of the inputs with lines cut at 128 bytes (longer ones are bad records).
        let maxLineBytes = observations.count % 4 == 1 ? 128 : ObservationReader.defaultMaxLineBytes
        let expected = Oracle(path: path, maxLineBytes: maxLineBytes, engine: &oracleEngine)
        let context = "conditions: \(definitions.map(\.identifier)); observations (\(observations.count) bytes): "
            + Fuzz.short(String(decoding: observations, as: UTF8.self).debugDescription, 1500)

        // Batch cuts at the event budget: the default, or small ones that cut a batch at a device's start.
        let budgets = [BatchEvaluation.defaultEventBudget, 4, 1]
        let budget = budgets[observations.count % budgets.count]

        // Quarantine mode: every good record's events, every bad record quarantined (the reader and
        // the engine read one record at a time: the reader's parallel blocks are not used).
        var run = Tool.run(path: path, engine: engine(threads: 2)!, mode: .quarantine, budget: budget, maxLineBytes: maxLineBytes)
        if let fatal = expected.fatal {
            // A bad CSV header: the run stops even when quarantining.
            guard run.error == fatal else {
                Fuzz.finding("quarantine mode: expected the run to stop with \(fatal), got \(run.error.map(\.description) ?? "no error")\n\(context)")
            }
            EventsOracle.compare(got: run.events, expected: expected.events(before: fatal), "quarantine mode, stopped", context: context)
        } else {
            guard run.error == nil, let summary = run.summary else {
                Fuzz.finding("quarantine mode: the run stopped: \(run.error.map(\.description) ?? "?")\n\(context)")
            }
            EventsOracle.compare(got: run.events, expected: expected.allEvents, "quarantine mode, budget \(budget)", context: context)
            compareText(run.quarantine, expected.quarantine, "quarantine mode: the quarantine file", context)
            compareText(run.authorization, expected.authorization, "quarantine mode: the authorization changes", context)
            let eventLines = run.events.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            guard summary.recordsRead == expected.recordsRead, summary.rejected == expected.rejected.count,
                  summary.events == eventLines else {
                Fuzz.finding("""
                    quarantine mode: the summary says \(summary.recordsRead) records read, \(summary.rejected) rejected, \
                    \(summary.events) events; expected \(expected.recordsRead), \(expected.rejected.count), \(eventLines)
                    \(context)
                    """)
            }
        }

        // Stop mode: the reader's runs of plain fixes (in parallel blocks on 2 threads); the run stops at
        // the first bad record, having written the events of the records before it.
        run = Tool.run(path: path, engine: engine(threads: 2)!, mode: .stop, budget: budget, maxLineBytes: maxLineBytes)
        if let first = expected.rejected.first {
            guard run.error == first else {
                Fuzz.finding("stop mode: expected the run to stop with \(first), got \(run.error.map(\.description) ?? "no error")\n\(context)")
            }
            EventsOracle.compare(got: run.events, expected: expected.events(before: first), "stop mode, budget \(budget)", context: context)
        } else {
            guard run.error == nil else { Fuzz.finding("stop mode: the run stopped: \(run.error!)\n\(context)") }
            EventsOracle.compare(got: run.events, expected: expected.allEvents, "stop mode, budget \(budget)", context: context)
        }
    }

    static func compareText(_ got: String, _ expected: String, _ what: String, _ context: String) {
        guard got != expected else { return }
        let a = got.split(separator: "\n", omittingEmptySubsequences: false)
        let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let k = Fuzz.firstDifference(a, b)
        Fuzz.finding("""
            \(what) differs from the oracle's at line \(k + 1)
              got:      \(k < a.count ? Fuzz.short(String(a[k])) : "(none)")
              expected: \(k < b.count ? Fuzz.short(String(b[k])) : "(none)")
            \(context)
            """)
    }
}

/// The plain evaluator: the reader's good records, one at a time, to a fresh engine
/// (`process(_:device:cause:into:)`, then `finish(into:)`), as `ToolOracleTests` does.
struct Oracle {
    /// Each record's events, by the reader's items in order; then the end of input's.
    var recordEvents: [(line: Int, events: String)] = []
    var finishEvents = ""
    /// Bad records in order: the reader's errors and the engine's refusals.
    var rejected: [InputError] = []
    /// The events written before each rejection (a refused record's own events, from the time before
    /// it, included), by index in `rejected`.
    var eventsBeforeRejection: [String] = []
    var quarantine = ""
    var authorization = ""
    var recordsRead = 0
    /// An error that stops the run whatever the mode (the reader failed: a bad CSV header).
    var fatal: InputError?

    var allEvents: String { recordEvents.map(\.events).joined() + finishEvents }

    func events(before error: InputError) -> String {
        eventsBeforeRejection[rejected.firstIndex(of: error)!]
    }

    init(path: String, maxLineBytes: Int, engine: inout MonitoringEngine) {
        var reader: ObservationReader
        do { reader = try ObservationReader(path: path, maxLineBytes: maxLineBytes) } catch { Fuzz.finding("harness: cannot open \(path): \(error)") }
        var written = ""
        var events: [MonitorEvent] = [], changes: [AuthorizationChange] = []
        func takeChanges() {
            changes.removeAll()
            engine.takeAuthorizationChanges(into: &changes)
            authorization += changes.map(AuthorizationChangeEncoding.jsonLine).joined()
        }
        while let next = reader.next() {
            recordsRead += 1
            switch next {
            case .success(let record):
                events.removeAll()
                var refusal: InputError?
                do throws(ObservationProblem) {
                    try engine.process(record.observation, device: record.device, cause: record.line, into: &events)
                } catch {
                    refusal = InputError(file: path, line: record.line, field: error.field, message: error.message)
                }
                let text = EventsOracle.encode(events).joined()
                written += text
                recordEvents.append((record.line, text))
                takeChanges()
                if let refusal {
                    rejected.append(refusal)
                    eventsBeforeRejection.append(written)
                    quarantine += QuarantineEncoding.jsonLine(refusal, record: reader.currentLineBytes)
                }
            case .failure(let error):
                rejected.append(error)
                eventsBeforeRejection.append(written)
                if reader.failed {
                    fatal = error
                    return
                }
                quarantine += QuarantineEncoding.jsonLine(error, record: reader.currentLineBytes, length: reader.currentLineLength)
            }
        }
        events.removeAll()
        engine.finish(into: &events)
        finishEvents = EventsOracle.encode(events).joined()
        takeChanges()
    }
}

/// `BatchEvaluation.run` as `perimeter evaluate` calls it, its outputs in files (written straight,
/// `init(path:)`: the tool stages them, `init(replacing:)`, and commits them after the run).
enum Tool {
    struct Run {
        var summary: EvaluationSummary?
        var error: InputError?
        var events = "", quarantine = "", authorization = ""
    }

    static func run(path: String, engine: consuming MonitoringEngine, mode: BatchEvaluation.BadRecords, budget: Int,
                    maxLineBytes: Int) -> Run {
        var engine = engine
        let eventsPath = Scratch.path("events.jsonl"), quarantinePath = Scratch.path("bad.jsonl"),
            authorizationPath = Scratch.path("authorization.jsonl")
        defer { for p in [eventsPath, quarantinePath, authorizationPath] { Scratch.remove(p) } }
        var result = Run()
        do throws(InputError) {
            var reader = try ObservationReader(path: path, maxLineBytes: maxLineBytes)
            reader.threads = engine.batchThreads
            var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: eventsPath))
            if mode == .quarantine {
                outputs.quarantine = try BufferedOutput(path: quarantinePath)
                outputs.authorization = try BufferedOutput(path: authorizationPath)
            }
            do throws(InputError) {
                result.summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs,
                                                         badRecords: mode, eventBudget: budget)
            } catch {
                result.error = error
            }
            _ = consume outputs  // (written as it goes; the rest flushed as the outputs end)
        } catch {
            Fuzz.finding("harness: \(error)")
        }
        func text(_ p: String) -> String { String(decoding: Scratch.read(p) ?? [], as: UTF8.self) }
        result.events = text(eventsPath)
        if mode == .quarantine {
            result.quarantine = text(quarantinePath)
            result.authorization = text(authorizationPath)
        }
        return result
    }
}

Fuzz.run { data, size in fuzz(data ?? UnsafePointer(Fuzz.emptyInput), size) }
