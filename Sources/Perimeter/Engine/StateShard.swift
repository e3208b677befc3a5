import CBuiltins
/// One worker's share of a batch's state machines, sharded by device: its devices' fixes (or
/// sightings), and the events and authorization changes they produce, each with the batch position
/// of the record that produced it.
///
/// When devices have several records each in the batch (`byDevice`), the records are run device by
/// device (each device's in record order), so that a device's state is read from memory once for all
/// its records in the batch rather than once per record, as an interleaved recording would have it;
/// devices are independent, so every device sees the same sequence either way. The outputs are then
/// put back in record order. Otherwise they are run in record order.
///
/// `@unchecked Sendable`: each shard is written by exactly one worker, and read only after every
/// worker has finished. For the same reason its properties skip the runtime's exclusivity checks,
/// which cost several per fix on this path.
final class StateShard: @unchecked Sendable {
    @exclusivity(unchecked) var events: [MonitorEvent] = []
    @exclusivity(unchecked) var eventRecords: [Int32] = []
    @exclusivity(unchecked) var changes: [AuthorizationChange] = []
    @exclusivity(unchecked) var changeRecords: [Int32] = []
    @exclusivity(unchecked) var fixesAnsweredByAnchor = 0
    @exclusivity(unchecked) var fixesMeasuredNearAnchor = 0
    /// The engine's count of records before the batch: a record's sequence is this plus its position.
    @exclusivity(unchecked) var sequenceBase = 0
    /// The first of the shard's records that `select` refused, if any (its position and problem).
    @exclusivity(unchecked) private(set) var refusal: BatchProblem?
    /// The latest time among the records the shard ran.
    @exclusivity(unchecked) private(set) var latestTime: Timestamp?
    /// How many devices the records `select` kept belong to.
    @exclusivity(unchecked) private var deviceCount = 0
    /// The sighting path's scratch: its sightings (grouped by device) and their identities, and their matches.
    @exclusivity(unchecked) private var grouped: [SightingRecord] = []
    @exclusivity(unchecked) private var identities: [BeaconIdentity] = []
    @exclusivity(unchecked) private var matched: [Int32] = []
    @exclusivity(unchecked) private var offsets: [Int] = []
    /// The order records are run in: (device << 32 | position), sorted; reused for putting the
    /// outputs back in record order.
    @exclusivity(unchecked) private var order: [UInt64] = []
    /// This worker's part of a batch, positions by the shard they belong to (`partition`).
    @exclusivity(unchecked) private var outgoing: [[UInt32]] = []

    /// Clears the outputs for the next batch, keeping every array's capacity.
    func empty() {
        events.removeAll(keepingCapacity: true)
        eventRecords.removeAll(keepingCapacity: true)
        changes.removeAll(keepingCapacity: true)
        changeRecords.removeAll(keepingCapacity: true)
        fixesAnsweredByAnchor = 0
        fixesMeasuredNearAnchor = 0
        refusal = nil
        latestTime = nil
        deviceCount = 0
    }

    /// Sorts the positions of this worker's part of `batch` (its `w`-th of `workers` equal ranges) by
    /// the shard their device belongs to (numbered modulo `workers`), for `select`: so that each
    /// record's device is read by one worker, not by all of them (each scanning the whole batch
    /// was selection's whole cost on two threads, 0.11 s per 10M fixes, the same as on one).
    func partition<Record: BatchRecord>(_ batch: [Record], worker w: Int, of workers: Int) {
        if outgoing.count != workers { outgoing = Array(repeating: [], count: workers) }
        for s in outgoing.indices { outgoing[s].removeAll(keepingCapacity: true) }
        let part = batch.count * w / workers ..< batch.count * (w + 1) / workers
        batch.withUnsafeBufferPointer { batch in
            for k in part { outgoing[Int(batch[k].device.index) % workers].append(UInt32(truncatingIfNeeded: k)) }
        }
    }

