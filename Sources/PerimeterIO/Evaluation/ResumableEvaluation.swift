#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Perimeter

/// `perimeter evaluate --state FILE`: a run whose monitor lives in a store, so that a stream can be
/// evaluated in parts (each run goes on from the state the last one left) and a run stopped at any
/// moment — an error, a signal, `kill -9`, a power cut — goes on exactly when the same command is run
/// again.
///
/// What makes a resumed run's outputs byte-identical to an uninterrupted one's: every checkpoint first
/// writes and syncs the events of every record read so far, then saves in one transaction the
/// engine's state, the position reached in the file and the outputs' lengths. A resumed run cuts its
/// staged outputs back to those lengths and reads on from that position; what was written after the
/// checkpoint is written again, once.
public struct ResumableEvaluation {
    /// What a run is asked.
    public struct Request {
        public var state: String
        public var monitor: String
        public var conditions: [ConditionDefinition]
        /// Each group's devices (a groups file, `GroupsReader`), if any.
        public var groups: [String: [String]]?
        public var policy: MonitoringPolicy
        public var threads: Int
        public var observations: String
        public var format: ObservationFormat?
        public var maxLineBytes: Int
        /// Outputs by option: events (`--out`), and `--quarantine` and `--authorization-out` if asked.
        public var events: String
        public var quarantine: String?
        public var authorization: String?
        /// Whether the file ends the stream (`--final`): beacon exits due at its end fire.
        public var endsStream: Bool
        public var checkpointInterval: Duration
        public var checkpointRecords: Int?
        /// When the state holds a stopped run of another command: end that run where its last
        /// checkpoint stood (its outputs put in place as they were then) and go on with this one.
        public var endStoppedRun = false

        public init(state: String, monitor: String, conditions: [ConditionDefinition], policy: MonitoringPolicy, threads: Int,
                    observations: String, format: ObservationFormat?, maxLineBytes: Int, events: String, quarantine: String?,
                    authorization: String?, endsStream: Bool, checkpointInterval: Duration, checkpointRecords: Int?) {
            (self.state, self.monitor, self.conditions, self.policy, self.threads) = (state, monitor, conditions, policy, threads)
            (self.observations, self.format, self.maxLineBytes) = (observations, format, maxLineBytes)
            (self.events, self.quarantine, self.authorization) = (events, quarantine, authorization)
            (self.endsStream, self.checkpointInterval, self.checkpointRecords) = (endsStream, checkpointInterval, checkpointRecords)
        }
    }

    /// How a run ended.
    public struct Outcome {
        public var summary: EvaluationSummary
        /// Whether it went on with a run that had stopped.
        public var resumed: Bool
        /// Whether the file had nothing the state had not read: the outputs were left as they were.
        public var nothingNew: Bool
        /// Things to tell the person (conditions changed since the last run, …).
        public var notes: [String]
    }

    /// A failure that is not one record's or one file's: the state, or a command that does not fit it.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    let request: Request
    let store: SQLiteStore
    /// The observations file, its symbolic links resolved: it names the file in the state.
    let input: String
    /// What a later command must repeat to go on with this run.
    let command: String

    /// Runs `request`; `progress` as for `BatchEvaluation.run`.
    public static func run(_ request: Request, progress: (EvaluationSummary) -> Void = { _ in }) throws -> Outcome {
        guard request.observations != "-" else {
            throw Refusal(description: "--state needs a file for --observations: standard input cannot be read again from where a run stopped")
        }
        let store = try SQLiteStore(path: request.state)
        defer { try? store.close() }
        let input = BufferedOutput.realPath(request.observations) ?? request.observations
        let evaluation = ResumableEvaluation(request: request, store: store, input: input, command: Self.command(request, input: input))
        return try evaluation.run(progress: progress)
    }

    /// The options a resumed run must repeat, as text (paths made absolute).
    static func command(_ request: Request, input: String) -> String {
        var lines = ["observations \(input)", "format \(request.format?.rawValue ?? "-")", "out \(absolute(request.events))",
                     "max-line-bytes \(request.maxLineBytes)", "final \(request.endsStream)"]
        if let quarantine = request.quarantine { lines.append("quarantine \(absolute(quarantine))") }
        if let authorization = request.authorization { lines.append("authorization-out \(absolute(authorization))") }
        return lines.joined(separator: "\n")
    }

