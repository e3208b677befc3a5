extension DeviceState {
    /// What every record does before its own effect: refuse it if it is older than the device's
    /// latest record (never reorder), start the device on its first record, and let stream time run
    /// up to it (exits and expiries due before it, lapses of temporary grants). `sequence` is the
    /// record's place among all the engine has taken.
    mutating func beginRecord(at time: Timestamp, cause: Int, sequence: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                              events: inout [MonitorEvent]) throws(ObservationProblem) {
        let grace = policy.spans.gracePeriod
        if hasStarted {
            guard time >= lastTime else { throw Self.outOfOrder(device: name, time: time, previous: lastTime) }
        } else {
            start(at: time, cause: cause, sequence: sequence, grace: grace)
        }
        updateWatch(at: time, catalog: catalog, policy: policy)
        catchUp(with: catalog, policy: policy)
        advance(to: time, inclusive: false, cause: cause, catalog: catalog, policy: policy, events: &events)
        settle(at: time, cause: cause, grace: grace)
        if watch.isLimited && Int(announcedThrough ?? 0) < catalog.additionCount {
            announceUnmonitored(at: time, cause: cause, catalog: catalog, policy: policy, events: &events)
        }
    }

    /// The device's first record, at `time`: it starts there, with its starting authorization
    /// reported.
    mutating func start(at time: Timestamp, cause: Int, sequence: Int, grace: TimeSpan) {
        hasStarted = true
        startSequence = sequence
        firstTime = time
        lastTime = time
        reportAuthorization(date: time, inUseAt: time, cause: cause, grace: grace)
    }

    /// The problem of a record older than its device's previous one. Both times are stated exactly,
    /// as RFC 3339 and as Unix seconds, so that the user finds them as the input writes them.
    static func outOfOrder(device: String, time: Timestamp, previous: Timestamp) -> ObservationProblem {
        ObservationProblem(
            field: "t",
            message: "record is older than device \"\(device)\"'s previous record (\(time) < \(previous); Unix seconds \(time.unixSecondsText) < \(previous.unixSecondsText)); records of one device must be in time order")
    }

    /// What every record does after its effect, even a refused answer: the device's clock moves on.
    mutating func endRecord(at time: Timestamp, cause: Int) {
        lastTime = time
        lastCause = cause
    }

    /// Lets the device's stream time run up to `limit`: beacon exits and dwell timers due before it
    /// (or at it, when `inclusive`) fire and held events older than the maximum holding age expire,
    /// in time order (at one instant, an expiry, then an exit, then a dwell).
    mutating func advance(to limit: Timestamp, inclusive: Bool, cause: Int, catalog: ConditionCatalog,
                          policy: MonitoringPolicy, events: inout [MonitorEvent]) {
        while true {
            let exitDue = firstLiveExit(before: limit, inclusive: inclusive, catalog: catalog)
            let dwellDue = dwells == nil ? nil : firstDwell(before: limit, inclusive: inclusive)
            let next = min(exitDue ?? .distantFuture, dwellDue ?? .distantFuture)
            if expireOldestHeld(notAfter: next, before: limit, cause: cause, policy: policy, events: &events) {
                continue
            }
            if let dwellDue, exitDue.map({ dwellDue < $0 }) ?? true {
                fireFirstDwell(cause: cause, catalog: catalog, policy: policy, events: &events)
                continue
            }
            guard exitDue != nil, let entry = exits.popFirst() else { return }
            if entry.isRange {
                fireRange(entry, before: limit, cause: cause, catalog: catalog, policy: policy, events: &events)
            } else {
                fireExit(entry, cause: cause, catalog: catalog, policy: policy, events: &events)
            }
        }
    }

    /// Drops the oldest held event as expired if its expiry (date + maximum age) is before `limit`
    /// and not after `instant` — an expiry goes before an exit at the same instant. Held events are
    /// in date order, so the oldest expires first. Returns whether one expired.
    mutating func expireOldestHeld(notAfter instant: Timestamp, before limit: Timestamp, cause: Int,
                                   policy: MonitoringPolicy, events: inout [MonitorEvent]) -> Bool {
        guard let expiry = authorization.oldestHeldExpiry(maximumAge: policy.spans.maximumHoldingAge),
              expiry < limit, expiry <= instant else { return false }
        authorization.expireOldestHeld(cause: cause, into: &events)
        return true
    }

    /// The due instant of the first live exit if it falls before `limit` (or at it, when `inclusive`),
    /// moving the entries before it whose exits later sightings moved to where they are due now
    /// (`requeue`), and dropping those of removed conditions. Entries not yet due stay: whether they
    /// moved matters only once they are due, and telling costs a look through the device's pairs.
    private mutating func firstLiveExit(before limit: Timestamp, inclusive: Bool, catalog: ConditionCatalog) -> Timestamp? {
        while exits.nextDue < limit || (inclusive && exits.nextDue == limit), let next = exits.first {
            let exit = currentExit(of: next, catalog: catalog)
            if exit == next.due { return next.due }
            _ = exits.popFirst()
            requeue(next, at: exit)
        }
        return nil
    }
}