    /// Sets `order` to the positions of the shard's records in `batch` (those whose device is
    /// numbered `w` modulo `workers`), ascending, up to the first of them whose values the engine
    /// refuses or that is older than its device's previous record (in the batch or before it): that
    /// one becomes `refusal`. Devices are independent, so the batch's first refused record is the
    /// first of the shards' refusals, and each shard finds its own in parallel with the others.
    ///
    /// - Parameters:
    ///   - partitioned: every worker's `partition` of the batch, when there are several workers (and
    ///     positions fit 32 bits); the shard then reads only its own records' positions from them.
    ///   - latest, marks: per-device scratch kept by the engine from batch to batch: a device's latest
    ///     time in this batch is `latest[d]` where `marks[d] == mark` (no slot cleared per batch).
    ///     Each shard touches only its own devices' slots.
    func select<Record: BatchRecord>(_ batch: [Record], worker w: Int, of workers: Int, partitioned: [StateShard]?,
                                     devices: UnsafeMutableBufferPointer<DeviceState>,
                                     latest: UnsafeMutableBufferPointer<Timestamp>, marks: UnsafeMutableBufferPointer<UInt32>,
                                     mark: UInt32) {
        order.removeAll(keepingCapacity: true)
        var deviceCount = 0, latestTime = Timestamp.distantPast
        batch.withUnsafeBufferPointer { batch in
            /// Takes record `k` of the shard's; false when it is refused (and the shard stops there).
            @inline(__always) func take(_ k: Int) -> Bool {
                let di = Int(batch[k].device.index)
                let time = batch[k].time
                if let problem = batch[k].problem {
                    refusal = BatchProblem(index: k, problem: problem)
                    return false
                }
                let seen = marks[di] == mark
                if let last = seen ? latest[di] : (devices[di].hasStarted ? devices[di].lastTime : nil), time < last {
                    refusal = BatchProblem(index: k, problem: DeviceState.outOfOrder(device: devices[di].name, time: time,
                                                                                       previous: last))
                    return false
                }
                if !seen { deviceCount += 1 }
                marks[di] = mark
                latest[di] = time
                latestTime = max(latestTime, time)
                order.append(UInt64(di) << 32 | UInt64(k))
                return true
            }
            if let partitioned {
                // The workers' parts in order, so positions ascend.
                all: for source in partitioned {
                    for k in source.outgoing[w] where !take(Int(k)) { break all }
                }
            } else {
                for k in batch.indices where Int(batch[k].device.index) % workers == w {
                    if !take(k) { break }
                }
            }
        }
        self.deviceCount = deviceCount
        self.latestTime = order.isEmpty ? nil : latestTime
    }

