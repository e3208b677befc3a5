/// Beacon ranging for many devices (SPEC §5.2, docs/ranging.md): each device's `BeaconRanger`, the
/// constraints matched by the monitoring path's beacon matcher, beside a `MonitoringEngine` that
/// keeps the devices' authorization (and monitors conditions, if it has any).
///
/// ```swift
/// let room = RangingConstraint(identifier: "room-12", identity: BeaconIdentityCondition(uuid: museum, major: 12))
/// var ranging = BeaconRanging(monitoring: MonitoringEngine(), constraints: [room])
/// var events: [MonitorEvent] = [], results: [RangingResult] = []
/// try ranging.process(.sighting(sighting), device: "visitor-7", cause: 1, events: &events, results: &results)
/// ranging.finish(events: &events, results: &results)
/// ```
public struct BeaconRanging: Sendable {
    /// The monitoring engine: authorization for the results, events for the conditions.
    public internal(set) var monitoring: MonitoringEngine
    public let policy: RangingPolicy
    let catalog: RangingCatalog
    /// Indexed by the engine's `DeviceID`.
    var rangers: [BeaconRanger] = []
    /// Each device's latest record's time taken here (nanoseconds), by `DeviceID`.
    var clocks: [Int64] = []
    var matches: [Int32] = []
    var offsets: [Int] = []
    var identities: [BeaconIdentity] = []
    var due: [BeaconRanger.Due] = []
    /// Results written so far, and how many of them were dropped.
    public internal(set) var resultCount = 0, droppedCount = 0

    public init(monitoring: MonitoringEngine, constraints: [RangingConstraint], policy: RangingPolicy = RangingPolicy()) {
        self.monitoring = monitoring
        self.policy = policy
        catalog = RangingCatalog(constraints)
    }

    /// The identifier of a device by name (`MonitoringEngine.deviceID(_:)`).
    public mutating func deviceID(_ name: String) -> DeviceID { monitoring.deviceID(name) }

    /// The constraints, in the order results of one second come.
    public var constraints: [RangingConstraint] { catalog.constraints }

    /// Applies one record: the device's results due before it, the record in the monitoring engine
    /// (its events appended to `events`), then the record's sighting into the windows it matches.
    /// - Throws: the engine's refusal; a record refused before its device's clock ran up to it
    ///   changes nothing here.
    public mutating func process(_ observation: Observation, device name: String, cause: Int,
                                 events: inout [MonitorEvent], results: inout [RangingResult]) throws(ObservationProblem) {
        try process(observation, device: monitoring.deviceID(name), name: name, cause: cause, events: &events, results: &results)
    }

    /// `process(_:device:cause:events:results:)` for a device already named by `deviceID(_:)`.
    public mutating func process(_ observation: Observation, device id: DeviceID, name: String, cause: Int,
                                 events: inout [MonitorEvent], results: inout [RangingResult]) throws(ObservationProblem) {
        let di = Int(id.index)
        grow(to: di)
        try MonitoringEngine.validate(observation)
        let t = observation.time
        if !rangers[di].isIdle, monitoring.clock(of: id).map({ $0 <= t }) ?? true {
            rangers[di].advance(to: t.nanosecondsSinceEpoch, inclusive: false, policy: policy, into: &due)
            write(name, id, into: &results)
        }
        defer { clocks[di] = monitoring.clock(of: id)?.nanosecondsSinceEpoch ?? .min }
        try monitoring.process(observation, device: id, cause: cause, into: &events)
        guard case .sighting(let sighting) = observation else { return }
        matches.removeAll(keepingCapacity: true)
        catalog.matcher.matches(sighting.identity, into: &matches)
        if !matches.isEmpty { rangers[di].add(sighting, cause: cause, constraints: matches[...]) }
    }

    /// The end of the input: each device's results due at or before its last record (devices in
    /// the order they started), then the engine's end (`MonitoringEngine.finish`).
    public mutating func finish(events: inout [MonitorEvent], results: inout [RangingResult]) {
        for name in monitoring.deviceNames {
            let id = monitoring.deviceID(name)
            let di = Int(id.index)
            guard di < rangers.count, !rangers[di].isIdle, let clock = monitoring.clock(of: id) else { continue }
            rangers[di].advance(to: clock.nanosecondsSinceEpoch, inclusive: true, policy: policy, into: &due)
            write(name, id, into: &results)
        }
        monitoring.finish(into: &events)
    }

    /// Makes room for the device numbered `di`.
    mutating func grow(to di: Int) {
        while rangers.count <= di {
            rangers.append(BeaconRanger())
            clocks.append(.min)
        }
    }

    /// The due results, by second and then constraint, each with the verdict at its second.
    mutating func write(_ name: String, _ id: DeviceID, into results: inout [RangingResult]) {
        guard !due.isEmpty else { return }
        droppedCount += Self.results(from: &due, name, id, monitoring: monitoring, constraints: catalog.constraints, into: &results)
        resultCount += due.count
        due.removeAll(keepingCapacity: true)
    }

    /// Appends the results `due` makes (sorting it), each with the verdict at its second; returns
    /// how many were dropped. Reads the engine only: shards of a batch call it side by side.
    static func results(from due: inout [BeaconRanger.Due], _ name: String, _ id: DeviceID, monitoring: borrowing MonitoringEngine,
                        constraints: [RangingConstraint], into results: inout [RangingResult]) -> Int {
        due.sort { ($0.second, $0.constraint) < ($1.second, $1.constraint) }
        var access: (second: Int64, delivery: Delivery)?
        var dropped = 0
        for d in due {
            if access?.second != d.second {
                let at = Timestamp(nanosecondsSinceEpoch: d.second * 1_000_000_000)
                access = (d.second, monitoring.locationAccess(of: id, at: at).ranging)
            }
            let delivery = access!.delivery
            results.append(RangingResult(device: name, constraint: constraints[Int(d.constraint)].identifier,
                                         date: Timestamp(nanosecondsSinceEpoch: d.second * 1_000_000_000),
                                         beacons: d.beacons, delivery: delivery, cause: d.cause))
            if delivery.verdict != .delivered { dropped += 1 }
        }
        return dropped
    }
}
