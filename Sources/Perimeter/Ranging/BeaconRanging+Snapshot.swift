extension BeaconRanging {
    /// Everything `BeaconRanging` knows, to go on later from where it stopped (with
    /// `init(monitoringPolicy:constraints:policy:restoring:)`): the engine's snapshot and each
    /// device's windows of sightings with the seconds still to come.
    public struct Snapshot: Sendable, Codable {
        public var monitoring: MonitoringEngine.Snapshot
        /// By device name.
        public var devices: [String: BeaconRanger]
        public var resultCount: Int, droppedCount: Int
    }

    /// The state now.
    public func snapshot() -> Snapshot {
        var devices: [String: BeaconRanger] = [:]
        for (index, ranger) in rangers.enumerated() where !ranger.isIdle {
            devices[monitoring.name(of: DeviceID(index: Int32(index)))] = ranger
        }
        return Snapshot(monitoring: monitoring.snapshot(), devices: devices, resultCount: resultCount, droppedCount: droppedCount)
    }

    /// Ranging that goes on from `snapshot`, which was taken with the same constraints and policies.
    public init(monitoringPolicy: MonitoringPolicy, constraints: [RangingConstraint], policy: RangingPolicy = RangingPolicy(),
                restoring snapshot: Snapshot) throws(SnapshotProblem) {
        self.init(monitoring: try MonitoringEngine(policy: monitoringPolicy, restoring: snapshot.monitoring), constraints: constraints,
                  policy: policy)
        for name in monitoring.deviceNames {
            let id = monitoring.deviceID(name)
            grow(to: Int(id.index))
            clocks[Int(id.index)] = monitoring.clock(of: id)?.nanosecondsSinceEpoch ?? .min
            guard let ranger = snapshot.devices[name] else { continue }
            guard ranger.constraints.allSatisfy({ $0 >= 0 && Int($0) < constraints.count }) else {
                throw SnapshotProblem("device \(name) ranges a constraint the \(constraints.count) given do not have")
            }
            rangers[Int(id.index)] = ranger
        }
        resultCount = snapshot.resultCount
        droppedCount = snapshot.droppedCount
    }
}
