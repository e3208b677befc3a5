/// The state of one condition for one device, as `CLMonitor.Event.State`.
public enum ConditionState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Not yet known: the start, unless the condition was added `assuming` another state.
    case unknown
    /// Inside the region, or the beacon is in range.
    case satisfied
    /// Outside the region, or the beacon has not been seen for the exit timeout.
    case unsatisfied
}
