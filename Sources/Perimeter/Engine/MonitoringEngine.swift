import Dispatch

/// The evaluator behind every way of using Perimeter: conditions, per-device state, and the events
/// each record produces, for any number of devices.
///
/// A plain value driven by one caller at a time: the `Monitor` actor wraps it for async use, the
/// command-line tool drives it directly. GEOS is used only to check polygons when they are added;
/// evaluation runs on Perimeter's own exact locator, so the engine is `Sendable`.
public struct MonitoringEngine: Sendable {
    /// The policy values (SPEC "Policy values") every device is evaluated with.
    public let policy: MonitoringPolicy
    var catalog: ConditionCatalog
    private(set) var devices: [DeviceState] = []
    private(set) var deviceIndex: [String: Int] = [:]
    /// The latest record time seen from any device: the stream time at which a condition is added.
    private(set) var latestTime: Timestamp?
    private var scratch = EvaluationScratch()
    /// The batch paths' per-device scratch (`StateShard.select`): a device's latest time in the
    /// current batch, and the mark of the batch that set it.
    private var batchLatest: [Timestamp] = []
    private var batchMarks: [UInt32] = []
    private var batchMark: UInt32 = 0
    /// The batch paths' shards, kept from batch to batch so that their arrays keep their capacity:
    /// made afresh for each batch, they grew from empty every time (a copy of every event and
    /// sighting per batch, and fresh pages to fault in).
    private var shardPool: [StateShard] = []

    /// - Precondition: `policy.problem() == nil`.
    public init(policy: MonitoringPolicy = MonitoringPolicy()) {
        precondition(policy.problem() == nil, policy.problem() ?? "")
        self.policy = policy
        catalog = ConditionCatalog()
        if !policy.profile.monitorsEverything { catalog.perDeviceLimits = policy.profile }
    }

