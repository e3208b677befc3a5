import Perimeter

/// `monitor WORKDIR [circles|polygons]`: latency percentiles of one fix at a time, through
/// `MonitoringEngine.process` directly and through the `Monitor` actor, on the mixed workload's
/// conditions (or one kind alone), the fixes in stream order (10k devices interleaved) and then
/// device by device.
enum MonitorLatency {
    /// Fixes timed after the warm-up.
    static let timedFixes = 200_000

    static func run(_ options: BenchOptions) async {
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unsatisfied
        let fixes = Fixes("\(options.work)/fixes.bin")
        // The mixed conditions by default; `circles` or `polygons` as NAME for one kind alone.
        let kind = options.name ?? "mixed"
        let conditions = (kind == "polygons" ? [] : circles(options.work))
            + (kind == "circles" ? [] : geojson("\(options.work)/polygons.geojson"))
        print("10k devices' fixes interleaved, in stream order (\(kind), \(conditions.count) conditions):")
        await measure(conditions, fixes, policy: policy, count: timedFixes)
        print("The same fixes device by device:")
        await measure(conditions, fixes.byDevice(), policy: policy, count: timedFixes)
    }

    /// Prints the percentiles of `count` fixes (after up to 100k of warm-up), through the engine and
    /// then through the actor.
    private static func measure(_ conditions: [Condition], _ fixes: Fixes, policy: MonitoringPolicy, count: Int) async {
        let warm = min(fixes.count / 2, 100_000), n = min(count, fixes.count - warm)
        throughTheEngine(conditions, fixes, policy: policy, warm: warm, n: n)
        await throughTheActor(conditions, fixes, policy: policy, warm: warm, n: n)
    }

    private static func throughTheEngine(_ conditions: [Condition], _ fixes: Fixes, policy: MonitoringPolicy, warm: Int, n: Int) {
        let clock = ContinuousClock()
        var engine = StatefulRun.preparedEngine(conditions, policy: policy, buildThreads: 1)
        let ids = (0..<fixes.deviceCount).map { engine.deviceID("d\($0)") }
        var events: [MonitorEvent] = []
        for i in 0..<warm { try! engine.process(.fix(fixes.fix(i)), device: ids[Int(fixes.device[i])], cause: i, into: &events); events.removeAll() }
        var samples: [Double] = [], anchored: [Double] = [], nearAnchor: [Double] = [], full: [Double] = []
        samples.reserveCapacity(n)
        for i in warm..<(warm + n) {
            let f = fixes.fix(i), d = ids[Int(fixes.device[i])]
            let anchoredBefore = engine.fixesAnsweredByAnchor, nearBefore = engine.fixesMeasuredNearAnchor
            let start = clock.now
            try! engine.process(.fix(f), device: d, cause: i, into: &events)
            let elapsed = (clock.now - start).seconds
            samples.append(elapsed)
            // Where the tail comes from: fixes their anchor answered, those measured near it (only the
            // conditions whose terms they break), and full evaluations.
            if engine.fixesAnsweredByAnchor > anchoredBefore {
                anchored.append(elapsed)
            } else if engine.fixesMeasuredNearAnchor > nearBefore {
                nearAnchor.append(elapsed)
            } else {
                full.append(elapsed)
            }
            events.removeAll(keepingCapacity: true)
        }
        print("engine.process one fix: \(percentiles(samples))")
        print("  answered by the anchor (\(anchored.count)): \(percentiles(anchored))")
        print("  measured near the anchor (\(nearAnchor.count)): \(percentiles(nearAnchor))")
        print("  evaluated in full (\(full.count)): \(percentiles(full))")
    }

    /// Through the actor twice: its events streamed and read as the README's example reads them, by
    /// a task of their own (a stream nobody reads keeps every event, and its growth would be timed
    /// here), and not streamed, the caller taking what `process` returns.
    private static func throughTheActor(_ conditions: [Condition], _ fixes: Fixes, policy: MonitoringPolicy, warm: Int, n: Int) async {
        let clock = ContinuousClock()
        let names = (0..<fixes.deviceCount).map { "d\($0)" }
        var samples: [Double] = []
        samples.reserveCapacity(n)
        for streams in [true, false] {
            let monitor = Monitor(name: "bench", policy: policy, streamsEvents: streams)
            for (i, c) in conditions.enumerated() { try! await monitor.add(c, identifier: "k\(i)") }
            let reader = Task {
                var count = 0
                for await _ in monitor.events { count += 1 }
                return count
            }
            var returned = 0
            for i in 0..<warm { returned += try! await monitor.process(.fix(fixes.fix(i)), device: names[Int(fixes.device[i])]).count }
            samples.removeAll(keepingCapacity: true)
            for i in warm..<(warm + n) {
                let f = fixes.fix(i), name = names[Int(fixes.device[i])]
                let start = clock.now
                returned += try! await monitor.process(.fix(f), device: name).count
                samples.append((clock.now - start).seconds)
            }
            await monitor.finish()
            let read = await reader.value
            print("Monitor.process one fix (await from outside the actor), events \(streams ? "streamed" : "returned only"): "
                  + "\(percentiles(samples)); \(returned) events returned, \(read) read from the stream")
        }
    }
}
