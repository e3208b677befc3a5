/// A monitor in the manner of `CLMonitor`: add conditions by identifier, feed it what devices
/// observe, and read events from an `AsyncSequence`.
///
/// ```swift
/// let monitor = Monitor(name: "stores")
/// try await monitor.add(.circle(try CircularGeographicCondition(center: shop, radius: 100)),
///                       identifier: "shop", assuming: .unsatisfied)
/// Task { for await event in monitor.events { print(event.identifier, event.state) } }
/// try await monitor.process(.fix(fix), device: "phone-1")
/// let record = await monitor.record(for: "shop", device: "phone-1")
/// ```
///
/// Unlike a phone's monitor it watches any number of devices; each device's records must come in
/// time order. Events are also returned from each `process` call, for callers that want them inline.
/// Authorization records (`.app`, `.request`, `.answer`, `.settings`) go through `process` too, and
/// every event carries the delivery verdict they imply (SPEC §3). An event's `cause` is the 1-based
/// index of the record that produced it among all records this monitor has processed.
public actor Monitor {
    /// The device assumed by calls that name none: the monitor of a single phone.
    public static let defaultDevice = "device"

    public nonisolated let name: String
    /// Every event, with its delivery verdict, in the order produced. Finishes after `finish()`, or
    /// at once when the monitor was made not to stream its events. The stream keeps every event until
    /// it is read: a caller that takes the events `process` returns instead should not stream them.
    public nonisolated let events: AsyncStream<MonitorEvent>
    private let continuation: AsyncStream<MonitorEvent>.Continuation
    /// Every change of a device's authorization (status, accuracy, provisional and temporary grants,
    /// location services, use), as `locationManagerDidChangeAuthorization` reports them. Finishes after `finish()`.
    public nonisolated let authorizationChanges: AsyncStream<AuthorizationChange>
    private let authorizationContinuation: AsyncStream<AuthorizationChange>.Continuation
    private var changeBuffer: [AuthorizationChange] = []
    var engine: MonitoringEngine
    var lastEvents: [RecordKey: MonitorEvent] = [:]
    private var buffer: [MonitorEvent] = []
    private let streamsEvents: Bool
    /// Records processed so far: each event's `cause` is its record's 1-based index in this count.
    /// A monitor reopened from a store goes on counting from where it was saved.
    public private(set) var recordCount = 0

    // Persistence, for a monitor opened from a store (`init(name:store:…)`): what it saves to, when,
    // and how much has changed since the last save.
    let store: (any MonitorStore)?
    let cadence: CheckpointCadence
    var recordsSinceCheckpoint = 0
    var lastCheckpoint = ContinuousClock.now
    /// Why the last automatic checkpoint failed, until one succeeds: it is tried again at the next
    /// occasion, and `checkpoint()` throws its own error.
    public internal(set) var lastCheckpointError: MonitorStoreError?

    struct RecordKey: Hashable {
        var device: String
        var identifier: String
    }

    /// - Parameters:
    ///   - name: the monitor's name.
    ///   - policy: the policy values every device is evaluated with.
    ///   - streamsEvents: whether `events` yields the events (as `CLMonitor.events` does);
    ///     false when the caller takes them from what `process` returns, which then spares each event
    ///     the stream's hand-over to its reader (about a microsecond at the tail).
    public init(name: String, policy: MonitoringPolicy = MonitoringPolicy(), streamsEvents: Bool = true) {
        self.init(name: name, engine: MonitoringEngine(policy: policy), store: nil, cadence: .manual, streamsEvents: streamsEvents)
    }

    init(name: String, engine: consuming MonitoringEngine, store: (any MonitorStore)?, cadence: CheckpointCadence,
         streamsEvents: Bool, recordCount: Int = 0, lastEvents: [RecordKey: MonitorEvent] = [:]) {
        self.name = name
        self.recordCount = recordCount
        self.lastEvents = lastEvents
        self.streamsEvents = streamsEvents
        self.engine = engine
        self.store = store
        self.cadence = cadence
        (events, continuation) = AsyncStream.makeStream(of: MonitorEvent.self)
        if !streamsEvents { continuation.finish() }
        (authorizationChanges, authorizationContinuation) = AsyncStream.makeStream(of: AuthorizationChange.self)
    }

    public var policy: MonitoringPolicy { engine.policy }

    /// Starts monitoring `condition` under `identifier`; `assuming` is its starting state
    /// (`nil`: the policy's default).
    /// `audience`: the devices that watch it (`ConditionAudience`); every device by default.
    public func add(_ condition: Condition, identifier: String, assuming: ConditionState? = nil,
                    audience: ConditionAudience = .everyone) throws(ConditionCatalogError) {
        try engine.add(condition, identifier: identifier, assuming: assuming, audience: audience)
        if cadence.afterConditionChanges { checkpointQuietly() }
    }

    /// Starts monitoring each condition in order, as `add(_:identifier:assuming:)` does; a duplicate
    /// identifier throws, with the conditions before it added. A monitor opened from a store saves
    /// once, after them all.
    public func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)]) throws(ConditionCatalogError) {
        defer { if cadence.afterConditionChanges { checkpointQuietly() } }
        try engine.add(contentsOf: conditions)
    }

    /// `add(contentsOf:)` with each condition's audience.
    public func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?,
                                             audience: ConditionAudience)]) throws(ConditionCatalogError) {
        defer { if cadence.afterConditionChanges { checkpointQuietly() } }
        try engine.add(contentsOf: conditions)
    }

    /// Sets every device's groups anew (`MonitoringEngine.setGroups(_:)`): `members` lists each
    /// group's devices.
    public func setGroups(_ members: [String: [String]]) {
        engine.setGroups(members)
        if cadence.afterConditionChanges { checkpointQuietly() }
    }

    /// Stops monitoring; its records go with it.
    public func remove(_ identifier: String) {
        guard engine.remove(identifier) else { return }
        lastEvents = lastEvents.filter { $0.key.identifier != identifier }
        if cadence.afterConditionChanges { checkpointQuietly() }
    }

    /// Identifiers being monitored, in the order they were added.
    public var identifiers: [String] { engine.identifiers }

    /// The condition, its current state for `device`, and the last event it produced there (delivered
    /// or not) — `CLMonitor.record(for:)`. `nil` if nothing is monitored under `identifier`.
    public func record(for identifier: String, device: String = Monitor.defaultDevice) -> MonitorRecord? {
        guard let condition = engine.condition(for: identifier),
              let state = engine.state(of: identifier, device: device) else { return nil }
        return MonitorRecord(condition: condition, state: state,
                             lastEvent: lastEvents[RecordKey(device: device, identifier: identifier)])
    }

    /// Applies one record of `device`'s stream; returns (and yields) the events it caused. A refused
    /// record throws `RefusedRecord`, with the events that fell due before it.
    @discardableResult
    public func process(_ observation: Observation, device: String = Monitor.defaultDevice) throws(RefusedRecord) -> [MonitorEvent] {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        defer { publish(records: 1) }
        recordCount += 1
        do throws(ObservationProblem) {
            try engine.process(observation, device: device, cause: recordCount, into: &buffer)
        } catch {
            throw RefusedRecord(problem: error, index: 0, events: buffer)
        }
        return buffer
    }

    /// Applies a batch of one device's records in order; stops at the first refused record, throwing
    /// `RefusedRecord` with its position and the events of the records before it (published too).
    @discardableResult
    public func process(_ batch: [Observation], device: String = Monitor.defaultDevice) throws(RefusedRecord) -> [MonitorEvent] {
        buffer.removeAll(keepingCapacity: true)
        let before = recordCount
        defer { publish(records: recordCount - before) }
        for (index, observation) in batch.enumerated() {
            recordCount += 1
            do throws(ObservationProblem) {
                try engine.process(observation, device: device, cause: recordCount, into: &buffer)
            } catch {
                throw RefusedRecord(problem: error, index: index, events: buffer)
            }
        }
        return buffer
    }

    /// Ends the input: fires the beacon exits already due and finishes `events`. A monitor opened
    /// from a store saves itself then.
    @discardableResult
    public func finish() -> [MonitorEvent] {
        buffer.removeAll(keepingCapacity: true)
        engine.finish(into: &buffer)
        publish()
        if store != nil { checkpointQuietly() }
        continuation.finish()
        authorizationContinuation.finish()
        return buffer
    }

    /// Publishes the events in `buffer`, after `records` records were processed (which may make a
    /// checkpoint due).
    private func publish(records: Int) {
        publish()
        guard store != nil else { return }
        recordsSinceCheckpoint += records
        if checkpointIsDue { checkpointQuietly() }
    }

    private func publish() {
        // (One fix at a time, most records publish nothing: each step below is skipped unless needed,
        // rather than calling into the arrays to empty what is already empty.)
        for event in buffer {
            let key = RecordKey(device: event.device, identifier: event.identifier)
            // A held event's final verdict can come out after a newer event of its condition (one
            // that displaced it, or Allow Always delivering old held events): it is the record's last
            // event only while that event is still the latest.
            if !event.isFinalVerdict || lastEvents[key].map({ $0.isHeldLine(of: event) }) == true {
                lastEvents[key] = event
            }
            if streamsEvents { continuation.yield(event) }
        }
        engine.takeAuthorizationChanges(into: &changeBuffer)
        guard !changeBuffer.isEmpty else { return }
        for change in changeBuffer { authorizationContinuation.yield(change) }
        changeBuffer.removeAll(keepingCapacity: true)
    }

    /// Events still held during provisional always, over all devices.
    public var heldEventCount: Int { engine.heldEventCount }

    /// What became of authorization requests so far.
    public var requestOutcomes: [RequestOutcome: Int] { engine.requestOutcomes }
}

extension MonitorEvent {
    /// Whether this is the held line of the event whose final verdict is `final`, still held: the
    /// same holding number (unique per device), not merely an equal-looking change of state.
    fileprivate func isHeldLine(of final: MonitorEvent) -> Bool {
        delivery.verdict == .held && !isFinalVerdict && holding == final.holding
    }
}

/// What `Monitor.record(for:device:)` tells about a condition.
public struct MonitorRecord: Sendable, Hashable {
    public var condition: Condition
    /// The condition's true current state for the device, whatever was delivered.
    public var state: ConditionState
    /// The last event the condition produced for the device, `nil` if none yet; once it was held, with
    /// its final verdict when that comes.
    public var lastEvent: MonitorEvent?
}
