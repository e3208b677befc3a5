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
    static let batchSize = 8192

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
                try outputs.events.append(EventEncoding.jsonLine(event))
            }
            changes.removeAll(keepingCapacity: true)
            engine.takeAuthorizationChanges(into: &changes)
            if outputs.authorization != nil {
                for change in changes { try outputs.authorization!.append(AuthorizationChangeEncoding.jsonLine(change)) }
            }
        }

        // The engine's number for each device, by the reader's number: no lookup by name per record.
        var deviceIDs: [DeviceID?] = []
        func deviceID(_ record: ObservationRecord, _ engine: inout MonitoringEngine) -> DeviceID {
            let n = Int(record.deviceNumber)
            guard n >= 0 else { return engine.deviceID(record.device) }
            if n >= deviceIDs.count { deviceIDs += repeatElement(nil, count: n + 1 - deviceIDs.count) }
            if let id = deviceIDs[n] { return id }
            let id = engine.deviceID(record.device)
            deviceIDs[n] = id
            return id
        }

        // Consecutive fixes go through the engine's batch path (same events, geometry computed cell
        // by cell); anything else, and the end, first flushes them. The text of a pending fix is kept
        // only when it may have to be quarantined.
        var pending: [FixRecord] = []
        var pendingTexts: [String] = []
        let keepTexts = badRecords == .quarantine
        func flush(_ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            var from = 0
            while from < pending.count {
                events.removeAll(keepingCapacity: true)
                var refused: BatchProblem?
                do throws(BatchProblem) {
                    try engine.process(from == 0 ? pending : Array(pending[from...]), into: &events)
                } catch {
                    refused = error
                }
                try write(events, &engine, outputs: &outputs)
                if let error = refused {
                    let bad = from + error.index
                    try reject(InputError(file: observations.file, line: pending[bad].cause, field: error.problem.field,
                                          message: error.problem.message),
                               text: keepTexts ? pendingTexts[bad] : "", outputs: &outputs)
                    from = bad + 1
                } else {
                    from = pending.count
                }
            }
            pending.removeAll(keepingCapacity: true)
            pendingTexts.removeAll(keepingCapacity: true)
        }

        while let next = observations.next() {
            summary.recordsRead += 1
            switch next {
            case .success(let record):
                if case .fix(let fix) = record.observation {
                    pending.append(FixRecord(device: deviceID(record, &engine), fix: fix, cause: record.line))
                    if keepTexts { pendingTexts.append(observations.currentLineText) }
                    if pending.count >= Self.batchSize { try flush(&engine, outputs: &outputs) }
                    break
                }
                try flush(&engine, outputs: &outputs)
                events.removeAll(keepingCapacity: true)
                do throws(ObservationProblem) {
                    try engine.process(record.observation, device: record.device, cause: record.line, into: &events)
                } catch {
                    // Write what the time before the refused record produced, then refuse it.
                    try write(events, &engine, outputs: &outputs)
                    events.removeAll(keepingCapacity: true)
                    try reject(InputError(file: observations.file, line: record.line, field: error.field, message: error.message),
                               text: observations.currentLineText, outputs: &outputs)
                }
                try write(events, &engine, outputs: &outputs)
            case .failure(let error):
                try flush(&engine, outputs: &outputs)
                try reject(error, text: observations.currentLineText, outputs: &outputs)
            }
            if summary.recordsRead & 4095 == 0 {
                let now = clock.now
                if now - start > .seconds(2) && now - lastProgress >= .seconds(1) {
                    lastProgress = now
                    summary.elapsedSeconds = (now - start).seconds
                    progress(summary)
                }
            }
        }
        try flush(&engine, outputs: &outputs)
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
