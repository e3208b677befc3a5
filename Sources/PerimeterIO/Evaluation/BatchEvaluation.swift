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

    /// Runs the whole stream.
    ///
    /// - Parameters:
    ///   - quarantine: where bad records go when `badRecords` is `.quarantine`.
    ///   - progress: called about once a second after the first two seconds, with the counts so far.
    /// - Throws: the first bad record's error when `badRecords` is `.stop`, or an output error. Events
    ///   of the records before it have been written.
    public static func run(engine: inout MonitoringEngine,
                           observations: inout ObservationReader,
                           events output: inout BufferedOutput,
                           badRecords: BadRecords = .stop,
                           quarantine: inout BufferedOutput?,
                           progress: (EvaluationSummary) -> Void = { _ in }) throws(InputError) -> EvaluationSummary {
        let clock = ContinuousClock()
        let start = clock.now
        var lastProgress = start
        var summary = EvaluationSummary()
        var events: [MonitorEvent] = []

        func reject(_ error: InputError, text: String, quarantine: inout BufferedOutput?) throws(InputError) {
            summary.rejected += 1
            guard badRecords == .quarantine, quarantine != nil, !observations.failed else { throw error }
            try quarantine!.append(QuarantineEncoding.jsonLine(error, record: text))
        }

        while let next = observations.next() {
            summary.recordsRead += 1
            switch next {
            case .failure(let error):
                try reject(error, text: observations.currentLineText, quarantine: &quarantine)
            case .success(let record):
                events.removeAll(keepingCapacity: true)
                do throws(ObservationProblem) {
                    try engine.process(record.observation, device: record.device, cause: record.line, into: &events)
                } catch {
                    try reject(InputError(file: observations.file, line: record.line, field: error.field, message: error.message),
                               text: observations.currentLineText, quarantine: &quarantine)
                }
                for event in events {
                    summary.count(event)
                    try output.append(EventEncoding.jsonLine(event))
                }
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
        events.removeAll(keepingCapacity: true)
        engine.finish(into: &events)
        for event in events {
            summary.count(event)
            try output.append(EventEncoding.jsonLine(event))
        }
        try output.flush()
        try quarantine?.flush()
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
