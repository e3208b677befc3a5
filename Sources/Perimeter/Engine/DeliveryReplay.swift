/// Delivery alone, replayed under another policy over a recording whose geometry is already known
/// (SPEC §5.7, what-if). Geometry does not depend on authorization: a `MonitoringEngine` pass gives
/// each record's events, and a replay per policy gives them the verdicts, held events, final lines,
/// authorization changes and request outcomes that a full run under that policy would.
///
/// The policies replayed must share the pass's geometry: hysteresis, accuracy weight,
/// confirmation, beacon exit timeout, default assumption, and the profile's limits, kinds and
/// dwelling (`MonitoringPolicy.hasSameGeometry(as:)`).
///
/// ```swift
/// var pass = MonitoringEngine(policy: standard)   // conditions added, records processed: `tape`
/// var replay = DeliveryReplay(policy: ios18)
/// for (k, record) in records.enumerated() {
///     try? replay.process(record.observation, device: record.device, cause: record.line,
///                         events: tape[starts[k]..<starts[k + 1]], into: &events)
/// }
/// replay.finish(events: endOfInput, into: &events)
/// ```
public struct DeliveryReplay: Sendable {
    public let policy: MonitoringPolicy
    private var devices: [DeviceState] = []
    private var deviceIndex: [String: Int] = [:]
    private var sequence = 0
    /// What became of the authorization requests, as `MonitoringEngine.requestOutcomes`.
    public private(set) var requestOutcomes: [RequestOutcome: Int] = [:]
    /// Authorization changes not yet taken.
    private var authorizationChanges: [AuthorizationChange] = []

    /// - Precondition: `policy.problem() == nil`.
    public init(policy: MonitoringPolicy) {
        precondition(policy.problem() == nil, policy.problem() ?? "")
        self.policy = policy
    }

    /// Replays one record the geometry pass took (not one it refused before its device's clock ran
    /// up to it): stream time runs up to it — the pass's events dated before it (beacon exits,
    /// dwells) get their verdicts among the expiries of held events — then its own events, and its
    /// authorization part if it is an authorization record.
    ///
    /// - Parameters:
    ///   - record: the record, as the geometry pass took it.
    ///   - device: the device's name.
    ///   - cause: the input line (or record index) written into the events.
    ///   - geometry: the events the pass gave this record, in order; their verdicts are
    ///     ignored (the condition's own diagnostics kept).
    ///   - events: where the events with their verdicts are appended.
    /// - Throws: an authorization record this policy refuses (an answer no prompt here offers): it
    ///   changes nothing, as in a full run, and the records after it go on.
    public mutating func process(_ record: Observation, device: String, cause: Int,
                                 events geometry: some Collection<MonitorEvent>,
                                 into events: inout [MonitorEvent]) throws(ObservationProblem) {
        let di = deviceNumber(device)
        let t = record.time
        let grace = policy.spans.gracePeriod
        if !devices[di].hasStarted { devices[di].start(at: t, cause: cause, sequence: sequence, grace: grace) }
        sequence += 1
        defer {
            devices[di].endRecord(at: t, cause: cause)
            collectChanges(di)
        }
        var rest = geometry[...]
        // Stream time up to the record: what fell due before it, each after the expiries due by then.
        while let event = rest.first, event.date < t {
            expire(di, notAfter: event.date, before: t, cause: cause, into: &events)
            emit(event, di, into: &events)
            rest = rest.dropFirst()
        }
        expire(di, notAfter: .distantFuture, before: t, cause: cause, into: &events)
        devices[di].settle(at: t, cause: cause, grace: grace)
        // Conditions left unmonitored are told before the record's own effect.
        while let event = rest.first, event.state == .unmonitored {
            emit(event, di, into: &events)
            rest = rest.dropFirst()
        }
        if let authorization = record.authorizationRecord {
            for outcome in try devices[di].apply(authorization, at: t, cause: cause, policy: policy, events: &events) {
                requestOutcomes[outcome, default: 0] += 1
            }
        }
        for event in rest { emit(event, di, into: &events) }
    }

