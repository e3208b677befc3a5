/// The state of one condition for one device, as `CLMonitor.Event.State`.
public enum ConditionState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Not yet known: the start, unless the condition was added `assuming` another state.
    case unknown
    /// Inside the region, or the beacon is in range.
    case satisfied
    /// Outside the region, or the beacon has not been seen for the exit timeout.
    case unsatisfied
    /// An event's state only, never a condition's: the condition is not monitored for the device
    /// (too many of its type, or a kind the platform does not monitor; docs/profiles.md).
    case unmonitored
    /// An event's state only (Android's dwell transition): the device has been inside the circle
    /// for the loitering delay; the condition stays satisfied.
    case dwelling

    /// Whether a condition can be in this state (start in it, `assuming`), not only an event.
    public var isConditionState: Bool {
        switch self {
        case .unknown, .satisfied, .unsatisfied: true
        case .unmonitored, .dwelling: false
        }
    }
}
