/// One record of a device's stream.
public enum Observation: Sendable, Hashable {
    case fix(Fix)
    case sighting(BeaconSighting)

    /// When it happened, in the device's stream time.
    public var time: Timestamp {
        switch self {
        case .fix(let fix): fix.time
        case .sighting(let sighting): sighting.time
        }
    }
}
