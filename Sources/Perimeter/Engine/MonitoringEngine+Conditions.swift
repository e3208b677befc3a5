// The conditions an engine monitors, and their state per device.
extension MonitoringEngine {
    /// Starts monitoring a condition, as `CLMonitor.add(_:identifier:assuming:)`.
    ///
    /// - Parameter assuming: the state the condition starts in for every device; `nil` takes the
    ///   policy's `defaultAssumption`. A beacon condition's exit timer counts from its addition (the
    ///   latest stream time seen so far) or from a device's first record, whichever is later.
    /// Under a profile with limits or kinds it does not monitor (docs/profiles.md), a condition
    /// past its type's limit, or of such a kind, is kept unmonitored: each device gets one
    /// `unmonitored` event for it at its first record after the addition.
    public mutating func add(_ condition: Condition, identifier: String,
                             assuming: ConditionState? = nil) throws(ConditionCatalogError) {
        let initialState = assuming ?? policy.defaultAssumption
        guard !catalog.unmonitored.contains(identifier) else { throw .duplicateIdentifier(identifier) }
        if let diagnostic = unmonitoredDiagnostic(condition, geographic: catalog.monitoredGeographic, beacons: catalog.monitoredBeacons) {
            try keepUnmonitored(condition, identifier: identifier, initialState: initialState, diagnostic: diagnostic)
            return
        }
        try catalog.add(condition, identifier: identifier, initialState: initialState, addedAt: latestTime)
    }

    /// Adds many conditions at once: the same as calling `add(_:identifier:assuming:)` for each in
    /// order (a duplicate identifier throws, with the conditions before it added), but polygons'
    /// evaluation data is built on `batchThreads` threads.
    public mutating func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)])
        throws(ConditionCatalogError) {
        let all = conditions.map { ($0.condition, $0.identifier, $0.assuming ?? policy.defaultAssumption) }
        guard !policy.profile.monitorsEverything || !catalog.unmonitored.waiting.isEmpty else {
            try catalog.addAll(all, addedAt: latestTime, threads: batchThreads)
            return
        }
        // Runs of monitored conditions are added together; each unmonitored one after those before it.
        var run: [(condition: Condition, identifier: String, initialState: ConditionState)] = []
        var geographic = catalog.monitoredGeographic, beacons = catalog.monitoredBeacons
        for (condition, identifier, initialState) in all {
            guard !catalog.unmonitored.contains(identifier) else {
                try catalog.addAll(run, addedAt: latestTime, threads: batchThreads)
                throw .duplicateIdentifier(identifier)
            }
            if let diagnostic = unmonitoredDiagnostic(condition, geographic: geographic, beacons: beacons) {
                try catalog.addAll(run, addedAt: latestTime, threads: batchThreads)
                run.removeAll()
                try keepUnmonitored(condition, identifier: identifier, initialState: initialState, diagnostic: diagnostic)
            } else {
                run.append((condition, identifier, initialState))
                if case .beacon = condition { beacons += 1 } else { geographic += 1 }
            }
        }
        try catalog.addAll(run, addedAt: latestTime, threads: batchThreads)
    }

    /// Why the profile leaves `condition` unmonitored when `geographic` and `beacons` conditions are
    /// monitored; `nil`: it is monitored.
    private func unmonitoredDiagnostic(_ condition: Condition, geographic: Int, beacons: Int) -> Diagnostics? {
        let profile = policy.profile
        let isMonitoredKind = switch condition {
        case .circle: true
        case .polygon: profile.monitorsPolygons
        case .beacon: profile.monitorsBeacons
        }
        guard isMonitoredKind else { return .conditionUnsupported }
        guard let limit = profile.conditionLimit else { return nil }
        let count = if case .beacon = condition { beacons } else { geographic }
        return count >= limit ? .conditionLimitExceeded : nil
    }

    private mutating func keepUnmonitored(_ condition: Condition, identifier: String, initialState: ConditionState,
                                          diagnostic: Diagnostics) throws(ConditionCatalogError) {
        guard catalog.entry(identifier) == nil else { throw .duplicateIdentifier(identifier) }
        guard initialState.isConditionState else { throw .notAStartingState(initialState) }
        catalog.unmonitored.append(ConditionAddition(condition: condition, identifier: identifier, initialState: initialState,
                                                     addedAt: latestTime, isRemoved: false),
                                   diagnostic: diagnostic)
    }

    /// Stops monitoring a condition, monitored or kept unmonitored; returns whether there was one.
    /// Under a limit, the place it frees goes to the earliest condition of its type kept unmonitored
    /// for the limit, monitored from now on as if added now.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool {
        if catalog.unmonitored.remove(identifier) { return true }
        guard let entry = catalog.entry(identifier), catalog.remove(identifier) else { return false }
        let isGeographic = if case .geographic = entry { true } else { false }
        if let next = catalog.unmonitored.removeFirstUnderLimit(geographic: isGeographic) {
            // (It cannot be refused: its identifier is free, and it was a condition's.)
            try? catalog.add(next.condition, identifier: next.identifier, initialState: next.initialState, addedAt: latestTime)
        }
        return true
    }

    /// Identifiers of the conditions kept unmonitored under the profile, in the order they were added.
    public var unmonitoredIdentifiers: [String] { catalog.unmonitored.waiting.map(\.addition.identifier) }

    /// Lays out the condition indexes now rather than at the next record, so that the first record
    /// after a large addition does not pay for it (the engine calls it itself when it must).
    public mutating func prepare() {
        catalog.prepareIndex(force: true, threads: batchThreads)
    }

    /// About how many bytes of memory the conditions and their indexes take (per-device state not
    /// included), by part: each array's capacity times its element's size, and identifiers' own
    /// storage beyond 15 bytes. For capacity planning; `prepare()` first, so that the indexes exist.
    public var conditionStorage: [(part: String, bytes: Int)] { catalog.heapBytes }

    /// Identifiers of the monitored conditions, in the order they were added.
    public var identifiers: [String] { catalog.identifiers }

    /// The condition monitored under `identifier`, if any.
    public func condition(for identifier: String) -> Condition? {
        catalog.condition(identifier)
    }

    /// The current state of a condition for a device — its true state, whatever was delivered;
    /// `nil` if the condition is not monitored. A device not seen yet is in the starting state.
    /// A condition the profile keeps unmonitored is `unmonitored`.
    public func state(of identifier: String, device: String) -> ConditionState? {
        guard let entry = catalog.entry(identifier) else { return catalog.unmonitored.contains(identifier) ? .unmonitored : nil }
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
