/// One `MonitoringEngine` pass over a recording, kept for replaying delivery under other policies:
/// its events, each record's share of them, and which records the engine took.
struct GeometryPass {
    var engine: MonitoringEngine
    /// The pass's own events, final lines included: its policy's full run.
    var events: [MonitorEvent] = []
    /// Each record's events: `events[starts[k]..<ends[k]]`.
    private var starts: [Int]
    private var ends: [Int]
    /// Whether the engine took each record (its device's clock ran up to it; an authorization record
    /// may still have been refused after that).
    private var taken: [Bool]
    /// Where the end of the input's events begin.
    private var finishStart = 0
    /// Authorization records refused after their device's clock ran up to them.
    var refused = 0

    init(conditions: [(condition: Condition, identifier: String, assuming: ConditionState?, audience: ConditionAudience)],
         groups: [String: [String]], records: [WhatIfComparison.Recorded], policy: MonitoringPolicy, threads: Int) throws {
        engine = MonitoringEngine(policy: policy)
        engine.batchThreads = threads
        try engine.add(contentsOf: conditions)
        if !groups.isEmpty { engine.setGroups(groups) }
        starts = Array(repeating: 0, count: records.count)
        ends = starts
        taken = Array(repeating: false, count: records.count)
        // (Authorization changes are not compared: taken and let go as they come.)
        var changes: [AuthorizationChange] = []
        var k = 0
        while k < records.count {
            engine.takeAuthorizationChanges(into: &changes)
            changes.removeAll(keepingCapacity: true)
            // Runs of fixes go through the batch path; their events come in record order, each
            // record's carrying its cause.
            var batch: [FixRecord] = []
            var end = k
            while end < records.count, case .fix(let fix) = records[end].observation {
                batch.append(FixRecord(device: engine.deviceID(records[end].device), fix: fix, cause: records[end].cause))
                end += 1
            }
            if !batch.isEmpty {
                var j = events.count
                do {
                    try engine.process(batch, into: &events)
                } catch {
                    throw WhatIfComparison.BadRecord(cause: records[k + error.index].cause, problem: error.problem)
                }
                for r in k..<end {
                    starts[r] = j
                    while j < events.count && events[j].cause == records[r].cause { j += 1 }
                    ends[r] = j
                    taken[r] = true
                }
                k = end
                continue
            }
            let record = records[k]
            let device = engine.deviceID(record.device)
            starts[k] = events.count
            do {
                try engine.process(record.observation, device: device, cause: record.cause, into: &events)
                taken[k] = true
            } catch {
                guard engine.clock(of: device) != nil && engine.lastCause(of: device) == record.cause else {
                    throw WhatIfComparison.BadRecord(cause: record.cause, problem: error)
                }
                taken[k] = true
                refused += 1
            }
            ends[k] = events.count
            k += 1
        }
        finishStart = events.count
        engine.finish(into: &events)
    }

    /// Delivery under `policy` (of the same geometry): its full run's events, the authorization
    /// records it refuses, and its request outcomes.
    func replay(_ records: [WhatIfComparison.Recorded], policy: MonitoringPolicy)
        -> (events: [MonitorEvent], refused: Int, requests: [RequestOutcome: Int]) {
        var replay = DeliveryReplay(policy: policy)
        var out: [MonitorEvent] = []
        out.reserveCapacity(events.count)
        var refused = 0
        var changes: [AuthorizationChange] = []
        for k in records.indices where taken[k] {
            replay.takeAuthorizationChanges(into: &changes)
            changes.removeAll(keepingCapacity: true)
            do {
                try replay.process(records[k].observation, device: records[k].device, cause: records[k].cause,
                                   events: events[starts[k]..<ends[k]].lazy.filter { !$0.isFinalVerdict }, into: &out)
            } catch {
                refused += 1
            }
        }
        replay.finish(events: events[finishStart...].filter { !$0.isFinalVerdict }, into: &out)
        return (out, refused, replay.requestOutcomes)
    }
}
