extension MonitoringEngine {
    /// Everything an engine knows that the events to come depend on, as plain values: its
    /// conditions as they were added, every device's state, the stream time reached. A store keeps
    /// it (`Codable`, in any encoder) and `init(policy:restoring:)` makes the engine again.
    ///
    /// ```swift
    /// let saved = try JSONEncoder().encode(engine.snapshot())
    /// // … later, perhaps in another process:
    /// var engine = try MonitoringEngine(policy: policy,
    ///                                   restoring: JSONDecoder().decode(MonitoringEngine.Snapshot.self, from: saved))
    /// ```
    ///
    /// Take it between records: events a call returned are the caller's, not the snapshot's.
    public struct Snapshot: Sendable, Codable {
        /// The format's version: a store refuses a snapshot of a later one.
        public static let currentVersion = 1
        public var version = Self.currentVersion
        /// The conditions in the order they were added, removed ones included (they keep their numbers).
        public var conditions: [ConditionAddition]
        /// Every device's state, in the order the engine first met them.
        public var devices: [DeviceSnapshot]
        var latestTime: Timestamp?
        var recordSequence: Int
        var requestOutcomes: [RequestOutcome: Int]
        var authorizationChanges: [AuthorizationChange]
        var fixesAnsweredByAnchor: Int
        var fixesMeasuredNearAnchor: Int
        /// Each group's devices (`MonitoringEngine.setGroups(_:)`); absent when none was set.
        public internal(set) var groups: [String: [String]]?

        /// How many devices it holds.
        public var deviceCount: Int { devices.count }

        /// The catalogue the conditions make, after checking that the devices' state refers only to
        /// conditions it has.
        func restoredCatalog() throws(SnapshotProblem) -> ConditionCatalog {
            guard version <= Self.currentVersion else {
                throw SnapshotProblem("a snapshot of version \(version); this engine reads up to \(Self.currentVersion)")
            }
            var catalog = ConditionCatalog()
            // A removed condition's identifier may have been added again since: it was removed
            // before that addition, so it is removed again there.
            var removedSince = Set<String>()
            for addition in conditions {
                if removedSince.remove(addition.identifier) != nil { catalog.remove(addition.identifier) }
                do {
                    try catalog.add(addition.condition, identifier: addition.identifier, initialState: addition.initialState,
                                    addedAt: addition.addedAt, audience: addition.audience)
                } catch {
                    throw SnapshotProblem("condition \(addition.identifier): \(error)")
                }
                if addition.isRemoved { removedSince.insert(addition.identifier) }
            }
            for identifier in removedSince { catalog.remove(identifier) }
            if let groups { catalog.setGroups(groups) }
            let geographic = Int32(catalog.geographic.count), beacons = Int32(catalog.beacons.count)
            var names = Set<String>()
            for device in devices.map(\.state) {
                guard names.insert(device.name).inserted else { throw SnapshotProblem("device \(device.name) twice") }
                let pairs = device.geographicEntries.map(\.condition) + device.geographicDetached + device.geographicWaiting.map { $0.end - 1 }
                guard pairs.allSatisfy({ $0 >= 0 && $0 < geographic }), device.geographicSettled <= geographic,
                      device.beaconEntries.allSatisfy({ $0.condition >= 0 && $0.condition < beacons }),
                      device.beaconSettled <= beacons, device.beaconScheduled <= beacons,
                      device.exits.conditionsAreBelow(beacons),
                      Int(device.announcedThrough ?? 0) <= catalog.additionCount,
                      (device.dwells ?? []).allSatisfy({ $0.condition >= 0 && $0.condition < geographic }) else {
                    throw SnapshotProblem("device \(device.name) has the state of a condition the snapshot does not have")
                }
            }
            return catalog
        }
    }

    /// The engine's state now, to restore later with `init(policy:restoring:)`.
    public func snapshot() -> Snapshot {
        Snapshot(conditions: catalog.additions, devices: devices.map(Snapshot.DeviceSnapshot.init), latestTime: latestTime, recordSequence: recordSequence,
                 requestOutcomes: requestOutcomes, authorizationChanges: authorizationChanges,
                 fixesAnsweredByAnchor: fixesAnsweredByAnchor, fixesMeasuredNearAnchor: fixesMeasuredNearAnchor,
                 groups: catalog.audiences.members)
    }
}

extension MonitoringEngine.Snapshot {
    /// One device's state: its conditions' pair states, pending confirmations and beacon timers,
    /// authorization, held events and sessions. Opaque but for its name; a store may keep each
    /// device apart (it encodes as the state alone).
    public struct DeviceSnapshot: Sendable, Codable {
        var state: DeviceState
        /// The device's name, as its records give it.
        public var name: String { state.name }

        init(_ state: DeviceState) { self.state = state }

        public init(from decoder: any Decoder) throws {
            state = try decoder.singleValueContainer().decode(DeviceState.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(state)
        }
    }
}

/// Why a snapshot cannot make an engine.
public struct SnapshotProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
