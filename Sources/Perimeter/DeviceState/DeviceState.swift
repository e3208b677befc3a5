/// Everything the engine keeps for one device.
///
/// Pair state is sparse: a device keeps entries only for the conditions it is in, near, or waiting on;
/// every other pair is in its baseline state (below), so memory follows what a device is near, never
/// the number of conditions.
struct DeviceState: Codable {
    let name: String
    /// Whether the device has had a record (an identifier can be interned before).
    var hasStarted = false
    /// The engine's count of records before the device's first, which started it: the end of the
    /// input takes devices in this order, so that a device named by a record the engine refused
    /// (or the reader refused after naming it) is placed by its first record taken.
    var startSequence = Int.max
    /// Stream time of the device's first and latest records.
    var firstTime = Timestamp.distantPast
    var lastTime = Timestamp.distantPast
    /// Cause (input line) of the device's latest record, for what fires at the end of the input.
    var lastCause: Int

    /// Geographic pairs that differ from the baseline or wait for a confirmation, in no order.
    var geographicEntries: [GeographicEntry] = []
    /// Geographic conditions below this index have seen a valid fix of this device: an untouched pair
    /// is unsatisfied. From it on, an untouched pair is in its condition's starting state, or waits.
    var geographicSettled: Int32 = 0
    /// With a confirmation time, the conditions a device's fix first found confidently outside wait
    /// together to become unsatisfied: runs of conditions from `geographicSettled` on, each up to its
    /// `end`, whose untouched pairs wait since the fix that started the run. (One entry per pair
    /// instead made a device's state grow with every condition.) In condition and time order.
    var geographicWaiting: [WaitingRun] = []
    /// Conditions of the waiting runs that have been a fix's candidates since: their pairs are
    /// explicit (an entry, or no entry for a settled, unsatisfied pair). Ascending.
    var geographicDetached: [Int32] = []
    /// The last fully evaluated fix, while later fixes near it cannot change a geographic pair.
    var anchor: FixAnchor?
    /// The anchor's terms below its far budget, one per condition, in no order.
    var anchorTerms: [AnchorTerm] = []

    /// Beacon pairs a sighting has touched, in no order.
    var beaconEntries: [BeaconEntry] = []
    /// Beacon conditions below this index have had their first exit timer fire: an untouched pair is
    /// unsatisfied. From it on, an untouched pair is in its starting state.
    var beaconSettled: Int32 = 0
    /// Beacon conditions below this index have their first exit timer in the queue.
    var beaconScheduled: Int32 = 0
    var exits = ExitQueue()

    /// Under a profile's limits, how many of the conditions added (in addition order) the device has
    /// been told of, those it watches but does not monitor (nil: none).
    var announcedThrough: Int32?
    /// Dwell timers (profiles that report dwelling), in due order; nil or empty: none.
    var dwells: [DwellTimer]?

    /// What the device watches (SPEC §5.6), made again from the catalogue when its audiences change;
    /// not stored (a restored device makes it at its next record).
    var watch = Watch()

    var authorization: DeviceAuthorization
    /// The authorization last reported, to report only changes.
    var reportedAuthorization: AuthorizationChange?
    /// Changes not yet collected by the engine.
    var authorizationChanges: [AuthorizationChange] = []

    /// What a store keeps (`MonitoringEngine.Snapshot`): everything but the anchor and its terms,
    /// which only spare geometry (a device without one evaluates its next fix in full, to the same
    /// events) and come back with the next fix, and the changes the engine has already collected.
    private enum CodingKeys: String, CodingKey {
        case name, hasStarted, startSequence, firstTime, lastTime, lastCause
        case geographicEntries, geographicSettled, geographicWaiting, geographicDetached
        case beaconEntries, beaconSettled, beaconScheduled, exits, announcedThrough, dwells, authorization, reportedAuthorization
    }

    init(name: String, initialAuthorization: InitialAuthorization) {
        self.name = name
        lastCause = 0
        authorization = DeviceAuthorization(initialAuthorization)
    }
}

/// A run of conditions waiting together to become unsatisfied (`DeviceState.geographicWaiting`):
/// those up to `end`, waiting since the fix at `since`.
struct WaitingRun: Codable {
    var end: Int32
    var since: Timestamp
}

/// A geographic pair kept explicitly.
struct GeographicEntry: Codable {
    var condition: Int32
    var pair: GeographicPairState
}

/// A beacon pair kept explicitly.
struct BeaconEntry: Codable {
    var condition: Int32
    var pair: BeaconPairState
}

extension DeviceState {
    /// The state of a geographic pair, explicit or baseline.
    func geographicPair(_ i: Int32, catalog: ConditionCatalog) -> GeographicPairState {
        if let e = geographicEntries.first(where: { $0.condition == i }) { return e.pair }
        return geographicBaseline(i, catalog: catalog)
    }

    /// The state of a geographic pair that has no entry.
    ///
    /// Inlined, with the rest static: a call to a method of the state from `apply`, which is changing
    /// it, copied the whole state (272 bytes) for every candidate without an entry.
    @inline(__always)
    func geographicBaseline(_ i: Int32, catalog: ConditionCatalog) -> GeographicPairState {
        if i < geographicSettled { return GeographicPairState(state: .unsatisfied) }
        return Self.unsettledBaseline(i, waiting: geographicWaiting, detached: geographicDetached, catalog: catalog)
    }

    /// `geographicBaseline` for a condition the device has not settled.
    private static func unsettledBaseline(_ i: Int32, waiting: [WaitingRun], detached: [Int32],
                                          catalog: ConditionCatalog) -> GeographicPairState {
        let initial = catalog.geographicInitialState(i)
        guard initial != .unsatisfied, let run = waiting.first(where: { i < $0.end }) else {
            return GeographicPairState(state: initial)
        }
        // A detached pair without an entry was dropped as settled.
        if SortedIndices.contains(detached, i) { return GeographicPairState(state: .unsatisfied) }
        var pair = GeographicPairState(state: initial)
        pair.pending = .outside
        pair.pendingSince = run.since
        return pair
    }

    /// Whether condition `i` of a waiting run has been detached from it.
    func isDetached(_ i: Int32) -> Bool { SortedIndices.contains(geographicDetached, i) }

    /// The state of a beacon pair, explicit or baseline.
    func beaconPair(_ i: Int32, catalog: ConditionCatalog) -> BeaconPairState {
        if let e = beaconEntries.first(where: { $0.condition == i }) { return e.pair }
        return beaconBaseline(i, catalog: catalog)
    }

    /// The state of a beacon pair that has no entry.
    func beaconBaseline(_ i: Int32, catalog: ConditionCatalog) -> BeaconPairState {
        BeaconPairState(state: i < beaconSettled ? .unsatisfied : catalog.beaconInitialState(i))
    }
}
