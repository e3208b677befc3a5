/// What the engine's batch paths need of a record: its device and time, and whether the engine
/// refuses its values (as `MonitoringEngine.process(_:device:cause:into:)` would).
protocol BatchRecord: Sendable {
    var device: DeviceID { get }
    var time: Timestamp { get }
    /// Why the engine refuses the record's values, if it does.
    var problem: ObservationProblem? { get }
    /// Runs `shard`'s records of `batch` before `end` (`StateShard.run`, one for each kind of record).
    static func run(_ batch: [Self], end: Int, in shard: StateShard, devices: UnsafeMutableBufferPointer<DeviceState>,
                    catalog: ConditionCatalog, policy: MonitoringPolicy)
}

extension FixRecord {
    static func run(_ batch: [FixRecord], end: Int, in shard: StateShard, devices: UnsafeMutableBufferPointer<DeviceState>,
                    catalog: ConditionCatalog, policy: MonitoringPolicy) {
        shard.run(batch, end: end, devices: devices, catalog: catalog, policy: policy)
    }
}

extension SightingRecord {
    static func run(_ batch: [SightingRecord], end: Int, in shard: StateShard, devices: UnsafeMutableBufferPointer<DeviceState>,
                    catalog: ConditionCatalog, policy: MonitoringPolicy) {
        shard.run(batch, end: end, devices: devices, catalog: catalog, policy: policy)
    }
}

/// A fix of a batch for `MonitoringEngine.process(_:into:)`.
public struct FixRecord: BatchRecord, Hashable {
    /// The device, named once by `MonitoringEngine.deviceID(_:)`.
    public var device: DeviceID
    /// The fix as the engine evaluates it: its time, position and accuracy. Speed, course and
    /// altitude, which no condition reads, are not kept (they come back nil): a record of 48 bytes
    /// rather than 72, copied and read at every step of a batch.
    public var fix: Fix {
        @inline(__always) get { evaluated.fix }
        set { evaluated = EvaluatedFix(newValue) }
    }
    /// Written into the events the fix causes (its input line, or record index).
    public var cause: Int
    private var evaluated: EvaluatedFix

    /// A fix of `device`, whose events carry `cause`.
    public init(device: DeviceID, fix: Fix, cause: Int) {
        self.device = device
        self.cause = cause
        evaluated = EvaluatedFix(fix)
    }

    var time: Timestamp { evaluated.time }

    var problem: ObservationProblem? {
        // (Nearly every fix: checked here without making the `Fix` and `Observation` to validate.)
        if evaluated.isPlainlyValid { return nil }
        do throws(ObservationProblem) {
            try MonitoringEngine.validate(.fix(fix))
            return nil
        } catch {
            return error
        }
    }
}

/// A sighting of a batch for `MonitoringEngine.process(_:into:)`.
public struct SightingRecord: BatchRecord, Hashable {
    /// The device, named once by `MonitoringEngine.deviceID(_:)`.
    public var device: DeviceID
    /// The sighting.
    public var sighting: BeaconSighting
    /// Written into the events the sighting causes (its input line, or record index).
    public var cause: Int

    /// A sighting of `device`, whose events carry `cause`.
    public init(device: DeviceID, sighting: BeaconSighting, cause: Int) {
        self.device = device
        self.sighting = sighting
        self.cause = cause
    }

    var time: Timestamp { sighting.time }
    var problem: ObservationProblem? { nil }
}

/// A record of a batch that was refused, and which one.
public struct BatchProblem: Error, Sendable, Hashable {
    /// Its position in the batch; the records before it were applied.
    public var index: Int
    /// Why the engine refused it.
    public var problem: ObservationProblem
}