    /// The engine a `snapshot()` was taken of: the same conditions, numbered alike, every device's
    /// state, and the stream time reached. Records then go on as if the first engine had taken them.
    ///
    /// - Parameters:
    ///   - policy: the policy the snapshot was taken under (the snapshot does not keep it).
    ///   - snapshot: what `snapshot()` gave.
    /// - Throws: when the snapshot does not hold together (a duplicate identifier or device, a pair of
    ///   a condition it does not have).
    public init(policy: MonitoringPolicy, restoring snapshot: Snapshot) throws(SnapshotProblem) {
        self.init(policy: policy)
        let limits = catalog.perDeviceLimits  // (as `init(policy:)` set them)
        catalog = try snapshot.restoredCatalog()
        catalog.perDeviceLimits = limits
        devices = snapshot.devices.map(\.state)
        deviceIndex = Dictionary(devices.indices.map { (devices[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        latestTime = snapshot.latestTime
        recordSequence = snapshot.recordSequence
        requestOutcomes = snapshot.requestOutcomes
        authorizationChanges = snapshot.authorizationChanges
        fixesAnsweredByAnchor = snapshot.fixesAnsweredByAnchor
        fixesMeasuredNearAnchor = snapshot.fixesMeasuredNearAnchor
    }

    /// Devices seen so far, in order of their first record the engine took (a refused record does
    /// not place its device).
    public var deviceNames: [String] { startedDevices.map { devices[$0].name } }

    /// The indices of the devices that have started, in the order they did.
    private var startedDevices: [Int] {
        devices.indices.filter { devices[$0].hasStarted }.sorted { devices[$0].startSequence < devices[$1].startSequence }
    }

    /// Records taken so far (each batch counts whole): a device's first record's place among them
    /// orders the devices at the end of the input.
    private(set) var recordSequence = 0

    // MARK: Records

    /// Applies one record of `device`'s stream and appends the events it causes, each with its
    /// delivery verdict, plus the final lines of held events it resolves.
    ///
    /// Before the record, stream time runs up to it: beacon exits due strictly before its time fire and
    /// held events past the maximum holding age expire. A record older than the device's latest is
    /// refused (never reordered) and changes nothing; so is an answer no open prompt offers (after the
    /// stream time has advanced, since that may open the deferred always prompt).
    /// - Parameters:
    ///   - observation: the record.
    ///   - device: the device's name, as its records give it.
    ///   - cause: the input line (or record index) written into the events.
    ///   - events: where the events are appended.
    public mutating func process(_ observation: Observation, device: String, cause: Int,
                                 into events: inout [MonitorEvent]) throws(ObservationProblem) {
        try process(observation, device: deviceID(device), cause: cause, into: &events)
    }

    /// The identifier of a device by name, for the batch path that names devices by number; the
    /// device starts with its first record.
    public mutating func deviceID(_ name: String) -> DeviceID {
        // One device's records usually come in runs (a phone's monitor sees only its own): comparing
        // the name with the last one's costs less than hashing it.
        if let last = lastNamed, devices[Int(last.index)].name == name { return last }
        let id: DeviceID
        if let existing = deviceIndex[name] {
            id = DeviceID(index: Int32(existing))
        } else {
            id = DeviceID(index: Int32(devices.count))
            deviceIndex[name] = devices.count
            devices.append(DeviceState(name: name, initialAuthorization: policy.initialAuthorization))
        }
        lastNamed = id
        return id
    }

    /// The device `deviceID(_:)` named last.
    private var lastNamed: DeviceID?

    /// At most how many events `device`'s start can still produce at once, beside the usual few per
    /// record: its first valid fix settles every geographic condition that starts otherwise than
    /// unsatisfied (an event each), its first beacon exit timers every such beacon condition, and
    /// its next record tells it of every condition the profile leaves unmonitored that it has not
    /// heard of. 0 once all have happened (until conditions are added).
    ///
    /// A batch holds all its events until it returns, so a caller that bounds its memory splits
    /// batches by this: 10k new devices against 20k conditions starting `unknown` are 200M events.
    public func startEventBound(_ device: DeviceID) -> Int {
        let di = Int(device.index)
        let geographic = catalog.geographicStartingOtherwise, beacons = catalog.beaconStartingOtherwise
        let settled = devices[di].geographicSettled
        let own = catalog.hasPrivateStartingOtherwise
            ? catalog.audiences.privateGeographic(of: devices[di].name).count { $0 >= settled } : 0
        return geographic.count - SortedIndices.firstIndex(in: geographic, notBelow: settled) + own
            + beacons.count - SortedIndices.firstIndex(in: beacons, notBelow: devices[di].beaconSettled)
            + (catalog.perDeviceLimits == nil ? 0 : catalog.additionCount - Int(devices[di].announcedThrough ?? 0))
    }

    /// Whether any condition starts otherwise than unsatisfied, or is left unmonitored by the profile
    /// (`startEventBound(_:)` can be above 0).
    public var hasStartEvents: Bool {
        !catalog.geographicStartingOtherwise.isEmpty || catalog.hasPrivateStartingOtherwise || !catalog.beaconStartingOtherwise.isEmpty
            || catalog.perDeviceLimits != nil
    }

    /// `process(_:device:cause:into:)` for a device already named by `deviceID(_:)`.
    public mutating func process(_ observation: Observation, device: DeviceID, cause: Int,
                                 into events: inout [MonitorEvent]) throws(ObservationProblem) {
        try Self.validate(observation)
        let time = observation.time
        let di = Int(device.index)
        catalog.prepareIndex(threads: batchThreads)
        let sequence = recordSequence
        recordSequence += 1
        try devices[di].beginRecord(at: time, cause: cause, sequence: sequence, catalog: catalog, policy: policy, events: &events)
        defer {
            devices[di].endRecord(at: time, cause: cause)
            if latestTime.map({ time > $0 }) ?? true { latestTime = time }
            if !devices[di].authorizationChanges.isEmpty {
                authorizationChanges.append(contentsOf: devices[di].authorizationChanges)
                devices[di].authorizationChanges = []  // (rare: no buffer kept, so that `isEmpty` reads none)
            }
        }
        switch observation {
        case .fix(let fix):
            if devices[di].needsGeometry(fix, catalog: catalog, policy: policy) {
                if devices[di].apply(fix, cause: cause, catalog: catalog, policy: policy, scratch: &scratch, events: &events) {
                    fixesMeasuredNearAnchor += 1
                }
            } else if fix.isValid {
                fixesAnsweredByAnchor += 1
            }
            return
        case .sighting(let sighting):
            devices[di].apply(sighting, cause: cause, catalog: catalog, policy: policy, matches: &scratch.candidates, events: &events)
            return
        case .config, .app, .request, .answer, .settings, .session, .appConfig:
            guard let record = observation.authorizationRecord else { return }
            count(try devices[di].apply(record, at: time, cause: cause, policy: policy, events: &events))
        }
    }

    /// Applies a batch of fixes in order, with exactly the events of one `process` call per fix.
    ///
    /// Faster for large batches: devices are split into shards (by number), one per thread, each
    /// running its devices' fixes in record order, and the events are merged back in record order.
    /// A fix that its device's anchor (`FixAnchor`) proves changes nothing needs no geometry; the
    /// others get theirs on their turn. A refused fix stops the batch there, as sequential calls would.
    public mutating func process(_ batch: [FixRecord], into events: inout [MonitorEvent]) throws(BatchProblem) {
        try processBatch(batch, into: &events)
    }

    /// Applies a batch of sightings in order, with exactly the events of one `process` call per
    /// sighting: devices sharded across `batchThreads` threads as for fixes, each shard matching its
    /// sightings' conditions all together first. A sighting older than its device's previous record
    /// stops the batch there.
    public mutating func process(_ batch: [SightingRecord], into events: inout [MonitorEvent]) throws(BatchProblem) {
        try processBatch(batch, into: &events)
    }

    /// The batch paths: the shards' records up to the first refused one (bad values, or older than
    /// its device's previous record), found first so that only those before it are applied; the
    /// shards run, each on a thread with its own scratch and outputs; the events are merged in
    /// record order.
    private mutating func processBatch<Record: BatchRecord>(_ batch: [Record], into events: inout [MonitorEvent])
        throws(BatchProblem) {
        catalog.prepareIndex(threads: batchThreads)
        let (shards, end, refused) = selectShards(batch)
        let catalog = self.catalog, policy = self.policy
        devices.withUnsafeMutableBufferPointer { devices in
            nonisolated(unsafe) let devices = devices
            DispatchQueue.concurrentPerform(iterations: shards.count) { w in
                Record.run(batch, end: end, in: shards[w], devices: devices, catalog: catalog, policy: policy)
            }
        }
        merge(shards, into: &events)
        // (Sightings leave the anchor counts at 0.)
        fixesAnsweredByAnchor += shards.reduce(0) { $0 + $1.fixesAnsweredByAnchor }
        fixesMeasuredNearAnchor += shards.reduce(0) { $0 + $1.fixesMeasuredNearAnchor }
        if let refused { throw refused }
    }

    /// A shard per worker (one per 4,096 records, up to `batchThreads`), each holding its devices'
    /// records of `batch` up to its first refused one (`StateShard.select`, run on all shards at
    /// once); where the records to apply end (at the first of the shards' refusals, or the batch's
    /// end), and that refusal. The batch's records are counted taken (`recordSequence`).
    private mutating func selectShards<Record: BatchRecord>(_ batch: [Record])
        -> (shards: [StateShard], end: Int, refused: BatchProblem?) {
        let workers = max(1, min(batchThreads, batch.count / 4096))
        let shards = reusedShards(workers)
        if batchMarks.count < devices.count {
            batchMarks += repeatElement(0, count: devices.count - batchMarks.count)
            batchLatest += repeatElement(Timestamp(nanosecondsSinceEpoch: 0), count: devices.count - batchLatest.count)
        }
        if batchMark == .max {
            for k in batchMarks.indices { batchMarks[k] = 0 }
            batchMark = 0
        }
        batchMark += 1
        let mark = batchMark
        devices.withUnsafeMutableBufferPointer { devices in
            batchLatest.withUnsafeMutableBufferPointer { latest in
                batchMarks.withUnsafeMutableBufferPointer { marks in
                    nonisolated(unsafe) let (devices, latest, marks) = (devices, latest, marks)
                    // With several workers, each first sorts its part of the batch by shard.
                    let partitioned = workers > 1 && batch.count <= Int(UInt32.max) ? shards : nil
                    if partitioned != nil {
                        DispatchQueue.concurrentPerform(iterations: workers) { w in shards[w].partition(batch, worker: w, of: workers) }
                    }
                    DispatchQueue.concurrentPerform(iterations: workers) { w in
                        shards[w].select(batch, worker: w, of: workers, partitioned: partitioned, devices: devices,
                                         latest: latest, marks: marks, mark: mark)
                    }
                }
            }
        }
        let refused = shards.lazy.compactMap(\.refusal).min { $0.index < $1.index }
        for shard in shards { shard.sequenceBase = recordSequence }
        recordSequence += batch.count
        return (shards, refused?.index ?? batch.count, refused)
    }

    /// `workers` emptied shards from the pool. A shard another copy of this engine still holds (the
    /// engine is a value) is replaced, as copy-on-write would, so two copies never share one.
    private mutating func reusedShards(_ workers: Int) -> [StateShard] {
        for w in shardPool.indices where !isKnownUniquelyReferenced(&shardPool[w]) { shardPool[w] = StateShard() }
        while shardPool.count < workers { shardPool.append(StateShard()) }
        let shards = Array(shardPool[..<workers])
        for shard in shards { shard.empty() }
        return shards
    }

    /// The shards' events and authorization changes in record order (a record's all come from one
    /// shard, in order); the stream time moves on to their latest record.
    private mutating func merge(_ shards: [StateShard], into events: inout [MonitorEvent]) {
        for shard in shards {
            if let time = shard.latestTime, latestTime.map({ time > $0 }) ?? true { latestTime = time }
        }
        if shards.count == 1 {
            // One shard's events are in record order already: taken whole (the shard is discarded).
            if events.isEmpty { swap(&events, &shards[0].events) } else { events += shards[0].events }
            authorizationChanges += shards[0].changes
            return
        }
        Self.mergeByRecord(shards.map(\.events), shards.map(\.eventRecords), into: &events)
        Self.mergeByRecord(shards.map(\.changes), shards.map(\.changeRecords), into: &authorizationChanges)
    }

    /// Appends the lists' values in order of their records (`records[w][j]` is the record of
    /// `lists[w][j]`; each list is in record order, and a record's values are all in one list): a
    /// merge whose cost follows the values, not the batch's records, most of which have none.
    static func mergeByRecord<Value>(_ lists: [[Value]], _ records: [[Int32]], into merged: inout [Value]) {
        var next = [Int](repeating: 0, count: lists.count)
        while true {
            // The list whose next value has the lowest record takes that record's values.
            var from = -1, record = Int32.max
            for w in lists.indices where next[w] < lists[w].count && records[w][next[w]] < record {
                from = w
                record = records[w][next[w]]
            }
            guard from >= 0 else { return }
            repeat {
                merged.append(lists[from][next[from]])
                next[from] += 1
            } while next[from] < lists[from].count && records[from][next[from]] == record
        }
    }

    private mutating func count(_ outcomes: [RequestOutcome]) {
        for outcome in outcomes { requestOutcomes[outcome, default: 0] += 1 }
    }

    /// Valid fixes that needed no geometry: their device's last evaluated fix proved that they could
    /// change no geographic pair (`FixAnchor`), or no geographic condition is monitored.
    public private(set) var fixesAnsweredByAnchor = 0

    /// Fixes that broke their device's anchor but measured only the conditions whose terms they broke
    /// (`FixAnchor`), not every condition near them.
    public private(set) var fixesMeasuredNearAnchor = 0

    /// Threads the batch path may use (1: the caller's thread only): for the state machines, sharded
    /// by device (each shard computing its own fixes' geometry), and for building the cover grid.
    public var batchThreads = 1

    /// What became of the authorization requests so far (SPEC §3: a request made when the app is not
    /// in the foreground is counted as `insufficientlyInUse`).
    public private(set) var requestOutcomes: [RequestOutcome: Int] = [:]

    /// Authorization changes not yet taken by `takeAuthorizationChanges(into:)`.
    private(set) var authorizationChanges: [AuthorizationChange] = []

    /// Moves the authorization changes reported since the last call into `changes`, in order: each
    /// device's starting authorization at its first record, then every change of status, accuracy,
    /// provisional or temporary grants, location services or use.
    public mutating func takeAuthorizationChanges(into changes: inout [AuthorizationChange]) {
        // (Most records change no authorization: an empty take costs two checks, not two calls.)
        guard !authorizationChanges.isEmpty else { return }
        changes.append(contentsOf: authorizationChanges)
        authorizationChanges.removeAll(keepingCapacity: true)
    }

    /// Events still held (provisional always, awaiting the deferred prompt's answer), over all devices.
    public var heldEventCount: Int { devices.reduce(0) { $0 + $1.authorization.held.count } }

    /// Ends the input: for each device, in order of its first record the engine took (a refused
    /// record, which changes nothing, does not place its device), stream time runs to its latest
    /// record: beacon exits due at or before it fire, held events older than the maximum age by then
    /// expire. Nothing later is invented; events still held stay held.
    public mutating func finish(into events: inout [MonitorEvent]) {
        for di in startedDevices {
            devices[di].updateWatch(at: devices[di].lastTime, catalog: catalog, policy: policy)
            devices[di].catchUp(with: catalog, policy: policy)
            devices[di].advance(to: devices[di].lastTime, inclusive: true, cause: devices[di].lastCause,
                                catalog: catalog, policy: policy, events: &events)
            authorizationChanges.append(contentsOf: devices[di].authorizationChanges)
            devices[di].authorizationChanges = []  // (rare: no buffer kept, so that `isEmpty` reads none)
        }
    }

    /// What the engine needs of a record's values, for callers that did not check them already.
    static func validate(_ observation: Observation) throws(ObservationProblem) {
        switch observation {
        case .fix(let fix):
            guard !fix.horizontalAccuracy.isNaN else {
                throw ObservationProblem(field: "accuracy", message: "accuracy must be a number")
            }
            if fix.isValid {
                guard (-90.0...90.0).contains(fix.coordinate.latitude) else {
                    throw ObservationProblem(field: "lat", message: "latitude \(fix.coordinate.latitude) is outside −90…90")
                }
                guard (-180.0...180.0).contains(fix.coordinate.longitude) else {
                    throw ObservationProblem(field: "lon", message: "longitude \(fix.coordinate.longitude) is outside −180…180")
                }
                guard fix.horizontalAccuracy.isFinite else {
                    throw ObservationProblem(field: "accuracy", message: "accuracy must be finite")
                }
            }
        case .sighting, .app, .request, .answer, .settings, .session, .config, .appConfig:
            break
        }
    }
}

/// A device named once by `MonitoringEngine.deviceID(_:)`, so that records need no name lookup.
public struct DeviceID: Hashable, Sendable {
    /// The device's number, in the order devices were named.
    public let index: Int32

    /// (For the tool's reader, which makes engine records in parallel with numbers of its own.)
    package init(index: Int32) { self.index = index }
}
