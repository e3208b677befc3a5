import Dispatch
import Perimeter

/// Evaluates a recorded stream: reads records one at a time, feeds the engine, writes each event as
/// it is produced. Constant memory apart from the engine's per-device state.
public enum BatchEvaluation {
    /// What to do with a bad record.
    public enum BadRecords {
        /// Stop at the first bad record with its error (the default).
        case stop
        /// Write it with its reason to the quarantine output and go on.
        case quarantine
    }

    /// Where a run writes: events, and optionally bad records and authorization changes.
    public struct Outputs: ~Copyable {
        public var events: BufferedOutput
        /// Bad records with their reason, when the run quarantines instead of stopping.
        public var quarantine: BufferedOutput?
        /// Authorization changes as JSON Lines (`--authorization-out`).
        public var authorization: BufferedOutput?

        public init(events: consuming BufferedOutput, quarantine: consuming BufferedOutput? = nil,
                    authorization: consuming BufferedOutput? = nil) {
            self.events = events
            self.quarantine = quarantine
            self.authorization = authorization
        }
    }

    /// Fixes handed to the engine's batch path at once.
    static let batchSize = 65536

    /// Runs the whole stream.
    ///
    /// - Parameters:
    ///   - badRecords: `.quarantine` writes bad records to `outputs.quarantine` and goes on.
    ///   - progress: called about once a second after the first two seconds, with the counts so far.
    /// - Throws: the first bad record's error when `badRecords` is `.stop`, or an output error. Events
    ///   of the records before it have been written.
    public static func run(engine: inout MonitoringEngine,
                           observations: inout ObservationReader,
                           outputs: inout Outputs,
                           badRecords: BadRecords = .stop,
                           progress: (EvaluationSummary) -> Void = { _ in }) throws(InputError) -> EvaluationSummary {
        let clock = ContinuousClock()
        let start = clock.now
        var lastProgress = start
        var summary = EvaluationSummary()
        var events: [MonitorEvent] = []
        var changes: [AuthorizationChange] = []

        func reject(_ error: InputError, text: String, outputs: inout Outputs) throws(InputError) {
            summary.rejected += 1
            guard badRecords == .quarantine, outputs.quarantine != nil, !observations.failed else { throw error }
            try outputs.quarantine!.append(QuarantineEncoding.jsonLine(error, record: text))
        }

        func write(_ events: [MonitorEvent], _ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            for event in events {
                summary.count(event)
                try outputs.events.append { EventEncoding.append(event, to: &$0) }
            }
            changes.removeAll(keepingCapacity: true)
            engine.takeAuthorizationChanges(into: &changes)
            if outputs.authorization != nil {
                for change in changes { try outputs.authorization!.append(AuthorizationChangeEncoding.jsonLine(change)) }
            }
        }

        // The engine's number for each device, by the reader's number: no lookup by name per record.
        var deviceIDs: [DeviceID?] = []
        func deviceID(number: Int32, _ engine: inout MonitoringEngine) -> DeviceID {
            let n = Int(number)
            if n >= deviceIDs.count { deviceIDs += repeatElement(nil, count: n + 1 - deviceIDs.count) }
            if let id = deviceIDs[n] { return id }
            let id = engine.deviceID(observations.deviceName(number))
            deviceIDs[n] = id
            return id
        }

        // Consecutive fixes go through the engine's batch path (same events, geometry computed cell
        // by cell), on another thread while this one reads the next batch: the engine is handed to
        // the job and back (swapped, never shared), and the job's events are written before anything
        // after them. Anything but a fix, and the end, first drains the job and the pending fixes.
        // The text of a pending fix is kept only when it may have to be quarantined.
        var pending: [PlainFixRecord] = []
        var pendingTexts: [String] = []
        let keepTexts = badRecords == .quarantine
        let job = BatchJob(engine: MonitoringEngine(policy: engine.policy))
        var jobRunning = false

        /// After a batch refused a fix: rejects it and applies the rest of the batch in this thread,
        /// as often as fixes are refused.
        func rejectAndResume(_ batch: [FixRecord], texts: [String], refusal firstRefusal: BatchProblem?,
                             _ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            var from = 0, refusal = firstRefusal
            while let error = refusal {
                let bad = from + error.index
                try reject(InputError(file: observations.file, line: batch[bad].cause, field: error.problem.field,
                                      message: error.problem.message),
                           text: keepTexts ? texts[bad] : "", outputs: &outputs)
                from = bad + 1
                refusal = nil
                guard from < batch.count else { return }
                events.removeAll(keepingCapacity: true)
                do throws(BatchProblem) {
                    try engine.process(Array(batch[from...]), into: &events)
                } catch {
                    refusal = error
                }
                try write(events, &engine, outputs: &outputs)
            }
        }

        /// Waits for the running job, takes the engine back and writes what the job produced.
        func join(_ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            guard jobRunning else { return }
            job.done.wait()
            jobRunning = false
            swap(&engine, &job.engine)
            try write(job.events, &engine, outputs: &outputs)
            try rejectAndResume(job.batch, texts: job.texts, refusal: job.refusal, &engine, outputs: &outputs)
        }

        /// Hands the pending fixes to a new job (after the previous one).
        func dispatch(_ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            try join(&engine, outputs: &outputs)
            guard !pending.isEmpty else { return }
            job.batch.removeAll(keepingCapacity: true)
            for p in pending {
                job.batch.append(FixRecord(device: deviceID(number: p.deviceNumber, &engine), fix: p.fix, cause: p.line))
            }
            swap(&job.texts, &pendingTexts)
            pending.removeAll(keepingCapacity: true)
            pendingTexts.removeAll(keepingCapacity: true)
            swap(&engine, &job.engine)
            jobRunning = true
            job.start()
        }

        /// Everything pending applied and written.
        func drain(_ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            try dispatch(&engine, outputs: &outputs)
            try join(&engine, outputs: &outputs)
        }

        var nextProgressCheck = 4096
        while true {
            if summary.recordsRead >= nextProgressCheck {
                nextProgressCheck = summary.recordsRead + 4096
                let now = clock.now
                if now - start > .seconds(2) && now - lastProgress >= .seconds(1) {
                    lastProgress = now
                    summary.elapsedSeconds = (now - start).seconds
                    progress(summary)
                }
            }
            // Runs of plain fixes in bulk (one at a time when their texts are kept); anything else
            // one record at a time.
            let room = Self.batchSize - pending.count
            let plain = observations.readPlainFixes(into: &pending, limit: keepTexts ? 1 : room)
            if plain > 0 {
                summary.recordsRead += plain
                if keepTexts { pendingTexts.append(observations.currentLineText) }
                if pending.count >= Self.batchSize { try dispatch(&engine, outputs: &outputs) }
                continue
            }
            guard let next = observations.next() else { break }
            summary.recordsRead += 1
            switch next {
            case .success(let record):
                if case .fix(let fix) = record.observation {
                    pending.append(PlainFixRecord(deviceNumber: record.deviceNumber, fix: fix, line: record.line))
                    if keepTexts { pendingTexts.append(observations.currentLineText) }
                    if pending.count >= Self.batchSize { try dispatch(&engine, outputs: &outputs) }
                    break
                }
                try drain(&engine, outputs: &outputs)
                events.removeAll(keepingCapacity: true)
                do throws(ObservationProblem) {
                    try engine.process(record.observation, device: deviceID(number: record.deviceNumber, &engine),
                                       cause: record.line, into: &events)
                } catch {
                    // Write what the time before the refused record produced, then refuse it.
                    try write(events, &engine, outputs: &outputs)
                    events.removeAll(keepingCapacity: true)
                    try reject(InputError(file: observations.file, line: record.line, field: error.field, message: error.message),
                               text: observations.currentLineText, outputs: &outputs)
                }
                try write(events, &engine, outputs: &outputs)
            case .failure(let error):
                try drain(&engine, outputs: &outputs)
                try reject(error, text: observations.currentLineText, outputs: &outputs)
            }
        }
        try drain(&engine, outputs: &outputs)
        events.removeAll(keepingCapacity: true)
        engine.finish(into: &events)
        try write(events, &engine, outputs: &outputs)
        try outputs.events.flush()
        try outputs.quarantine?.flush()
        try outputs.authorization?.flush()
        summary.heldAtEnd = engine.heldEventCount
        summary.requests = engine.requestOutcomes
        summary.elapsedSeconds = (clock.now - start).seconds
        return summary
    }
}

