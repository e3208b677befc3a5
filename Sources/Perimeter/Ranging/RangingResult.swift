/// What a ranging app gets for one constraint at one second (SPEC §5.2, docs/ranging.md).
public struct RangingResult: Sendable, Hashable {
    /// How near a beacon is, as `CLProximity`.
    public enum Proximity: String, Sendable, Hashable, CaseIterable {
        case immediate, near, far, unknown
    }

    /// One concrete beacon seen in the window, as `CLBeacon`.
    public struct Beacon: Sendable, Hashable {
        public var identity: BeaconIdentity
        /// The mean of its non-zero RSSI samples in the window (dBm); 0 if none.
        public var rssi: Double
        /// The log-distance estimate in metres; −1 when `rssi` is 0.
        public var distance: Double
        public var proximity: Proximity

        public init(identity: BeaconIdentity, rssi: Double, distance: Double, proximity: Proximity) {
            self.identity = identity
            self.rssi = rssi
            self.distance = distance
            self.proximity = proximity
        }
    }

    public var device: String
    /// The constraint's identifier.
    public var constraint: String
    /// The whole second the result is for.
    public var date: Timestamp
    /// Nearest first; those of unknown proximity last.
    public var beacons: [Beacon]
    /// `delivered` or `dropped` (never held).
    public var delivery: Delivery
    /// The input line (or record index) of the latest matching sighting in the window.
    public var cause: Int

    public init(device: String, constraint: String, date: Timestamp, beacons: [Beacon], delivery: Delivery, cause: Int) {
        self.device = device
        self.constraint = constraint
        self.date = date
        self.beacons = beacons
        self.delivery = delivery
        self.cause = cause
    }
}
