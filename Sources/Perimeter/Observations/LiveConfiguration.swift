/// How a device's live updates decide that it stands still (SPEC §5.1), as
/// `CLLocationUpdate.LiveConfiguration`: each names a row of stationary radius and time
/// (`LiveUpdatePolicy`); `airborne` never pauses.
public enum LiveConfiguration: String, Sendable, Hashable, CaseIterable, Codable {
    case `default`
    case automotiveNavigation
    case otherNavigation
    case fitness
    case airborne
}

/// A `config` record: from `time` on, the device's live updates follow `configuration`.
public struct LiveConfigurationChange: Sendable, Hashable {
    /// When the app changed it, in the device's stream time.
    public var time: Timestamp
    /// The configuration from then on.
    public var configuration: LiveConfiguration

    public init(time: Timestamp, configuration: LiveConfiguration) {
        self.time = time
        self.configuration = configuration
    }
}