/// One batch of fixes applied on a worker thread, with the engine handed to it for the time.
///
/// `@unchecked Sendable`: the evaluating thread and the worker never touch it at the same time — the
/// evaluating thread fills it, starts it, and reads it again only after `done` is signalled.
final class BatchJob: @unchecked Sendable {
    var engine: MonitoringEngine
    var batch: [FixRecord] = []
    var texts: [String] = []
    var events: [MonitorEvent] = []
    var refusal: BatchProblem?
    let done = DispatchSemaphore(value: 0)

    init(engine: MonitoringEngine) {
        self.engine = engine
    }

    func start() {
        DispatchQueue.global().async { [self] in
            events.removeAll(keepingCapacity: true)
            refusal = nil
            do throws(BatchProblem) {
                try engine.process(batch, into: &events)
            } catch {
                refusal = error
            }
            done.signal()
        }
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

/// The quarantine file's line for a bad record: `{"file","line","field","reason","record"}`.
public enum QuarantineEncoding {
    public static func jsonLine(_ error: InputError, record: String) -> String {
        "{\"file\":" + JSONText.quoted(error.file)
            + ",\"line\":" + (error.line.map(String.init) ?? "null")
            + ",\"field\":" + JSONText.quotedOrNull(error.field)
            + ",\"reason\":" + JSONText.quoted(error.message)
            + ",\"record\":" + JSONText.quoted(record) + "}\n"
    }
}
