/// Live updates for many devices (SPEC §5.1, docs/live.md): each device's `LiveUpdater`, beside a
/// `MonitoringEngine` that keeps the devices' authorization (and monitors conditions, if it has any).
///
/// Monitoring never looks at the updates, so its events are the same whether or not devices pause.
///
/// ```swift
/// var live = LiveUpdates(monitoring: MonitoringEngine())
/// var events: [MonitorEvent] = [], updates: [LiveUpdate] = []
/// for (index, (device, observation)) in recording.enumerated() {
///     try live.process(observation, device: device, cause: index + 1, events: &events, updates: &updates)
/// }
/// live.finish(events: &events, updates: &updates)
/// ```
public struct LiveUpdates: Sendable {
    /// The monitoring engine: authorization for the updates, events for the conditions.
    public internal(set) var monitoring: MonitoringEngine
    public let policy: LiveUpdatePolicy
    /// Where a reduced-accuracy app sees a position.
    public let approximateLocation: ApproximateLocation
    /// Indexed by the engine's `DeviceID`.
    public internal(set) var updaters: [LiveUpdater] = []
    /// Each device's latest record's time taken here, by `DeviceID`.
    var clocks: [Timestamp] = []
    /// Updates written so far, by kind, for a summary.
    public internal(set) var stationaryCount = 0, unavailableCount = 0, updateCount = 0

    public init(monitoring: MonitoringEngine, policy: LiveUpdatePolicy = LiveUpdatePolicy(),
                approximateLocation: ApproximateLocation = .standard) {
        self.monitoring = monitoring
        self.policy = policy
        self.approximateLocation = approximateLocation
    }

    /// The identifier of a device by name (`MonitoringEngine.deviceID(_:)`).
    public mutating func deviceID(_ name: String) -> DeviceID { monitoring.deviceID(name) }

    /// Applies one record: the device's `locationUnavailable` due before it, the record in the
    /// monitoring engine (its events appended to `events`), then the record's own update.
    /// - Throws: the engine's refusal; the record then changes nothing here, except that a
    ///   `locationUnavailable` due before a record refused after its clock ran up to it is said.
    public mutating func process(_ observation: Observation, device name: String, cause: Int,
                                 events: inout [MonitorEvent], updates: inout [LiveUpdate]) throws(ObservationProblem) {
        try process(observation, device: monitoring.deviceID(name), name: name, cause: cause, events: &events, updates: &updates)
    }

    /// `process(_:device:cause:events:updates:)` for a device already named by `deviceID(_:)`.
    public mutating func process(_ observation: Observation, device id: DeviceID, name: String, cause: Int,
                                 events: inout [MonitorEvent], updates: inout [LiveUpdate]) throws(ObservationProblem) {
        let di = Int(id.index)
        grow(to: di)
        let t = observation.time
        var unavailable: LiveUpdate?
        if let due = updaters[di].unavailableDue(policy), due < t, monitoring.clock(of: id).map({ $0 <= t }) ?? true {
            unavailable = self.unavailable(name, id, at: due, cause: cause)
        }
        defer { clocks[di] = monitoring.clock(of: id) ?? .distantPast }
        do {
            try monitoring.process(observation, device: id, cause: cause, into: &events)
        } catch {
            if let unavailable, monitoring.clock(of: id) == t { say(unavailable, di, into: &updates) }
            throw error
        }
        if let unavailable { say(unavailable, di, into: &updates) }
        guard case .update(let stationary) = updaters[di].take(observation, policy: policy, location: approximateLocation),
              case .fix(let fix) = observation else { return }
        update(name, id, fix, stationary: stationary, cause: cause, into: &updates)
    }

    /// Makes room for the device numbered `di`.
    mutating func grow(to di: Int) {
        while updaters.count <= di {
            updaters.append(LiveUpdater(configuration: policy.initialConfiguration,
                                        approximateInterval: TimeSpan(seconds: policy.approximateInterval)))
            clocks.append(.distantPast)
        }
    }

    /// The update of a fix that yields one, with what the app may have at the fix's time.
    mutating func update(_ name: String, _ id: DeviceID, _ fix: Fix, stationary: Bool, cause: Int, into updates: inout [LiveUpdate]) {
        let t = fix.time, di = Int(id.index)
        let access = monitoring.locationAccess(of: id, at: t)
        var location: LiveUpdate.Location?
        if access.providesLocation {
            if access.accuracyLimited, let report = updaters[di].approximate.report {
                location = LiveUpdate.Location(coordinate: report.centre, accuracy: report.radius)
            } else {
                location = LiveUpdate.Location(coordinate: fix.coordinate, accuracy: fix.horizontalAccuracy)
            }
        }
        updates.append(LiveUpdate(device: name, date: t, location: location, isStationary: stationary, locationUnavailable: false,
                                  accuracyLimited: access.accuracyLimited, diagnostics: access.updateDiagnostics, cause: cause))
        updateCount += 1
        if stationary { stationaryCount += 1 }
    }

    /// The end of the input: each device's `locationUnavailable` due at or before its last record
    /// (devices in the order they started), then the engine's end (`MonitoringEngine.finish`).
    public mutating func finish(events: inout [MonitorEvent], updates: inout [LiveUpdate]) {
        for name in monitoring.deviceNames {
            let id = monitoring.deviceID(name)
            let di = Int(id.index)
            guard di < updaters.count, let clock = monitoring.clock(of: id),
                  let due = updaters[di].unavailableDue(policy), due <= clock else { continue }
            say(unavailable(name, id, at: due, cause: monitoring.lastCause(of: id)), di, into: &updates)
        }
        monitoring.finish(into: &events)
    }

    func unavailable(_ name: String, _ id: DeviceID, at due: Timestamp, cause: Int) -> LiveUpdate {
        let access = monitoring.locationAccess(of: id, at: due)
        return LiveUpdate(device: name, date: due, location: nil, isStationary: false, locationUnavailable: true,
                          accuracyLimited: access.accuracyLimited, diagnostics: access.updateDiagnostics, cause: cause)
    }

    mutating func say(_ update: LiveUpdate, _ di: Int, into updates: inout [LiveUpdate]) {
        updaters[di].markUnavailableSaid()
        updates.append(update)
        updateCount += 1
        unavailableCount += 1
    }
}
