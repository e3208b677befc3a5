/// A change of a condition's state for one device, with what was done with it — `CLMonitor.Event`
/// plus the delivery verdict.
public struct MonitorEvent: Sendable, Hashable {
    /// The device's name, as its records give it.
    public var device: String
    /// The condition's identifier.
    public var identifier: String
    /// The state the condition changed to.
    public var state: ConditionState
    /// Stream time of the change: the completing fix, the satisfying sighting, or the exit's due instant.
    public var date: Timestamp
    /// For a beacon condition's satisfied event, the concrete beacon that satisfied it.
    public var refinement: BeaconIdentity?
    /// What the app was given (SPEC §3): delivered, held or dropped, and why.
    public var delivery: Delivery
    /// Whether this is the second line of an event held earlier, with its final verdict (SPEC §4),
    /// rather than a new change of state: it may come out after newer events of the same condition.
    public internal(set) var isFinalVerdict = false
    /// For an event that was held, its number among the events its device held (from 1, on its held
    /// line and its final line alike); 0 otherwise. It ties a final line to exactly the held line it
    /// resolves: another event of the condition may look the same (state, date, refinement, even
    /// cause). 32 bits fit beside `isFinalVerdict`, so the event does not grow.
    var holding: UInt32 = 0
    /// The input line (or record index) of the record that produced the event.
    public var cause: Int

    /// An event as the engine makes it: delivered until a verdict is given.
    public init(device: String, identifier: String, state: ConditionState, date: Timestamp,
                refinement: BeaconIdentity? = nil, delivery: Delivery = .delivered, cause: Int) {
        self.device = device
        self.identifier = identifier
        self.state = state
        self.date = date
        self.refinement = refinement
        self.delivery = delivery
        self.cause = cause
    }
}
