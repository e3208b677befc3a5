import Dispatch
import Perimeter

extension BatchEvaluation {
    /// Applies the pending fixes or sightings and writes their events; a refused record is
    /// rejected and the rest of the batch applied after it, as often as records are refused.
    mutating func applyPending() throws(InputError) {
        // A few records (fixes and sightings that alternate) one at a time: a batch's set-up
        // (a slot per device, threads) would cost more than they do.
        if pendingFixes.count + pendingSightings.count < Self.smallestBatch {
            try applyPendingOneByOne()
        } else {
            nameDevices()
            try applyPendingFixesInBatches()
            try applyPendingSightingsInBatches()
        }
        pendingFixes.removeAll(keepingCapacity: true)
        pendingSightings.removeAll(keepingCapacity: true)
        pendingTexts.removeAll(keepingCapacity: true)
    }

    private mutating func applyPendingOneByOne() throws(InputError) {
        for (k, pending) in pendingFixes.enumerated() {
            try applyOne(.fix(pending.fix), device: pending.device, line: pending.cause - causeBase, text: .pending(k))
        }
        for (k, pending) in pendingSightings.enumerated() {
            let device = deviceID(number: pending.deviceNumber)
            try applyOne(.sighting(pending.sighting), device: device, line: pending.line, text: .pending(k))
        }
    }

    /// The pending fixes through the engine's batch path, in batches cut at the event budget.
    private mutating func applyPendingFixesInBatches() throws(InputError) {
        let fixes = pendingFixes, base = causeBase
        var start = 0
        while start < fixes.count {
            let end = budget.batchEnd(from: start, count: fixes.count, engine: engine) { fixes[$0].device }
            // (Pending fixes are a batch as they stand: only a batch cut short by the event budget is a copy.)
            let batch = start..<end == fixes.indices ? fixes : Array(fixes[start..<end])
            let refused = try applyRejectingRefused(batch, textsFrom: start, line: { fixes[start + $0].cause - base }) {
                records, engine, events throws(BatchProblem) in try engine.process(records, into: &events)
            }
            if outputs.approximate != nil {
                for (k, record) in batch.enumerated() where !refused.contains(k) {
                    try outputs.approximate!.take(record.fix, device: record.device, cause: record.cause, engine: engine)
                }
            }
            start = end
        }
    }

    /// The pending sightings through the engine's batch path, in batches cut at the event budget,
    /// each made into the engine's records in `sightingBatch` (every device already named).
    private mutating func applyPendingSightingsInBatches() throws(InputError) {
        let sightings = pendingSightings, ids = deviceIDs, base = causeBase
        var start = 0
        while start < sightings.count {
            let end = budget.batchEnd(from: start, count: sightings.count, engine: engine) { ids[Int(sightings[$0].deviceNumber)] }
            Self.fill(&sightingBatch, from: sightings, start..<end, threads: threads) {
                SightingRecord(device: ids[Int($0.deviceNumber)], sighting: $0.sighting, cause: $0.line + base)
            }
            _ = try applyRejectingRefused(sightingBatch, textsFrom: start, line: { sightings[start + $0].line }) {
                records, engine, events throws(BatchProblem) in try engine.process(records, into: &events)
            }
            start = end
        }
    }

    /// Applies `batch` with `process` from its start, then after each record it refuses (rejected,
    /// with its line `line(k)`), writing the events each time. The batch's texts are the pending
    /// texts from `textsFrom` on. Returns the positions of the refused records in `batch`.
    private mutating func applyRejectingRefused<Record>(
        _ batch: [Record], textsFrom: Int, line: (Int) -> Int,
        process: ([Record], inout MonitoringEngine, inout [MonitorEvent]) throws(BatchProblem) -> Void
    ) throws(InputError) -> Set<Int> {
        var refused: Set<Int> = []
        var from = 0
        while from < batch.count {
            events.removeAll(keepingCapacity: true)
            var refusal: BatchProblem?
            do throws(BatchProblem) {
                try process(from == 0 ? batch : Array(batch[from...]), &engine, &events)
            } catch {
                refusal = error
            }
            try writeEvents()
            guard let refusal else { break }
            let bad = from + refusal.index
            refused.insert(bad)
            try reject(InputError(file: observations.file, line: line(bad), field: refusal.problem.field,
                                  message: refusal.problem.message),
                       bytes: bytes(of: .pending(textsFrom + bad)))
            from = bad + 1
        }
        return refused
    }

    /// Applies one record, on `line` of the file, and writes its events; a refused record is
    /// rejected after the events that the time before it produced.
    mutating func applyOne(_ observation: Observation, device: DeviceID, line: Int, text: RecordText) throws(InputError) {
        events.removeAll(keepingCapacity: true)
        do throws(ObservationProblem) {
            try engine.process(observation, device: device, cause: line + causeBase, into: &events)
        } catch {
            try writeEvents()
            events.removeAll(keepingCapacity: true)
            try reject(InputError(file: observations.file, line: line, field: error.field, message: error.message),
                       bytes: bytes(of: text))
            try writeEvents()
            return
        }
        try writeEvents()
        if case .fix(let fix) = observation, outputs.approximate != nil {
            try outputs.approximate!.take(fix, device: device, cause: line + causeBase, engine: engine)
        }
    }

    /// Sets `batch` to the records `record` makes of `pending[range]`, made in parallel chunks for a
    /// large batch (a serial part of every batch otherwise). The array keeps its size from batch
    /// to batch where it can, so that the records are written in place, without a first pass.
    private static func fill<Pending, Record>(_ batch: inout [Record], from pending: [Pending], _ range: Range<Int>,
                                              threads: Int, _ record: @escaping (Pending) -> Record) {
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
}
