/// One reception of a beacon's advertisement.
public struct BeaconSighting: Sendable, Hashable {
    /// When it was received, in the device's stream time.
    public var time: Timestamp
    /// The beacon's UUID, major and minor.
    public var identity: BeaconIdentity
    /// Received signal strength in dBm; 0 means unknown (as `CLBeacon.rssi`).
    public var rssi: Int
    /// Measured power at 1 m in dBm.
    public var measuredPower: Int

    /// The measured power iBeacons advertise when none is given.
    public static let defaultMeasuredPower = -59

    /// A sighting of `identity` at `time`.
    public init(time: Timestamp, identity: BeaconIdentity, rssi: Int, measuredPower: Int = defaultMeasuredPower) {
        self.time = time
        self.identity = identity
        self.rssi = rssi
        self.measuredPower = measuredPower
    }
}
