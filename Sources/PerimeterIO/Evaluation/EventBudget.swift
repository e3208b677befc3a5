import Perimeter

/// Where a batch of pending records ends so that the events its devices' starts can produce stay
/// about within a budget (`BatchEvaluation.defaultEventBudget`): memory for events stays bounded
/// when many devices start against many conditions that start `unknown`.
struct EventBudget {
    /// About how many events one batch may hold; one device's start may pass it alone.
    let events: Int
    /// For each device (by its index), the batch that last counted its start: each device is
    /// counted once a batch, without clearing a set between batches.
    private var marks: [UInt32] = []
    private var mark: UInt32 = 0

    init(events: Int) {
        self.events = events
    }

    /// Where the batch of the records from `start` (of `count`) ends: before the first record whose
    /// device's start would take the batch's start events past the budget (each device counted
    /// once), and after at least one record. `device(k)` is record `k`'s device, named already.
    mutating func batchEnd(from start: Int, count: Int, engine: MonitoringEngine, device: (Int) -> DeviceID) -> Int {
        guard engine.hasStartEvents else { return count }
        mark &+= 1
        var events = 0
        for k in start..<count {
            let id = device(k), n = Int(id.index)
            if n >= marks.count { marks += repeatElement(0, count: n + 1 - marks.count) }
            guard marks[n] != mark else { continue }
            marks[n] = mark
            events += engine.startEventBound(id)
            if events > self.events && k > start { return k }
        }
        return count
    }
}
