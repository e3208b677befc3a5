import Perimeter

/// Evaluates a recorded stream: reads records, feeds the engine in batches, writes each batch's
/// events. Memory is the engine's per-device state plus one batch of records and its events; a batch
/// is cut before the events its devices' starts can produce pass the event budget.
///
/// Call ``run(engine:observations:outputs:badRecords:eventBudget:continuation:progress:)``: a run is one value of
/// this type, which holds the engine, the reader and the outputs it is lent for the run's length (so
/// it is not copyable, as the reader and the outputs are not).
public struct BatchEvaluation: ~Copyable {
    /// What to do with a bad record.
    public enum BadRecords {
        /// Stop at the first bad record with its error (the default).
        case stop
        /// Write it with its reason to the quarantine output and go on.
        case quarantine
    }

    /// Where a run writes: events, and optionally bad records and authorization changes.
    public struct Outputs: ~Copyable {
        /// Events as JSON Lines.
        public var events: BufferedOutput
        /// Bad records with their reason, when the run quarantines instead of stopping.
        public var quarantine: BufferedOutput?
        /// Authorization changes as JSON Lines (`--authorization-out`).
        public var authorization: BufferedOutput?
        /// The approximate fixes a reduced-accuracy app would see (`--approximate`).
        public var approximate: ApproximateFixes?

        /// The outputs of a run; without a quarantine output, a run stops at the first bad record.
        public init(events: consuming BufferedOutput, quarantine: consuming BufferedOutput? = nil,
                    authorization: consuming BufferedOutput? = nil) {
            self.events = events
            self.quarantine = quarantine
            self.authorization = authorization
        }
    }

    /// Fixes handed to the engine's batch path at once. Larger batches give each shard more fixes of
    /// the same place to compute geometry for together (10M CSV fixes, 20k conditions, two cores:
    /// 6.6 s at 2¹⁶, 6.0 s at 2¹⁷, 5.8 s at 2¹⁸, 5.8 s at 2¹⁹), for about 330 bytes a record held
    /// (peak RSS 168 → 233 MB from 2¹⁶ to 2¹⁸).
    static let batchSize = 1 << 18
    /// Fewer pending records than this are applied one at a time.
    static let smallestBatch = 64
    /// Batches of at least this many records are made in parallel.
    static let parallelRecords = 4096
    /// Batches of at least this many events are encoded in parallel.
    static let parallelEncoding = 256
    /// About how many events a batch may hold before they are written: a batch is cut where the
    /// events its devices' starts can produce (`MonitoringEngine.startEventBound(_:)`) would pass
    /// this, so that memory stays bounded when many devices start against many conditions that start
    /// `unknown` (some 110 bytes per event held).
    public static let defaultEventBudget = 1 << 20

    // A run's state. Its steps are methods on it, in files by concept: reading (+Reading), applying
    // the pending records in batches (+Applying, cut by EventBudget), writing events and
    // authorization changes and finishing (+Writing), quarantining bad records (+Quarantine),
    // saving progress (+Checkpoints).

    // What the run works on: moved in by `run` and handed back to its caller when the run ends.
    var engine: MonitoringEngine
    var observations: ObservationReader
    var outputs: Outputs

    let badRecords: BadRecords
    /// Whether each pending record's text is kept, for the quarantine output should it be refused.
    let keepTexts: Bool
    /// The engine's batch threads, which also encode large batches of events.
    let threads: Int

    let clock = ContinuousClock()
    let start: ContinuousClock.Instant
    var lastProgress: ContinuousClock.Instant
    /// The number of records read at which the clock is next read for progress.
    var nextProgressCheck = 4096
    var summary = EvaluationSummary()

    /// The events of the records being applied, until they are written (kept to reuse its storage).
    var events: [MonitorEvent] = []
    /// The authorization changes taken from the engine after each write (kept to reuse its storage).
    var changes: [AuthorizationChange] = []
    /// One per thread: each encodes and counts its share of a large batch of events.
    let encoders: [EventChunk]

    /// The engine's number for each device, by the reader's number: no lookup by name per record.
    /// Devices are named to the engine in the reader's order, which is the order of their first
    /// records, as the engine would meet them one record at a time.
    var deviceIDs: [DeviceID] = []

