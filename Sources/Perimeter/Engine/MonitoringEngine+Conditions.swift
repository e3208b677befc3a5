// The conditions an engine monitors, and their state per device.
extension MonitoringEngine {
    /// Starts monitoring a condition, as `CLMonitor.add(_:identifier:assuming:)`.
    ///
    /// - Parameters:
    ///   - condition: the circle, polygon or beacon identity.
    ///   - identifier: the name events and queries give it; unique among the conditions added.
    ///   - assuming: the state the condition starts in for every device; `nil` takes the
    ///     policy's `defaultAssumption`. A beacon condition's exit timer counts from its addition (the
    ///     latest stream time seen so far) or from a device's first record, whichever is later.
    ///   - audience: the devices that watch it (SPEC §5.6); every device by default.
    ///
    /// Under a profile with limits or kinds it does not monitor (docs/profiles.md), a device that
    /// watches a condition past its type's limit (counted among the conditions it watches), or of
    /// such a kind, does not monitor it: it gets one `unmonitored` event for it at its next record.
    public mutating func add(_ condition: Condition, identifier: String, assuming: ConditionState? = nil,
                             audience: ConditionAudience = .everyone) throws(ConditionCatalogError) {
        let initialState = assuming ?? policy.defaultAssumption
        try catalog.add(condition, identifier: identifier, initialState: initialState, addedAt: latestTime, audience: audience)
    }

    /// Adds many conditions at once: the same as calling `add(_:identifier:assuming:audience:)` for
    /// each in order (a duplicate identifier throws, with the conditions before it added), but
    /// polygons' evaluation data is built on `batchThreads` threads.
    public mutating func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)])
        throws(ConditionCatalogError) {
        try add(contentsOf: conditions.map { ($0.condition, $0.identifier, $0.assuming, ConditionAudience.everyone) })
    }

    /// `add(contentsOf:)` with each condition's audience.
    public mutating func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?,
                                                      audience: ConditionAudience)]) throws(ConditionCatalogError) {
        let all = conditions.map { ($0.condition, $0.identifier, $0.assuming ?? policy.defaultAssumption, $0.audience) }
        try catalog.addAll(all, addedAt: latestTime, threads: batchThreads)
    }

    /// Stops monitoring a condition; returns whether there was one. Under a limit, the place it frees
    /// for a device goes to the next condition of its type that the device watches, monitored from
    /// the device's next record on, as if added then.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool {
        catalog.remove(identifier)
    }

    /// Sets every device's groups anew, as a groups file gives them (`members`: each group's
    /// devices): a condition for a group is watched by its members from their next record on.
    ///
    /// ```swift
    /// engine.setGroups(["drivers": ["ana", "ben"], "night-shift": ["ben"]])
    /// ```
    public mutating func setGroups(_ members: [String: [String]]) { catalog.setGroups(members) }

    /// The groups `device` is in (`setGroups(_:)`), sorted.
    public func groups(of device: String) -> [String] { catalog.audiences.groups(of: device) }

    /// The conditions added and not removed, in the order they were added, each with the devices
    /// that watch it: `identifiers` with `audience(of:)` for each, without looking each one up.
    public var identifiersWithAudiences: [(identifier: String, audience: ConditionAudience)] {
        var result: [(identifier: String, audience: ConditionAudience)] = []
        catalog.forEachPresent { entry, identifier in
            switch entry {
            case .geographic(let i): result.append((identifier, catalog.audiences.audience(geographic: i)))
            case .beacon(let i): result.append((identifier, catalog.audiences.audience(beacon: i)))
            }
        }
        return result
    }

    /// The devices that watch the condition `identifier`, if there is one.
    public func audience(of identifier: String) -> ConditionAudience? {
        switch catalog.entry(identifier) {
        case .geographic(let i)?: catalog.audiences.audience(geographic: i)
        case .beacon(let i)?: catalog.audiences.audience(beacon: i)
        case nil: nil
        }
    }

    /// Identifiers of the conditions `device` watches but does not monitor under the profile, in the
    /// order they were added.
    public func unmonitoredIdentifiers(for device: String) -> [String] {
        var identifiers: [String] = []
        _ = catalog.forEachUnmonitored(from: 0, watch: catalog.watch(for: device)) { identifier, _ in identifiers.append(identifier) }
        return identifiers
    }

    /// Lays out the condition indexes now rather than at the next record, so that the first record
    /// after a large addition does not pay for it (the engine calls it itself when it must).
    public mutating func prepare() {
        catalog.prepareIndex(force: true, threads: batchThreads)
    }

    /// About how many bytes of memory the conditions and their indexes take (per-device state not
    /// included), by part: each array's capacity times its element's size, and identifiers' own
    /// storage beyond 15 bytes. For capacity planning; `prepare()` first, so that the indexes exist.
    public var conditionStorage: [(part: String, bytes: Int)] { catalog.heapBytes }

    /// Identifiers of the conditions added and not removed, in the order they were added (whoever
    /// watches them, and whether a profile's limit leaves them unmonitored for some devices).
    public var identifiers: [String] { catalog.identifiers }

    /// The condition monitored under `identifier`, if any.
    public func condition(for identifier: String) -> Condition? {
        catalog.condition(identifier)
    }

    /// The current state of a condition for a device — its true state, whatever was delivered;
    /// `nil` if the condition is not monitored. A device not seen yet is in the starting state.
    /// A condition the device watches but the profile leaves it unmonitored is `unmonitored`; one
    /// the device does not watch (`ConditionAudience`) is `nil`.
    public func state(of identifier: String, device: String) -> ConditionState? {
        guard let entry = catalog.entry(identifier) else { return nil }
        if catalog.audiences.hasAudiences || catalog.perDeviceLimits != nil {
            let watch = catalog.watch(for: device)
            switch entry {
            case .geographic(let i):
                guard catalog.watches(geographic: i, watch) else { return nil }
                if !catalog.monitors(geographic: i, watch) { return .unmonitored }
            case .beacon(let i):
                guard catalog.watches(beacon: i, watch.ignoringLimits) else { return nil }
                if !catalog.watches(beacon: i, watch) { return .unmonitored }
            }
        }
        let d = deviceIndex[device].map { devices[$0] }.flatMap { $0.hasStarted ? $0 : nil }
        switch entry {
        case .geographic(let i):
            guard let d else { return catalog.geographicInitialState(i) }
            return d.geographicPair(i, catalog: catalog).state
        case .beacon(let i):
            guard let d else { return catalog.beaconInitialState(i) }
            return d.beaconPair(i, catalog: catalog).state
        }
    }
}
