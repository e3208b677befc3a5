extension LiveUpdates {
    /// Everything `LiveUpdates` knows, to go on later from where it stopped (with `init(policy:
    /// approximateLocation:restoring:)`): the engine's snapshot and each device's live state — its
    /// configuration, window, pause, silence and approximate report.
    public struct Snapshot: Sendable, Codable {
        public var monitoring: MonitoringEngine.Snapshot
        /// By device name.
        public var devices: [String: LiveUpdater]
        public var stationaryCount: Int, unavailableCount: Int, updateCount: Int
    }

    /// The state now.
    public func snapshot() -> Snapshot {
        var devices: [String: LiveUpdater] = [:]
        for (index, updater) in updaters.enumerated() {
            devices[monitoring.name(of: DeviceID(index: Int32(index)))] = updater
        }
        return Snapshot(monitoring: monitoring.snapshot(), devices: devices, stationaryCount: stationaryCount,
                        unavailableCount: unavailableCount, updateCount: updateCount)
    }

    /// Live updates that go on from `snapshot`, which was taken with the same policies.
    public init(monitoringPolicy: MonitoringPolicy, policy: LiveUpdatePolicy = LiveUpdatePolicy(),
                approximateLocation: ApproximateLocation = .standard, restoring snapshot: Snapshot) throws(SnapshotProblem) {
        self.init(monitoring: try MonitoringEngine(policy: monitoringPolicy, restoring: snapshot.monitoring), policy: policy,
                  approximateLocation: approximateLocation)
        for (name, updater) in snapshot.devices.sorted(by: { $0.key < $1.key }) {
            let id = monitoring.deviceID(name)
            grow(to: Int(id.index))
            updaters[Int(id.index)] = updater
            clocks[Int(id.index)] = monitoring.clock(of: id) ?? .distantPast
        }
        stationaryCount = snapshot.stationaryCount
        unavailableCount = snapshot.unavailableCount
        updateCount = snapshot.updateCount
    }
}
