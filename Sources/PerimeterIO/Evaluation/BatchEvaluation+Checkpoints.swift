import Perimeter

extension BatchEvaluation {
    /// How a run goes on from earlier ones: a stream evaluated in parts, each part a file, or a run
    /// resumed after it stopped. The default is a whole stream in one run.
    public struct Continuation {
        /// Lines of the stream before the file's first line: added to each event's cause, so that
        /// the events of the parts name the lines the whole stream would.
        public var causeBase = 0
        /// Whether the end of the file ends the stream (beacon exits due at the last record's time
        /// fire, as SPEC §2 says of the end of the input); `false` when more parts may come, which
        /// could still cancel them.
        public var endsStream = true
        /// What the run counted before (a resumed run): the summary goes on from it.
        public var summary = EvaluationSummary()
        /// When and how the run saves its progress; `nil`: it does not.
        public var checkpoints: Checkpoints?

        public init(causeBase: Int = 0, endsStream: Bool = true, summary: EvaluationSummary = EvaluationSummary(),
                    checkpoints: Checkpoints? = nil) {
            self.causeBase = causeBase
            self.endsStream = endsStream
            self.summary = summary
            self.checkpoints = checkpoints
        }
    }

    /// When a run saves its progress, and what with. At a checkpoint every record read so far has
    /// been applied and its events written and synced to the disk, so the progress saved can never
    /// be ahead of the outputs.
    public struct Checkpoints {
        /// At least this long between checkpoints.
        public var interval: Duration
        /// At least this many records between checkpoints too, if set (else by time only).
        public var records: Int?
        /// Saves the progress (in one transaction, so that a crash leaves the one before).
        public var save: (Progress) throws(InputError) -> Void

        public init(interval: Duration, records: Int? = nil, save: @escaping (Progress) throws(InputError) -> Void) {
            self.interval = interval
            self.records = records
            self.save = save
        }
    }

    /// What a checkpoint saves: the engine's state after every record before `position`, and the
    /// outputs' lengths then.
    public struct Progress {
        public var engine: MonitoringEngine.Snapshot
        public var position: ReadPosition
        public var eventsLength: Int
        public var quarantineLength: Int?
        public var authorizationLength: Int?
        public var summary: EvaluationSummary
    }

    /// Saves the run's progress when a checkpoint is due: after `records` records, or `interval`
    /// (the clock is read every 4,096 records).
    mutating func checkpointIfDue() throws(InputError) {
        guard let checkpoints, summary.recordsRead >= nextCheckpointCheck else { return }
        nextCheckpointCheck = summary.recordsRead + min(4096, checkpoints.records ?? 4096)
        let now = clock.now
        let byCount = checkpoints.records.map { summary.recordsRead - lastCheckpoint.records >= $0 } ?? false
        guard byCount || now - lastCheckpoint.at >= checkpoints.interval, summary.recordsRead > lastCheckpoint.records else { return }
        try applyPending()
        guard let position = observations.position else { return }
        try outputs.events.sync()
        try outputs.quarantine?.sync()
        try outputs.authorization?.sync()
        var saved = summary
        saved.elapsedSeconds = elapsedBefore + (now - start).seconds
        try checkpoints.save(Progress(engine: engine.snapshot(), position: position, eventsLength: outputs.events.length,
                                      quarantineLength: outputs.quarantine?.length, authorizationLength: outputs.authorization?.length,
                                      summary: saved))
        lastCheckpoint = (summary.recordsRead, clock.now)
    }
}
