/// A circle's dwell timer: the device has been inside since `due − loiteringDelay`.
struct DwellTimer: Codable {
    var condition: Int32
    var due: Timestamp
}

// What a platform profile adds to a device's timeline (docs/profiles.md): dwelling. (The
// `unmonitored` events are told where the device's watch is made: DeviceState+Watch.swift.)
extension DeviceState {
    /// Sets, or cancels, the dwell timers of the geographic pairs that changed at `time`.
    mutating func updateDwells(_ changes: [(condition: Int32, state: ConditionState)], at time: Timestamp, delay: TimeSpan) {
        var timers = dwells ?? []
        for change in changes {
            timers.removeAll { $0.condition == change.condition }
            // (One delay and times in order: appended, the timers stay in due order.)
            if change.state == .satisfied { timers.append(DwellTimer(condition: change.condition, due: time.adding(delay))) }
        }
        dwells = timers.isEmpty ? nil : timers
    }

    /// The first dwell timer's instant if it falls before `limit` (or at it, when `inclusive`).
    func firstDwell(before limit: Timestamp, inclusive: Bool) -> Timestamp? {
        guard let due = dwells?.first?.due, due < limit || (inclusive && due == limit) else { return nil }
        return due
    }

    /// Fires the first dwell timer: a `dwelling` event at its instant, unless its condition was removed.
    mutating func fireFirstDwell(cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy, events: inout [MonitorEvent]) {
        guard let timer = dwells?.removeFirst() else { return }
        if dwells?.isEmpty == true { dwells = nil }
        guard !catalog.geographic[Int(timer.condition)].isRemoved else { return }
        emit(MonitorEvent(device: name, identifier: catalog.geographicIdentifier(timer.condition), state: .dwelling,
                          date: timer.due, cause: cause),
             policy: policy, events: &events)
    }
}
