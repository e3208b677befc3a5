import Perimeter

/// What the stateful engine did with a workload's records: the best time of the timed runs, and
/// the last run's events and fixes answered by their anchor (`anchored`) or near it (`near`).
struct StatefulResult {
    var seconds = Double.infinity
    var events = 0
    var anchored = 0
    var near = 0
}

/// The state modes: the records through the stateful engine (accuracy margins, per-device state
/// machines, events), a fresh engine per timed run; in batches, or one record at a time with
/// `--per-point` as an embedding app or the `Monitor` actor drives the engine.
enum StatefulRun {
    /// An engine with `conditions` (`k<index>`), added and indexed on `buildThreads` before the clock
    /// starts: index building is build time, as for the peers.
    static func preparedEngine(_ conditions: [Condition], policy: MonitoringPolicy, buildThreads: Int) -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = buildThreads
        for (i, condition) in conditions.enumerated() { try! engine.add(condition, identifier: "k\(i)") }
        engine.prepare()
        return engine
    }

    /// The fixes in stream order, in batches of 131,072 as a reader hands them over.
    static func fixes(_ fixes: Fixes, conditions: [Condition], policy: MonitoringPolicy, options: BenchOptions) -> StatefulResult {
        let clock = ContinuousClock()
        var result = StatefulResult()
        for _ in 0..<options.repeatCount {
            var e = preparedEngine(conditions, policy: policy, buildThreads: options.threads)
            let ids = (0..<fixes.deviceCount).map { e.deviceID("d\($0)") }
            var out: [MonitorEvent] = []
            out.reserveCapacity(1 << 16)
            var events = 0
            let batchSize = 1 << 17
            var batch: [FixRecord] = []
            batch.reserveCapacity(batchSize)
            let start = clock.now
            if options.perPoint {
                for i in 0..<fixes.count {
                    try! e.process(.fix(fixes.fix(i)), device: ids[Int(fixes.device[i])], cause: i, into: &out)
                    events += out.count
                    out.removeAll(keepingCapacity: true)
                }
            } else {
                for i in 0..<fixes.count {
                    batch.append(FixRecord(device: ids[Int(fixes.device[i])], fix: fixes.fix(i), cause: i))
                    if batch.count == batchSize || i == fixes.count - 1 {
                        try! e.process(batch, into: &out)
                        batch.removeAll(keepingCapacity: true)
                        events += out.count
                        out.removeAll(keepingCapacity: true)
                    }
                }
            }
            e.finish(into: &out)
            events += out.count
            result.seconds = min(result.seconds, (clock.now - start).seconds)
            result.events = events
            result.anchored = e.fixesAnsweredByAnchor
            result.near = e.fixesMeasuredNearAnchor
        }
        return result
    }

    /// The sightings in stream order, in batches of 65,536, their records made before the clock
    /// starts; the conditions are added and indexed on one thread.
    static func sightings(_ sightings: Sightings, conditions: [Condition], policy: MonitoringPolicy,
                          options: BenchOptions) -> StatefulResult {
        let clock = ContinuousClock()
        var result = StatefulResult()
        for _ in 0..<options.repeatCount {
            var e = preparedEngine(conditions, policy: policy, buildThreads: 1)
            let ids = (0..<sightings.deviceCount).map { e.deviceID("d\($0)") }
            var out: [MonitorEvent] = []
            out.reserveCapacity(1 << 16)
            var events = 0
            e.batchThreads = options.threads
            let records = (0..<sightings.count).map { i in
                SightingRecord(device: ids[Int(sightings.device[i])], sighting: sightings.sighting(i), cause: i)
            }
            let start = clock.now
            if options.perPoint {
                for record in records {
                    try! e.process(.sighting(record.sighting), device: record.device, cause: record.cause, into: &out)
                    if out.count > 60_000 { events += out.count; out.removeAll(keepingCapacity: true) }
                }
            } else {
                var from = 0
                while from < records.count {
                    let to = min(records.count, from + 65536)
                    try! e.process(Array(records[from..<to]), into: &out)
                    events += out.count
                    out.removeAll(keepingCapacity: true)
                    from = to
                }
            }
            e.finish(into: &out)
            events += out.count
            result.seconds = min(result.seconds, (clock.now - start).seconds)
            result.events = events
            result.anchored = e.fixesAnsweredByAnchor
            result.near = e.fixesMeasuredNearAnchor
        }
        return result
    }
}
