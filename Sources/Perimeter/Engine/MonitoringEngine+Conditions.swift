// The conditions an engine monitors, and their state per device.
extension MonitoringEngine {
    /// Starts monitoring a condition, as `CLMonitor.add(_:identifier:assuming:)`.
    ///
    /// - Parameter assuming: the state the condition starts in for every device; `nil` takes the
    ///   policy's `defaultAssumption`. A beacon condition's exit timer counts from its addition (the
    ///   latest stream time seen so far) or from a device's first record, whichever is later.
    public mutating func add(_ condition: Condition, identifier: String,
                             assuming: ConditionState? = nil) throws(ConditionCatalogError) {
        try catalog.add(condition, identifier: identifier, initialState: assuming ?? policy.defaultAssumption,
                        addedAt: latestTime)
    }

    /// Adds many conditions at once: the same as calling `add(_:identifier:assuming:)` for each in
    /// order (a duplicate identifier throws, with the conditions before it added), but polygons'
    /// evaluation data is built on `batchThreads` threads.
    public mutating func add(contentsOf conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)])
        throws(ConditionCatalogError) {
        try catalog.addAll(conditions.map { ($0.condition, $0.identifier, $0.assuming ?? policy.defaultAssumption) },
                           addedAt: latestTime, threads: batchThreads)
    }

    /// Stops monitoring a condition; returns whether it was monitored.
    @discardableResult
    public mutating func remove(_ identifier: String) -> Bool {
        catalog.remove(identifier)
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

    /// Identifiers of the monitored conditions, in the order they were added.
    public var identifiers: [String] { catalog.identifiers }

    /// The condition monitored under `identifier`, if any.
    public func condition(for identifier: String) -> Condition? {
        catalog.condition(identifier)
    }

    /// The current state of a condition for a device — its true state, whatever was delivered;
    /// `nil` if the condition is not monitored. A device not seen yet is in the starting state.
    public func state(of identifier: String, device: String) -> ConditionState? {
        guard let entry = catalog.entry(identifier) else { return nil }
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