    // Consecutive fixes, and consecutive sightings, wait here to go through the engine's batch paths
    // (same events, geometry computed cell by cell, devices sharded across its threads); any other
    // record, and the end, first applies what is pending (one of the two lists at most). Pending
    // fixes are the engine's records already, made by the reader as it reads (a batch of them is then
    // handed over as it is, not copied).
    var pendingFixes: [FixRecord] = []
    var pendingSightings: [PendingSighting] = []
    /// The text of each pending record, only when it may have to be quarantined (`keepTexts`).
    var pendingTexts: [[UInt8]] = []
    /// The engine's records for a batch of pending sightings (kept to write them in place).
    var sightingBatch: [SightingRecord] = []
    /// Where batches are cut so that their devices' start events stay within the event budget.
    var budget: EventBudget

    /// Lines of the stream before the file's first, added to each event's cause (`Continuation`).
    let causeBase: Int
    /// Whether the end of the file is the end of the stream: the beacon exits due then fire.
    let endsStream: Bool
    /// When and how the run saves its progress, if it does.
    let checkpoints: Checkpoints?
    /// The number of records read at which the checkpoint clock is next read.
    var nextCheckpointCheck = 0
    var lastCheckpoint: (records: Int, at: ContinuousClock.Instant)
    /// Seconds the run took before it was resumed.
    let elapsedBefore: Double

    private init(engine: consuming MonitoringEngine, observations: consuming ObservationReader, outputs: consuming Outputs,
                 badRecords: BadRecords, eventBudget: Int, continuation: Continuation) {
        start = clock.now
        causeBase = continuation.causeBase
        endsStream = continuation.endsStream
        checkpoints = continuation.checkpoints
        summary = continuation.summary
        elapsedBefore = continuation.summary.elapsedSeconds
        lastCheckpoint = (continuation.summary.recordsRead, start)
        lastProgress = start
        self.engine = engine
        self.observations = observations
        self.outputs = outputs
        self.badRecords = badRecords
        keepTexts = badRecords == .quarantine
        budget = EventBudget(events: eventBudget)
        threads = max(1, self.engine.batchThreads)
        encoders = (0..<threads).map { _ in EventChunk() }
    }

    /// Runs the whole stream.
    ///
    /// - Parameters:
    ///   - engine: the engine, with its conditions: lent to the run, and given back whether the run
    ///     finished or stopped.
    ///   - observations: the reader of the stream, lent and given back alike.
    ///   - outputs: where the run writes, lent and given back alike.
    ///   - badRecords: `.quarantine` writes bad records to `outputs.quarantine` and goes on.
    ///   - progress: called about once a second after the first two seconds, with the counts so far.
    ///   - eventBudget: about how many events one batch may hold (`defaultEventBudget`); one device's
    ///     start may pass it alone.
    ///   - continuation: for a run that goes on from an earlier one (a stream in parts, a run resumed
    ///     after a crash): its causes, end, counts so far and checkpoints. By default, a whole stream.
    /// - Throws: the first bad record's error when `badRecords` is `.stop`, or an output error. Events
    ///   of the records before it have been written.
    public static func run(engine: inout MonitoringEngine,
                           observations: inout ObservationReader,
                           outputs: inout Outputs,
                           badRecords: BadRecords = .stop,
                           eventBudget: Int = defaultEventBudget,
                           continuation: Continuation = Continuation(),
                           progress: (EvaluationSummary) -> Void = { _ in }) throws(InputError) -> EvaluationSummary {
        // (Moved, not copied: a copy of the engine would copy its state on its first change.)
        var evaluation = BatchEvaluation(engine: consume engine, observations: consume observations, outputs: consume outputs,
                                         badRecords: badRecords, eventBudget: eventBudget, continuation: continuation)
        let result: Result<EvaluationSummary, InputError>
        do throws(InputError) {
            result = .success(try evaluation.evaluate(progress: progress))
        } catch {
            result = .failure(error)
        }
        // The caller gets them back whether the run finished or stopped, as it lent them.
        engine = evaluation.engine
        observations = evaluation.observations
        outputs = evaluation.outputs
        return try result.get()
    }

    /// Reads the stream to its end, a run of plain fixes or one other record at a time, applying
    /// and writing as it goes; then finishes.
    ///
    /// Reading, evaluating and writing take turns, each on every thread: run side by side they only
    /// competed for the same cores.
    mutating func evaluate(progress: (EvaluationSummary) -> Void) throws(InputError) -> EvaluationSummary {
        while true {
            reportProgressIfDue(progress)
            try checkpointIfDue()
            if try readPlainFixes() { continue }
            guard let next = observations.next() else { break }
            summary.recordsRead += 1
            try take(next)
        }
        return try finish()
    }
}