    /// Ends the input as `MonitoringEngine.finish(into:)` does: for each device, in order of its
    /// first record, stream time runs to its latest record; `geometry` are the pass's end-of-input
    /// events (beacon exits, dwells), in its order.
    public mutating func finish(events geometry: [MonitorEvent], into events: inout [MonitorEvent]) {
        let order = devices.indices.filter { devices[$0].hasStarted }.sorted { devices[$0].startSequence < devices[$1].startSequence }
        var byDevice: [String: [MonitorEvent]] = [:]
        for event in geometry { byDevice[event.device, default: []].append(event) }
        for di in order {
            let limit = devices[di].lastTime, cause = devices[di].lastCause
            for event in byDevice[devices[di].name] ?? [] {
                expire(di, notAfter: event.date, before: limit, cause: cause, into: &events)
                emit(event, di, into: &events)
            }
            expire(di, notAfter: .distantFuture, before: limit, cause: cause, into: &events)
            collectChanges(di)
        }
    }

    /// Moves the authorization changes reported so far into `changes`, in order.
    public mutating func takeAuthorizationChanges(into changes: inout [AuthorizationChange]) {
        guard !authorizationChanges.isEmpty else { return }
        changes.append(contentsOf: authorizationChanges)
        authorizationChanges.removeAll(keepingCapacity: true)
    }

    /// Events still held at the end.
    public var heldEventCount: Int { devices.reduce(0) { $0 + $1.authorization.held.count } }

    private mutating func deviceNumber(_ name: String) -> Int {
        if let di = deviceIndex[name] { return di }
        deviceIndex[name] = devices.count
        devices.append(DeviceState(name: name, initialAuthorization: policy.initialAuthorization))
        return devices.count - 1
    }

    private mutating func expire(_ di: Int, notAfter instant: Timestamp, before limit: Timestamp, cause: Int,
                                 into events: inout [MonitorEvent]) {
        while devices[di].expireOldestHeld(notAfter: instant, before: limit, cause: cause, policy: policy, events: &events) {}
    }

    private mutating func emit(_ event: MonitorEvent, _ di: Int, into events: inout [MonitorEvent]) {
        var raw = event
        raw.delivery = Delivery(verdict: .delivered, reason: nil, diagnostics: event.delivery.diagnostics.intersection(.condition))
        raw.holding = 0
        devices[di].emit(raw, policy: policy, events: &events)
    }

    private mutating func collectChanges(_ di: Int) {
        guard !devices[di].authorizationChanges.isEmpty else { return }
        authorizationChanges.append(contentsOf: devices[di].authorizationChanges)
        devices[di].authorizationChanges = []
    }
}

extension MonitoringPolicy {
    /// Whether a run under `other` evaluates the same geometry — the same events, whatever their
    /// verdicts: the values that decide states and which conditions are monitored agree.
    ///
    /// - Parameters:
    ///   - other: the policy to compare with.
    ///   - conditionCount: how many conditions will be added, if known: limits at or above
    ///     it are no limit.
    public func hasSameGeometry(as other: MonitoringPolicy, conditionCount: Int = .max) -> Bool {
        func limit(_ p: PlatformProfile) -> Int? { p.conditionLimit.flatMap { $0 >= conditionCount ? nil : $0 } }
        return hysteresis == other.hysteresis && accuracyWeight == other.accuracyWeight && confirmation == other.confirmation
            && beaconExitTimeout == other.beaconExitTimeout && defaultAssumption == other.defaultAssumption
            && limit(profile) == limit(other.profile) && profile.monitorsPolygons == other.profile.monitorsPolygons
            && profile.monitorsBeacons == other.profile.monitorsBeacons && profile.loiteringDelay == other.profile.loiteringDelay
    }
}
