extension Monitor {
    /// Opens the monitor saved in `store` under `name` — its conditions, every device's state and its
    /// records, as they were at its last checkpoint — or a new, empty one under that name, as
    /// `CLMonitor(name)` finds its conditions again after a relaunch.
    ///
    /// ```swift
    /// let store = try SQLiteStore(path: "monitors.sqlite")        // PerimeterIO
    /// let monitor = try Monitor(name: "stores", store: store)
    /// if await monitor.identifiers.isEmpty {
    ///     try await monitor.add(.circle(shop), identifier: "shop")  // saved at once
    /// }
    /// try await monitor.process(.fix(fix), device: "phone-1")       // saved every 10,000 records or 5 s
    /// try await monitor.checkpoint()                                // saved now
    /// ```
    ///
    /// - Parameters:
    ///   - name: the monitor's name in the store.
    ///   - store: where the monitor is saved.
    ///   - policy: the policy of a new monitor; `nil` for the default. A saved monitor keeps the
    ///     policy it was made with, and a different one given here is an error rather than a silent
    ///     change of the rules halfway through its records.
    ///   - checkpoints: when the monitor saves itself without being asked.
    ///   - streamsEvents: whether `events` yields the events, as for `init(name:policy:streamsEvents:)`.
    /// - Throws: `MonitorStoreError` when the store cannot be read, the saved monitor does not hold
    ///   together, or `policy` differs from the saved one.
    public init(name: String, store: any MonitorStore, policy: MonitoringPolicy? = nil,
                checkpoints: CheckpointCadence = .default, streamsEvents: Bool = true) throws(MonitorStoreError) {
        guard let saved = try store.loadMonitor(named: name) else {
            // A new monitor is in the store from the start, with its policy.
            let engine = MonitoringEngine(policy: policy ?? MonitoringPolicy())
            try store.saveMonitor(Snapshot(policy: engine.policy, engine: engine.snapshot(), recordCount: 0), named: name)
            self.init(name: name, engine: engine, store: store, cadence: checkpoints, streamsEvents: streamsEvents)
            return
        }
        if let policy, policy != saved.policy {
            throw MonitorStoreError("monitor \(name) was saved with another policy (\(saved.policy)); open it without one, or with that one")
        }
        let engine: MonitoringEngine
        do throws(SnapshotProblem) {
            engine = try MonitoringEngine(policy: saved.policy, restoring: saved.engine)
        } catch {
            throw MonitorStoreError("monitor \(name) cannot be restored: \(error)")
        }
        let lastEvents = Dictionary(saved.lastEvents.map { (RecordKey(device: $0.event.device, identifier: $0.event.identifier), $0.event) },
                                    uniquingKeysWith: { _, last in last })
        self.init(name: name, engine: engine, store: store, cadence: checkpoints, streamsEvents: streamsEvents,
                  recordCount: saved.recordCount, lastEvents: lastEvents)
    }

    /// Everything a store keeps of this monitor, as it is now.
    public func snapshot() -> Snapshot {
        Snapshot(policy: engine.policy, engine: engine.snapshot(), lastEvents: lastEvents.values.map(LastEvent.init),
                 recordCount: recordCount)
    }

    /// Saves the monitor to its store now. Does nothing for a monitor made without a store.
    public func checkpoint() throws(MonitorStoreError) {
        guard let store else { return }
        try store.saveMonitor(snapshot(), named: name)
        recordsSinceCheckpoint = 0
        lastCheckpoint = .now
        lastCheckpointError = nil
    }

    var checkpointIsDue: Bool {
        if let records = cadence.records, recordsSinceCheckpoint >= records { return true }
        if let interval = cadence.interval, recordsSinceCheckpoint > 0, ContinuousClock.now - lastCheckpoint >= interval { return true }
        return false
    }

    /// An automatic checkpoint: a failure is kept in `lastCheckpointError`, and the next occasion tries again.
    func checkpointQuietly() {
        do throws(MonitorStoreError) {
            try checkpoint()
        } catch {
            lastCheckpointError = error
        }
    }
}
