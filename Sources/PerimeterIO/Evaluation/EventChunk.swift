import Perimeter

/// One thread's share of a batch's events: their JSON Lines, and their counts for the summary.
///
/// `@unchecked Sendable`: each chunk is filled by one thread, and read only after every thread has
/// finished; for the same reason its properties skip the runtime's exclusivity checks (two per event).
final class EventChunk: @unchecked Sendable {
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    @exclusivity(unchecked) private(set) var counts = EventCounts()

    func encode(_ events: ArraySlice<MonitorEvent>) {
        bytes.removeAll(keepingCapacity: true)
        counts.removeAll()
        events.withUnsafeBufferPointer { events in
            for k in events.indices {
                counts.count(events[k])
                EventEncoding.append(events[k], to: &bytes)
            }
        }
    }
}
