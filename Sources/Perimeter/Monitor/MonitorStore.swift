/// Where monitors opened by name keep themselves between processes: `Monitor(name:store:)` loads
/// one, and its checkpoints save it. PerimeterIO's `SQLiteStore` keeps them in one SQLite file; the
/// engine itself does no I/O.
///
/// A store saves a snapshot whole or not at all: a process that dies during a save leaves the one
/// before it.
public protocol MonitorStore: Sendable {
    /// The monitor saved under `name`, or `nil` when there is none.
    func loadMonitor(named name: String) throws(MonitorStoreError) -> Monitor.Snapshot?
    /// Saves `snapshot` under `name`, in place of what was saved there before.
    func saveMonitor(_ snapshot: Monitor.Snapshot, named name: String) throws(MonitorStoreError)
}

/// Why a store could not be opened, read or written, or a saved monitor not be opened: the message
/// names the store (its file) and what is wrong.
public struct MonitorStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Monitor {
    /// A monitor as a store keeps it: its policy, its engine's state (conditions as added, every
    /// device's state), its records' last events, and how many records it has processed.
    public struct Snapshot: Sendable, Codable {
        public var policy: MonitoringPolicy
        public var engine: MonitoringEngine.Snapshot
        /// The last event of each (device, condition) that has one, in no particular order.
        public var lastEvents: [LastEvent]
        /// Records processed: the next record's `cause` is one more.
        public var recordCount: Int

        public init(policy: MonitoringPolicy, engine: MonitoringEngine.Snapshot, lastEvents: [LastEvent] = [], recordCount: Int) {
            self.policy = policy
            self.engine = engine
            self.lastEvents = lastEvents
            self.recordCount = recordCount
        }
    }

    /// A record's last event as a store keeps it: all of it, its holding number included, which ties a
    /// held event's final verdict to it after a reopening.
    public struct LastEvent: Sendable, Codable {
        public var event: MonitorEvent

        init(_ event: MonitorEvent) { self.event = event }

        public init(from decoder: any Decoder) throws {
            event = try decoder.singleValueContainer().decode(StoredEvent.self).event
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(StoredEvent(event))
        }
    }

    /// When a monitor opened from a store saves itself without being asked (`checkpoint()` saves at
    /// any time).
    public struct CheckpointCadence: Sendable, Hashable {
        /// Save after every `add` and `remove`.
        public var afterConditionChanges: Bool
        /// Save once this many records were processed since the last save; `nil`: not by count.
        public var records: Int?
        /// Save at the first record this long after the last save; `nil`: not by time.
        public var interval: Duration?

        public init(afterConditionChanges: Bool = true, records: Int? = nil, interval: Duration? = nil) {
            self.afterConditionChanges = afterConditionChanges
            self.records = records
            self.interval = interval
        }

        /// After each change of conditions, and every 10,000 records or 5 seconds, whichever comes
        /// first: a crash loses at most that much, and a save of a few thousand devices' state stays a
        /// small share of the time (see the README's figures).
        public static let `default` = CheckpointCadence(records: 10_000, interval: .seconds(5))
        /// Only when `checkpoint()` is called (and at `finish()`).
        public static let manual = CheckpointCadence(afterConditionChanges: false)
    }
}
