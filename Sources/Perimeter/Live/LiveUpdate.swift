/// One element of a device's live update stream, as `CLLocationUpdate` (SPEC §5.1).
public struct LiveUpdate: Sendable, Hashable {
    /// A location as the app sees it: a fix's, or the approximate one under reduced accuracy.
    public struct Location: Sendable, Hashable {
        public var coordinate: Coordinate
        /// Horizontal accuracy in metres.
        public var accuracy: Double

        public init(coordinate: Coordinate, accuracy: Double) {
            self.coordinate = coordinate
            self.accuracy = accuracy
        }
    }

    /// The device's name.
    public var device: String
    /// The fix's time; for `locationUnavailable`, the instant it fell due.
    public var date: Timestamp
    /// `nil` when there is none (`locationUnavailable`) or the app may not have it (`diagnostics`).
    public var location: Location?
    /// This update found the device still; updates pause after it.
    public var isStationary: Bool
    /// No valid fix came for the policy's `unavailableAfter`.
    public var locationUnavailable: Bool
    /// The app may have the update, but only with reduced accuracy: its location is approximate.
    public var accuracyLimited: Bool
    /// Why the app may not have the location; empty when it may.
    public var diagnostics: Diagnostics
    /// The input line (or record index) of the record that produced it.
    public var cause: Int

    public init(device: String, date: Timestamp, location: Location?, isStationary: Bool, locationUnavailable: Bool,
                accuracyLimited: Bool, diagnostics: Diagnostics, cause: Int) {
        self.device = device
        self.date = date
        self.location = location
        self.isStationary = isStationary
        self.locationUnavailable = locationUnavailable
        self.accuracyLimited = accuracyLimited
        self.diagnostics = diagnostics
        self.cause = cause
    }
}
