@testable import Perimeter

// What the tests read of the engine's insides, and nothing else does: kept here rather than in the
// library, so that its types carry no members for tests alone.

extension MonitoringEngine {
    /// The devices' state, for tests of its size.
    var devicesForTesting: [DeviceState] { devices }
}

extension ContainmentQuery {
    /// Whether the query has no cover grid (every condition too large for one) and uses the
    /// condition index alone.
    var isUsingConditionIndexOnly: Bool { catalog.coverGrid.isEmpty }
}

extension CoverGrid {
    /// How many entries the cells list in all.
    var entryCount: Int { entries.count }
}

extension ExitQueue {
    /// Entries the arrays hold, popped ones included (what the queue's memory follows).
    var storedCount: Int { run.count + heap.count }
}

extension BeaconKeyTable {
    /// How many buckets had a key go past them.
    var overflowedBuckets: Int {
        withBuckets { buckets in
            (0...mask).count { buckets.load(fromByteOffset: $0 * 64 + Bucket.overflowedOffset, as: Int32.self) != 0 }
        }
    }
}

extension BeaconMatcher {
    /// How many buckets of the keyed tables have keys that went past them.
    var overflowedBuckets: Int { exact.overflowedBuckets + byMajor.overflowedBuckets }
}