    /// Keeps in `order` only the records before `end`, the batch's first refused record (`latestTime`
    /// follows).
    private func keep<Record: BatchRecord>(before end: Int, of batch: [Record]) {
        guard let last = order.last, Int(truncatingIfNeeded: last & 0xFFFF_FFFF) >= end else { return }
        while let last = order.last, Int(truncatingIfNeeded: last & 0xFFFF_FFFF) >= end { order.removeLast() }
        latestTime = order.lazy.map { batch[Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF)].time }.max()
    }

    /// Groups `order` by device (each device's records ascending) when its devices have two or more
    /// records each on average, so that they run device by device; grouping costs a sort, and gains
    /// nothing for a device's single record.
    private func groupByDevice() {
        if order.count >= 2 * deviceCount { CellOrder.sort(&order) }
    }

    /// Runs the shard's fixes that `select` kept, those before `end` (device by device when they
    /// have several each); they were checked, so none is refused. A fix gets its geometry on its
    /// turn, only when its device's anchor cannot answer for it.
    func run(_ batch: [FixRecord], end: Int,
             devices: UnsafeMutableBufferPointer<DeviceState>, catalog: ConditionCatalog, policy: MonitoringPolicy) {
        var scratch = EvaluationScratch()
        scratch.asksAhead = false
        keep(before: end, of: batch)
        groupByDevice()
        for (n, key) in order.enumerated() {
            // The records are read in an order of their own (device by device), and their cells'
            // entries found through two more lookups: each is asked for some records ahead.
            if n + Self.recordsAhead < order.count {
                let later = Int(truncatingIfNeeded: order[n + Self.recordsAhead] & 0xFFFF_FFFF)
                batch.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + later) }
            }
            if n + Self.recordsAhead / 2 < order.count {
                let later = Int(truncatingIfNeeded: order[n + Self.recordsAhead / 2] & 0xFFFF_FFFF)
                catalog.coverGrid.prefetchCell(at: batch[later].fix.coordinate)
            }
            if n + Self.recordsAhead / 4 < order.count {
                let later = Int(truncatingIfNeeded: order[n + Self.recordsAhead / 4] & 0xFFFF_FFFF)
                catalog.coverGrid.prefetchEntries(at: batch[later].fix.coordinate)
            }
            let k = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
            let fix = batch[k].fix
            let needsGeometry = devices[Int(batch[k].device.index)].needsGeometry(fix, catalog: catalog, policy: policy)
            if !needsGeometry && fix.isValid { fixesAnsweredByAnchor += 1 }
            apply(k, batch, devices: devices, catalog: catalog, policy: policy, scratch: &scratch, needsGeometry: needsGeometry)
        }
        putOutputsInRecordOrder()
    }

    /// How many records ahead a shard asks for a fix record and its cell.
    static let recordsAhead = 16

    /// Runs the shard's sightings that `select` kept, those before `end` (device by device when they
    /// have several each); they were checked, so none is refused. Their matching conditions are found
    /// first, all together (`BeaconMatcher.matches(_:conditions:offsets:)`, whose probes overlap their
    /// waits for memory).
    func run(_ batch: [SightingRecord], end: Int,
             devices: UnsafeMutableBufferPointer<DeviceState>, catalog: ConditionCatalog, policy: MonitoringPolicy) {
        // The shard's sightings grouped by device, copied out of the batch in that order, so that
        // everything after reads them in sequence; only the copy reads the batch out of order.
        keep(before: end, of: batch)
        groupByDevice()
        grouped.removeAll(keepingCapacity: true)
        identities.removeAll(keepingCapacity: true)
        matched.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        for key in order {
            let record = batch[Int(truncatingIfNeeded: key & 0xFFFF_FFFF)]
            grouped.append(record)
            identities.append(record.sighting.identity)
        }
        identities.withUnsafeBufferPointer { catalog.beaconMatcher.matches($0, conditions: &matched, offsets: &offsets) }
        matched.withUnsafeBufferPointer { matched in
            for (n, record) in grouped.enumerated() {
                let k = Int(truncatingIfNeeded: order[n] & 0xFFFF_FFFF), di = Int(record.device.index)
                let time = record.sighting.time
                let before = events.count
                try? devices[di].beginRecord(at: time, cause: record.cause, sequence: sequenceBase + k, catalog: catalog, policy: policy,
                                             events: &events)
                devices[di].apply(record.sighting, matched: UnsafeBufferPointer(rebasing: matched[offsets[n]..<offsets[n + 1]]),
                                  cause: record.cause, catalog: catalog, policy: policy, events: &events)
                devices[di].endRecord(at: time, cause: record.cause)
                finish(k, device: di, eventsBefore: before, devices: devices)
            }
        }
        putOutputsInRecordOrder()
    }

    /// Puts the events and authorization changes back in record order, as `merge` reads them; those
    /// of one record keep their order.
    private func putOutputsInRecordOrder() {
        Self.sortByRecord(&events, &eventRecords, keys: &order)
        Self.sortByRecord(&changes, &changeRecords, keys: &order)
    }

    /// Sorts `values` stably by `records` (each value's record), moving each value once, without
    /// copies (a copy of an event would retain and release its strings).
    static func sortByRecord<Value>(_ values: inout [Value], _ records: inout [Int32], keys: inout [UInt64]) {
        guard values.count > 1, zip(records, records.dropFirst()).contains(where: { $0 > $1 }) else { return }
        keys.removeAll(keepingCapacity: true)
        for (j, k) in records.enumerated() { keys.append(UInt64(UInt32(k)) << 32 | UInt64(j)) }
        CellOrder.sort(&keys)
        for j in keys.indices { records[j] = Int32(truncatingIfNeeded: keys[j] >> 32) }
        // Slot j takes the value at keys[j]'s low half, cycle by cycle; a placed slot's key is `.max`.
        values.withUnsafeMutableBufferPointer { values in
            keys.withUnsafeMutableBufferPointer { keys in
                let base = values.baseAddress!
                for start in keys.indices where keys[start] != .max {
                    var j = start, source = Int(truncatingIfNeeded: keys[start] & 0xFFFF_FFFF)
                    guard source != start else {
                        keys[start] = .max
                        continue
                    }
                    let first = (base + start).move()
                    while source != start {
                        (base + j).moveInitialize(from: base + source, count: 1)
                        keys[j] = .max
                        j = source
                        source = Int(truncatingIfNeeded: keys[j] & 0xFFFF_FFFF)
                    }
                    (base + j).initialize(to: first)
                    keys[j] = .max
                }
            }
        }
    }

    /// Notes which record produced the events since `before` and the device's authorization changes.
    @inline(__always)
    private func finish(_ k: Int, device di: Int, eventsBefore before: Int, devices: UnsafeMutableBufferPointer<DeviceState>) {
        for _ in before..<events.count { eventRecords.append(Int32(k)) }
        if !devices[di].authorizationChanges.isEmpty {
            for change in devices[di].authorizationChanges {
                changes.append(change)
                changeRecords.append(Int32(k))
            }
            devices[di].authorizationChanges = []  // (rare: no buffer kept, so that `isEmpty` reads none)
        }
    }

    /// Applies fix `k`; one that needs no geometry changes no geographic pair.
    private func apply(_ k: Int, _ batch: [FixRecord], devices: UnsafeMutableBufferPointer<DeviceState>,
                       catalog: ConditionCatalog, policy: MonitoringPolicy, scratch: inout EvaluationScratch,
                       needsGeometry: Bool) {
        let record = batch[k], di = Int(record.device.index)
        let before = events.count
        // Checked by the caller: neither can refuse the fix.
        try? devices[di].beginRecord(at: record.fix.time, cause: record.cause, sequence: sequenceBase + k, catalog: catalog,
                                     policy: policy, events: &events)
        if needsGeometry {
            if devices[di].apply(record.fix, cause: record.cause, catalog: catalog, policy: policy, scratch: &scratch, events: &events) {
                fixesMeasuredNearAnchor += 1
            }
        }
        devices[di].endRecord(at: record.fix.time, cause: record.cause)
        finish(k, device: di, eventsBefore: before, devices: devices)
    }
}
