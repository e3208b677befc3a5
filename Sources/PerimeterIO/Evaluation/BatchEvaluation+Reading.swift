import Perimeter

/// A pending sighting as the reader gave it: its device still the reader's number, named to the
/// engine only when the sightings are applied.
struct PendingSighting {
    var deviceNumber: Int32
    var sighting: BeaconSighting
    var line: Int
}

extension BatchEvaluation {
    /// Calls `progress` with the counts so far about once a second after the first two seconds (the
    /// clock is read only every 4,096 records).
    mutating func reportProgressIfDue(_ progress: (EvaluationSummary) -> Void) {
        guard summary.recordsRead >= nextProgressCheck else { return }
        nextProgressCheck = summary.recordsRead + 4096
        let now = clock.now
        if now - start > .seconds(2) && now - lastProgress >= .seconds(1) {
            lastProgress = now
            summary.elapsedSeconds = elapsedBefore + (now - start).seconds
            progress(summary)
        }
    }

    /// Reads a run of plain fixes into the pending fixes in bulk (one at a time when their texts are
    /// kept), applying them when they make a whole batch. `false` when it read none: the next record
    /// is anything else, or the input ended, and is left for `next()`.
    mutating func readPlainFixes() throws(InputError) -> Bool {
        // (While sightings are pending, a fix comes through next(), which applies them first.)
        guard pendingSightings.isEmpty else { return false }
        let read = Self.readPlainFixes(&observations, into: &pendingFixes, limit: keepTexts ? 1 : Self.batchSize - pendingFixes.count,
                                       deviceIDs: &deviceIDs, engine: &engine)
        guard read > 0 else { return false }
        if causeBase != 0 {
            for k in pendingFixes.count - read ..< pendingFixes.count { pendingFixes[k].cause += causeBase }
        }
        summary.recordsRead += read
        if keepTexts { pendingTexts.append(observations.currentLineBytes) }
        if pendingFixes.count >= Self.batchSize { try applyPending() }
        return true
    }

    /// Takes one record the reader returned: a fix or a sighting waits with those pending (applying
    /// the other kind first), any other record is applied at once after what is pending, and a bad
    /// one is rejected after it.
    mutating func take(_ next: Result<ObservationRecord, InputError>) throws(InputError) {
        switch next {
        case .success(let record):
            switch record.observation {
            case .fix(let fix):
                try pend(fix, of: record)
            case .sighting(let sighting):
                try pend(sighting, of: record)
            default:
                try applyPending()
                let device = deviceID(number: record.deviceNumber)
                try applyOne(record.observation, device: device, line: record.line, text: .currentLine)
            }
        case .failure(let error):
            try applyPending()
            try reject(error, bytes: observations.currentLineBytes, length: observations.currentLineLength)
        }
    }

    /// Adds a fix to the pending fixes, after applying the pending sightings; applies a whole batch.
    private mutating func pend(_ fix: Fix, of record: ObservationRecord) throws(InputError) {
        if !pendingSightings.isEmpty { try applyPending() }
        let device = deviceID(number: record.deviceNumber)
        pendingFixes.append(FixRecord(device: device, fix: fix, cause: record.line + causeBase))
        if keepTexts { pendingTexts.append(observations.currentLineBytes) }
        if pendingFixes.count >= Self.batchSize { try applyPending() }
    }

    /// Adds a sighting to the pending sightings, after applying the pending fixes; applies a whole batch.
    private mutating func pend(_ sighting: BeaconSighting, of record: ObservationRecord) throws(InputError) {
        if !pendingFixes.isEmpty { try applyPending() }
        pendingSightings.append(PendingSighting(deviceNumber: record.deviceNumber, sighting: sighting, line: record.line))
        if keepTexts { pendingTexts.append(observations.currentLineBytes) }
        if pendingSightings.count >= Self.batchSize { try applyPending() }
    }

    /// The engine's device for the reader's device `number`.
    mutating func deviceID(number: Int32) -> DeviceID {
        if Int(number) >= deviceIDs.count { nameDevices() }
        return deviceIDs[Int(number)]
    }

    /// Names to the engine every device the reader has numbered and `deviceIDs` does not hold yet.
    mutating func nameDevices() {
        Self.nameDevices(&deviceIDs, of: observations, to: &engine)
    }

    // The reader calls back to name a new device to the engine: these take the run's parts one by
    // one, so that the callback holds the engine alone rather than the whole run.

    private static func nameDevices(_ deviceIDs: inout [DeviceID], of observations: borrowing ObservationReader,
                                    to engine: inout MonitoringEngine) {
        observations.nameDevices(&deviceIDs) { _, name in engine.deviceID(name) }
    }

    private static func readPlainFixes(_ observations: inout ObservationReader, into fixes: inout [FixRecord], limit: Int,
                                       deviceIDs: inout [DeviceID], engine: inout MonitoringEngine) -> Int {
        observations.readPlainFixes(into: &fixes, limit: limit, deviceIDs: &deviceIDs) { _, name in engine.deviceID(name) }
    }
}
