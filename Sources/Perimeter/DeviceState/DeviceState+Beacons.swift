extension DeviceState {
    /// Applies a sighting to every beacon condition it matches (SPEC §2, beacon).
    mutating func apply(_ sighting: BeaconSighting, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                        matches: inout [Int32], events: inout [MonitorEvent]) {
        matches.removeAll(keepingCapacity: true)
        catalog.matchingBeacons(sighting.identity, into: &matches)
        matches.withUnsafeBufferPointer { apply(sighting, matched: $0, cause: cause, catalog: catalog, policy: policy, events: &events) }
    }

    /// Applies a sighting to the beacon conditions it matches, `matched` (ascending).
    mutating func apply(_ sighting: BeaconSighting, matched: UnsafeBufferPointer<Int32>, cause: Int, catalog: ConditionCatalog,
                        policy: MonitoringPolicy, events: inout [MonitorEvent]) {
        guard !matched.isEmpty else { return }
        let due = sighting.time.adding(policy.spans.beaconExitTimeout)
        for i in matched where catalog.watches(beacon: i, watch) {
            let k: Int
            if let existing = beaconEntries.firstIndex(where: { $0.condition == i }) {
                k = existing
            } else {
                k = beaconEntries.count
                beaconEntries.append(BeaconEntry(condition: i, pair: beaconBaseline(i, catalog: catalog)))
            }
            // A pair with an exit due has one entry in the queue, at or before it: a sighting that
            // moves the exit later leaves the entry, which moves when it comes due (`requeue`) —
            // once per timeout, not once per sighting. An exit due at the end of time never fires,
            // and is not queued.
            if beaconEntries[k].pair.exitDue == .distantFuture && due != .distantFuture {
                exits.push(.init(due: due, condition: i))
            }
            beaconEntries[k].pair.exitDue = due
            if beaconEntries[k].pair.state != .satisfied {
                beaconEntries[k].pair.state = .satisfied
                emit(MonitorEvent(device: name, identifier: catalog.beaconIdentifier(i),
                                  state: .satisfied, date: sighting.time, refinement: sighting.identity, cause: cause),
                     policy: policy, events: &events)
            }
        }
    }

    /// Schedules the first exit timer of beacon conditions added since the device last looked: one
    /// queue entry per run of conditions that share a start (the device's first record, or their
    /// addition if later). Untouched pairs keep their starting state until it fires.
    mutating func catchUp(with catalog: ConditionCatalog, policy: MonitoringPolicy) {
        let count = Int32(catalog.beacons.count)
        guard beaconScheduled < count else { return }
        let timeout = policy.spans.beaconExitTimeout
        // One range per run of additions that share a start (epochs whose addition times fall at or
        // before the device's first record all start with it).
        let epochs = catalog.beaconEpochs
        var e = epochs.lastIndex { $0.start <= beaconScheduled } ?? 0
        var lo = beaconScheduled
        while lo < count {
            let start = max(firstTime, epochs[e].addedAt ?? firstTime)
            var next = e + 1
            while next < epochs.count && max(firstTime, epochs[next].addedAt ?? firstTime) == start { next += 1 }
            let hi = next < epochs.count ? epochs[next].start : count
            exits.push(.init(due: start.adding(timeout), condition: lo, rangeEnd: hi))
            lo = hi
            e = next
        }
        beaconScheduled = count
    }

    /// Fires the first timer of a range of untouched pairs together with every other exit due at the
    /// same instant, in condition order (then come the record's own events): the range is filed under
    /// its first condition, which may be a touched pair whose own exit ties with it, and its untouched
    /// pairs may lie between touched ones. Before each exit, the held events that expire by then.
    mutating func fireRange(_ range: ExitQueue.Entry, before limit: Timestamp, cause: Int, catalog: ConditionCatalog,
                            policy: MonitoringPolicy, events: inout [MonitorEvent]) {
        let due = range.due
        // Rare (a range fires once per device and addition), so these may allocate.
        var ranges = [range], exitsAtDue: [ExitQueue.Entry] = []
        while let next = exits.first, next.due == due {
            _ = exits.popFirst()
            if next.isRange {
                ranges.append(next)
            } else {
                let exit = currentExit(of: next, catalog: catalog)
                if exit == due { exitsAtDue.append(next) } else { requeue(next, at: exit) }  // (live ones in condition order)
            }
        }
        var pending = exitsAtDue[...]
        let others = catalog.beaconStartingOtherwise
        for range in ranges {
            var k = SortedIndices.firstIndex(in: others, notBelow: range.condition)
            while k < others.count && others[k] < range.rangeEnd {
                let i = others[k]
                k += 1
                guard !catalog.beaconRemoved[Int(i)], catalog.watches(beacon: i, watch),
                      !beaconEntries.contains(where: { $0.condition == i }) else { continue }
                while let exit = pending.first, exit.condition < i {
                    pending.removeFirst()
                    while expireOldestHeld(notAfter: due, before: limit, cause: cause, policy: policy, events: &events) {}
                    fireExit(exit, cause: cause, catalog: catalog, policy: policy, events: &events)
                }
                while expireOldestHeld(notAfter: due, before: limit, cause: cause, policy: policy, events: &events) {}
                emit(MonitorEvent(device: name, identifier: catalog.beaconIdentifier(i), state: .unsatisfied,
                                  date: due, cause: cause),
                     policy: policy, events: &events)
            }
        }
        for exit in pending {
            while expireOldestHeld(notAfter: due, before: limit, cause: cause, policy: policy, events: &events) {}
            fireExit(exit, cause: cause, catalog: catalog, policy: policy, events: &events)
        }
        for range in ranges { beaconSettled = max(beaconSettled, range.rangeEnd) }
        // Touched pairs that are unsatisfied now match the baseline: drop them.
        beaconEntries.removeAll { $0.condition < beaconSettled && $0.pair.state == .unsatisfied && $0.pair.exitDue == .distantFuture }
    }

    /// Fires a touched pair's exit.
    mutating func fireExit(_ entry: ExitQueue.Entry, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                           events: inout [MonitorEvent]) {
        guard let k = beaconEntries.firstIndex(where: { $0.condition == entry.condition }) else { return }
        beaconEntries[k].pair.exitDue = .distantFuture
        beaconEntries[k].pair.state = .unsatisfied
        let identifier = catalog.beaconIdentifier(entry.condition)
        if entry.condition < beaconSettled {
            beaconEntries.swapAt(k, beaconEntries.count - 1)
            beaconEntries.removeLast()
        }
        emit(MonitorEvent(device: name, identifier: identifier, state: .unsatisfied, date: entry.due, cause: cause),
             policy: policy, events: &events)
    }

    /// The exit now due for a queue entry's pair: the entry's own instant if it is live, a later one if
    /// sightings moved it since the entry was queued, `nil` if the pair has none (or its condition was
    /// removed). A range entry is always live.
    func currentExit(of entry: ExitQueue.Entry, catalog: ConditionCatalog) -> Timestamp? {
        if entry.isRange { return entry.due }
        guard !catalog.beaconRemoved[Int(entry.condition)] else { return nil }
        return beaconEntries.first(where: { $0.condition == entry.condition })?.pair.exitDue
    }

    /// Queues a popped entry that is not live again at `exit`, its pair's exit (`currentExit`), when
    /// that is a later instant; else drops it.
    mutating func requeue(_ entry: ExitQueue.Entry, at exit: Timestamp?) {
        guard let exit, exit != .distantFuture, exit > entry.due else { return }
        exits.push(.init(due: exit, condition: entry.condition))
    }
}
