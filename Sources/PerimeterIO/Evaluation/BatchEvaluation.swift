import Dispatch
import Perimeter

/// Evaluates a recorded stream: reads records, feeds the engine in batches, writes each batch's
/// events. Memory is the engine's per-device state plus one batch of records and its events; a batch
/// is cut before the events its devices' starts can produce pass the event budget.
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

    /// Runs the whole stream.
    ///
    /// - Parameters:
    ///   - badRecords: `.quarantine` writes bad records to `outputs.quarantine` and goes on.
    ///   - progress: called about once a second after the first two seconds, with the counts so far.
    ///   - eventBudget: about how many events one batch may hold (`defaultEventBudget`); one device's
    ///     start may pass it alone.
    /// - Throws: the first bad record's error when `badRecords` is `.stop`, or an output error. Events
    ///   of the records before it have been written.
    public static func run(engine: inout MonitoringEngine,
                           observations: inout ObservationReader,
                           outputs: inout Outputs,
                           badRecords: BadRecords = .stop,
                           eventBudget: Int = defaultEventBudget,
                           progress: (EvaluationSummary) -> Void = { _ in }) throws(InputError) -> EvaluationSummary {
        let clock = ContinuousClock()
        let start = clock.now
        var lastProgress = start
        var summary = EvaluationSummary()
        var events: [MonitorEvent] = []
        var changes: [AuthorizationChange] = []

        /// Counts a bad record and quarantines it (its line's bytes as written, or the first of them
        /// and its length when it was too long to hold), or stops with it.
        func reject(_ error: InputError, bytes: [UInt8], length: Int? = nil, outputs: inout Outputs) throws(InputError) {
            summary.rejected += 1
            guard badRecords == .quarantine, outputs.quarantine != nil, !observations.failed else { throw error }
            try outputs.quarantine!.append(QuarantineEncoding.jsonLine(error, record: bytes, length: length))
        }

        let threads = max(1, engine.batchThreads)
        let encoders = (0..<threads).map { _ in EventChunk() }
        func write(_ events: [MonitorEvent], _ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            summary.largestWrite = max(summary.largestWrite, events.count)
            // Large batches of events are encoded and counted in parallel, in chunks written in order.
            let chunks = events.count >= Self.parallelEncoding ? threads : 1
            if chunks > 1 {
                DispatchQueue.concurrentPerform(iterations: chunks) { k in
                    encoders[k].encode(events[events.count * k / chunks ..< events.count * (k + 1) / chunks])
                }
            } else {
                encoders[0].encode(events[...])
            }
            for chunk in encoders[..<chunks] {
                summary.add(chunk.counts)
                try outputs.events.append(contentsOf: chunk.bytes)
            }
            changes.removeAll(keepingCapacity: true)
            engine.takeAuthorizationChanges(into: &changes)
            if outputs.authorization != nil {
                for change in changes { try outputs.authorization!.append(AuthorizationChangeEncoding.jsonLine(change)) }
            }
        }

        // The engine's number for each device, by the reader's number: no lookup by name per record.
        // Devices are named to the engine in the reader's order, which is the order of their first
        // records, as the engine would meet them one record at a time.
        var deviceIDs: [DeviceID] = []
        func nameDevices(_ engine: inout MonitoringEngine) {
            observations.nameDevices(&deviceIDs) { _, name in engine.deviceID(name) }
        }
        func deviceID(number: Int32, _ engine: inout MonitoringEngine) -> DeviceID {
            if Int(number) >= deviceIDs.count { nameDevices(&engine) }
            return deviceIDs[Int(number)]
        }

        // Consecutive fixes, and consecutive sightings, go through the engine's batch paths (same
        // events, geometry computed cell by cell, devices sharded across its threads); any other
        // record, and the end, first applies what is pending (one of the two lists at most).
        // Reading, evaluating and writing take turns, each on every thread: run side by side they
        // only competed for the same cores. The text of a pending record is kept only when it may
        // have to be quarantined. Pending fixes are the engine's records already, made by the reader
        // as it reads (a batch of them is then handed over as it is, not copied).
        var pending: [FixRecord] = []
        var pendingSightings: [(deviceNumber: Int32, sighting: BeaconSighting, line: Int)] = []
        var pendingTexts: [[UInt8]] = []
        var sightingBatch: [SightingRecord] = []
        let keepTexts = badRecords == .quarantine

        /// Where the batch of the pending records from `start` ends: before the first record whose
        /// device's start would take the batch's start events past the budget (each device counted
        /// once), and after at least one record. Every pending record's device is named already.
        var budgetMarks: [UInt32] = [], budgetMark: UInt32 = 0
        func batchEnd(from start: Int, count: Int, device: (Int) -> DeviceID, _ engine: inout MonitoringEngine) -> Int {
            guard engine.hasStartEvents else { return count }
            budgetMark &+= 1
            var events = 0
            for k in start..<count {
                let id = device(k), n = Int(id.index)
                if n >= budgetMarks.count { budgetMarks += repeatElement(0, count: n + 1 - budgetMarks.count) }
                guard budgetMarks[n] != budgetMark else { continue }
                budgetMarks[n] = budgetMark
                events += engine.startEventBound(id)
                if events > eventBudget && k > start { return k }
            }
            return count
        }

        /// Applies the pending fixes or sightings and writes their events; a refused record is
        /// rejected and the rest of the batch applied after it, as often as records are refused.
        func drain(_ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            // A few records (fixes and sightings that alternate) one at a time: a batch's set-up
            // (a slot per device, threads) would cost more than they do.
            if pending.count + pendingSightings.count < Self.smallestBatch {
                for (k, p) in pending.enumerated() {
                    try applyOne(.fix(p.fix), device: p.device, line: p.cause, text: keepTexts ? pendingTexts[k] : [],
                                 &engine, outputs: &outputs)
                }
                for (k, p) in pendingSightings.enumerated() {
                    try applyOne(.sighting(p.sighting), device: deviceID(number: p.deviceNumber, &engine), line: p.line,
                                 text: keepTexts ? pendingTexts[k] : [], &engine, outputs: &outputs)
                }
                pending.removeAll(keepingCapacity: true)
                pendingSightings.removeAll(keepingCapacity: true)
                pendingTexts.removeAll(keepingCapacity: true)
                return
            }
            nameDevices(&engine)
            let ids = deviceIDs
            // (Pending fixes are a batch as they stand: only a batch cut short by the event budget is a copy.)
            try applyInBatches(pending, device: \.device, line: \.cause, &engine, outputs: &outputs,
                               records: { $0 == pending.indices ? pending : Array(pending[$0]) },
                               process: { records, engine, events throws(BatchProblem) in try engine.process(records, into: &events) })
            try applyInBatches(pendingSightings, device: { ids[Int($0.deviceNumber)] }, line: \.line, &engine, outputs: &outputs,
                               records: { range in
                                   fill(&sightingBatch, from: pendingSightings, range) {
                                       SightingRecord(device: ids[Int($0.deviceNumber)], sighting: $0.sighting, cause: $0.line)
                                   }
                                   return sightingBatch
                               },
                               process: { records, engine, events throws(BatchProblem) in try engine.process(records, into: &events) })
            pending.removeAll(keepingCapacity: true)
            pendingSightings.removeAll(keepingCapacity: true)
            pendingTexts.removeAll(keepingCapacity: true)
        }

        /// Applies pending fixes or sightings through the engine's batch path, in batches cut at the
        /// event budget (`batchEnd`), each batch the engine's records `records` gives for a range of
        /// pending ones (every device already named to the engine).
        func applyInBatches<Pending, Record>(
            _ pending: [Pending], device: (Pending) -> DeviceID, line: (Pending) -> Int,
            _ engine: inout MonitoringEngine, outputs: inout Outputs, records: (Range<Int>) -> [Record],
            process: ([Record], inout MonitoringEngine, inout [MonitorEvent]) throws(BatchProblem) -> Void
        ) throws(InputError) {
            var start = 0
            while start < pending.count {
                let end = batchEnd(from: start, count: pending.count, device: { device(pending[$0]) }, &engine)
                let records = records(start..<end)
                try applyRejectingRefused(count: records.count, textsFrom: start, cause: { line(pending[start + $0]) }, &engine,
                                          outputs: &outputs) { from, engine, events throws(BatchProblem) in
                    try process(from == 0 ? records : Array(records[from...]), &engine, &events)
                }
                start = end
            }
        }

        /// Sets `batch` to the records `record` makes of `pending[range]`, made in parallel chunks for a
        /// large batch (a serial part of every batch otherwise). The array keeps its size from batch
        /// to batch where it can, so that the records are written in place, without a first pass.
        func fill<Pending, Record>(_ batch: inout [Record], from pending: [Pending], _ range: Range<Int>,
                                   _ record: @escaping (Pending) -> Record) {
            let n = range.count
            if batch.count > n {
                batch.removeLast(batch.count - n)
            } else if batch.count < n {
                batch.append(contentsOf: repeatElement(record(pending[range.lowerBound]), count: n - batch.count))
            }
            let chunks = n >= Self.parallelRecords ? threads : 1
            batch.withUnsafeMutableBufferPointer { out in
                // (Each chunk writes its own part of `out` and only reads the rest.)
                nonisolated(unsafe) let out = out, pending = pending, record = record
                DispatchQueue.concurrentPerform(iterations: chunks) { k in
                    for j in n * k / chunks ..< n * (k + 1) / chunks { out[j] = record(pending[range.lowerBound + j]) }
                }
            }
        }

        /// Applies one record and writes its events; a refused record is rejected after the events
        /// that the time before it produced.
        func applyOne(_ observation: Observation, device: DeviceID, line: Int, text: @autoclosure () -> [UInt8],
                      _ engine: inout MonitoringEngine, outputs: inout Outputs) throws(InputError) {
            events.removeAll(keepingCapacity: true)
            do throws(ObservationProblem) {
                try engine.process(observation, device: device, cause: line, into: &events)
            } catch {
                try write(events, &engine, outputs: &outputs)
                events.removeAll(keepingCapacity: true)
                try reject(InputError(file: observations.file, line: line, field: error.field, message: error.message),
                           bytes: text(), outputs: &outputs)
            }
            try write(events, &engine, outputs: &outputs)
        }

        /// Applies a batch of `count` records from its start, then after each record it refuses
        /// (rejected, with its line `cause(k)`), writing the events each time. The batch's texts are
        /// the pending texts from `textsFrom` on.
        func applyRejectingRefused(count: Int, textsFrom: Int, cause: (Int) -> Int, _ engine: inout MonitoringEngine,
                                   outputs: inout Outputs,
                                   _ apply: (Int, inout MonitoringEngine, inout [MonitorEvent]) throws(BatchProblem) -> Void)
            throws(InputError) {
            var from = 0
            while from < count {
                events.removeAll(keepingCapacity: true)
                var refusal: BatchProblem?
                do throws(BatchProblem) {
                    try apply(from, &engine, &events)
                } catch {
                    refusal = error
                }
                try write(events, &engine, outputs: &outputs)
                guard let refusal else { break }
                let bad = from + refusal.index
                try reject(InputError(file: observations.file, line: cause(bad), field: refusal.problem.field,
                                      message: refusal.problem.message),
                           bytes: keepTexts ? pendingTexts[textsFrom + bad] : [], outputs: &outputs)
                from = bad + 1
            }
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
            // (While sightings are pending, a fix comes through next(), which applies them first.)
            let plain = !pendingSightings.isEmpty ? 0
                : observations.readPlainFixes(into: &pending, limit: keepTexts ? 1 : room, deviceIDs: &deviceIDs) { _, name in
                    engine.deviceID(name)
                }
            if plain > 0 {
                summary.recordsRead += plain
                if keepTexts { pendingTexts.append(observations.currentLineBytes) }
                if pending.count >= Self.batchSize { try drain(&engine, outputs: &outputs) }
                continue
            }
            guard let next = observations.next() else { break }
            summary.recordsRead += 1
            switch next {
            case .success(let record):
                if case .fix(let fix) = record.observation {
                    if !pendingSightings.isEmpty { try drain(&engine, outputs: &outputs) }
                    pending.append(FixRecord(device: deviceID(number: record.deviceNumber, &engine), fix: fix, cause: record.line))
                    if keepTexts { pendingTexts.append(observations.currentLineBytes) }
                    if pending.count >= Self.batchSize { try drain(&engine, outputs: &outputs) }
                    break
                }
                if case .sighting(let sighting) = record.observation {
                    if !pending.isEmpty { try drain(&engine, outputs: &outputs) }
                    pendingSightings.append((record.deviceNumber, sighting, record.line))
                    if keepTexts { pendingTexts.append(observations.currentLineBytes) }
                    if pendingSightings.count >= Self.batchSize { try drain(&engine, outputs: &outputs) }
                    break
                }
                try drain(&engine, outputs: &outputs)
                try applyOne(record.observation, device: deviceID(number: record.deviceNumber, &engine), line: record.line,
                             text: observations.currentLineBytes, &engine, outputs: &outputs)
            case .failure(let error):
                try drain(&engine, outputs: &outputs)
                try reject(error, bytes: observations.currentLineBytes, length: observations.currentLineLength, outputs: &outputs)
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

/// One thread's share of a batch's events: their JSON Lines, and their counts for the summary.
///
/// `@unchecked Sendable`: each chunk is filled by one thread, and read only after every thread has
/// finished; for the same reason its properties skip the runtime's exclusivity checks (two per event).
final class EventChunk: @unchecked Sendable {
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    @exclusivity(unchecked) private(set) var counts = EventCounts()

    func encode(_ events: ArraySlice<MonitorEvent>) {
        bytes.removeAll(keepingCapacity: true)
        counts.removeAll()
        events.withUnsafeBufferPointer { events in
            for k in events.indices {
                counts.count(events[k])
                EventEncoding.append(events[k], to: &bytes)
            }
        }
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