    func run(progress: (EvaluationSummary) -> Void) throws -> Outcome {
        var notes: [String] = []
        let saved = try store.loadMonitor(named: request.monitor)
        var engine = try restoredEngine(saved, notes: &notes)
        let streamLines = saved?.recordCount ?? 0
        var reader = try ObservationReader(path: request.observations, format: request.format, maxLineBytes: request.maxLineBytes)
        reader.threads = engine.batchThreads

        var outputs: BatchEvaluation.Outputs
        var run: StoredRun
        var resumed = false
        if let stopped = try store.unfinishedRun(monitor: request.monitor), stopped.command != command {
            guard request.endStoppedRun else {
                throw Refusal(description: """
                    \(request.state): monitor \(request.monitor) has a run of another command that stopped; run that command again to finish it, or give --end-stopped-run to end it at its last checkpoint:
                    \(stopped.command.replacingOccurrences(of: "\n", with: ", "))
                    """)
            }
            try Self.commit(stopped)
            try store.endRun(monitor: request.monitor)
            notes.append("the run that had stopped ended at its last checkpoint: \(stopped.outputs.map { "\($0.target) holds its first \($0.length) bytes" }.joined(separator: ", "))")
        }
        if let unfinished = try store.unfinishedRun(monitor: request.monitor) {
            if unfinished.committing {
                try Self.commit(unfinished)
                try store.endRun(monitor: request.monitor)
                return Outcome(summary: unfinished.summary, resumed: true, nothingNew: false, notes: notes)
            }
            let stored = try store.input(monitor: request.monitor, path: input)
            try checkTail(stored)
            try reader.start(at: stored?.position ?? .start)
            outputs = try Self.resumedOutputs(unfinished)
            run = unfinished
            resumed = true
        } else {
            let stored = try store.input(monitor: request.monitor, path: input)
            let position = stored?.position ?? .start
            if stored != nil {
                try checkTail(stored)
                if fileSize(input) == position.offset {
                    return Outcome(summary: EvaluationSummary(), resumed: false, nothingNew: true, notes: notes)
                }
            }
            try reader.start(at: position)
            // The file's lines number on from the stream's before it (a later CSV part's header not
            // counted); a file read partly already numbers on from where it was left.
            let causeBase = position.offset > 0 ? streamLines - position.line
                : streamLines - (reader.format == .csv && streamLines > 0 ? 1 : 0)
            // The partial files are named in the state before they are made: a stop in between
            // leaves no file the state does not know (the next run makes them).
            run = StoredRun(command: command, input: input, causeBase: causeBase, summary: EvaluationSummary(),
                            outputs: try Self.plannedOutputs(request))
            try store.save(monitor: snapshot(engine.snapshot(), lines: streamLines), named: request.monitor, run: run, input: nil)
            outputs = try Self.resumedOutputs(run)
        }

        let base = run.causeBase, template = run
        let checkpoints = BatchEvaluation.Checkpoints(interval: request.checkpointInterval, records: request.checkpointRecords) {
            progress throws(InputError) in
            var saved = template
            saved.summary = progress.summary
            saved.outputs = Self.lengths(template.outputs, events: progress.eventsLength, quarantine: progress.quarantineLength,
                                         authorization: progress.authorizationLength)
            try self.checkpoint(progress.engine, run: saved, position: progress.position, base: base)
        }
        let summary = try BatchEvaluation.run(
            engine: &engine, observations: &reader, outputs: &outputs,
            badRecords: request.quarantine == nil ? .stop : .quarantine,
            continuation: BatchEvaluation.Continuation(causeBase: base, endsStream: request.endsStream, summary: run.summary,
                                                       checkpoints: checkpoints),
            progress: progress)

        // The end: everything written and synced, saved as committing, put in place, and the run gone.
        try outputs.events.sync()
        try outputs.quarantine?.sync()
        try outputs.authorization?.sync()
        guard let position = reader.position else { throw Refusal(description: "\(request.observations): the reader lost its place") }
        run.summary = summary
        run.committing = true
        run.outputs = Self.lengths(run.outputs, events: outputs.events.length, quarantine: outputs.quarantine?.length,
                                   authorization: outputs.authorization?.length)
        try checkpoint(engine.snapshot(), run: run, position: position, base: base)
        try outputs.events.commit()
        try outputs.quarantine?.commit()
        try outputs.authorization?.commit()
        try store.endRun(monitor: request.monitor)
        return Outcome(summary: summary, resumed: resumed, nothingNew: false, notes: notes)
    }

    /// Saves the engine, the run and the position reached in one transaction.
    func checkpoint(_ engine: MonitoringEngine.Snapshot, run: StoredRun, position: ReadPosition, base: Int) throws(InputError) {
        do {
            let tail = try InputFile.tailDigest(input, before: position.offset)
            try store.save(monitor: snapshot(engine, lines: base + position.line), named: request.monitor, run: run,
                           input: StoredInput(path: input, position: position, tail: tail))
        } catch let error as InputError {
            throw error
        } catch let error as MonitorStoreError {
            // (Its message names the store already.)
            let prefix = request.state + ": "
            let message = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            throw InputError(file: request.state, line: nil, field: nil, message: message)
        } catch {
            throw InputError(file: request.state, line: nil, field: nil, message: "\(error)")
        }
    }

    /// The monitor as the store keeps it; `lines`, the stream's lines so far, is its record count.
    func snapshot(_ engine: MonitoringEngine.Snapshot, lines: Int) -> Monitor.Snapshot {
        Monitor.Snapshot(policy: request.policy, engine: engine, recordCount: lines)
    }
}
