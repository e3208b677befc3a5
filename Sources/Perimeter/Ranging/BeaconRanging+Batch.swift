import Dispatch

extension BeaconRanging {
    /// Applies a run of sightings (no other record between them) in order, with exactly the
    /// results and events of one `process` call each: the constraints matched a group of sightings
    /// at a time (their probes prefetched together, as the monitoring path's batches do), the
    /// devices' windows and results made in shards of devices on the engine's batch threads and
    /// merged back in record order, the engine fed through its batch path.
    ///
    /// The results due within the run take the engine's authorization as it was before the run:
    /// sightings change no authorization, and the lapses due by a result's second are applied to it
    /// all the same, so it is the authorization one record at a time would give.
    /// - Throws: the engine's refusal of a record, with its position; those before it were applied.
    public mutating func process(_ batch: [SightingRecord], events: inout [MonitorEvent],
                                 results: inout [RangingResult]) throws(BatchProblem) {
        identities.removeAll(keepingCapacity: true)
        for record in batch { identities.append(record.sighting.identity) }
        matches.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        identities.withUnsafeBufferPointer { catalog.matcher.matches($0, conditions: &matches, offsets: &offsets) }
        // A sighting older than its device's previous record is refused by the engine, and it and
        // those after it change nothing here.
        var taken = batch.count
        for (k, record) in batch.enumerated() {
            let di = Int(record.device.index)
            grow(to: di)
            let t = record.sighting.time.nanosecondsSinceEpoch
            guard t >= clocks[di] else {
                taken = k
                break
            }
            clocks[di] = t
        }
        let shards = taken >= Self.shardedRecords ? max(1, monitoring.batchThreads) : 1
        if shards == 1 {
            for k in 0..<taken { take(batch[k], matches[offsets[k]..<offsets[k + 1]], into: &results) }
        } else {
            takeInShards(batch, taken: taken, shards: shards, into: &results)
        }
        try monitoring.process(taken == batch.count ? batch : Array(batch[...taken]), into: &events)
    }

    /// Runs of at least this many sightings are split into shards of devices.
    static let shardedRecords = 1024

    private mutating func take(_ record: SightingRecord, _ matched: ArraySlice<Int32>, into results: inout [RangingResult]) {
        let di = Int(record.device.index)
        if !rangers[di].isIdle {
            rangers[di].advance(to: record.sighting.time.nanosecondsSinceEpoch, inclusive: false, policy: policy, into: &due)
            write(monitoring.name(of: record.device), record.device, into: &results)
        }
        if !matched.isEmpty { rangers[di].add(record.sighting, cause: record.cause, constraints: matched) }
    }

    /// `take` for each of `batch[..<taken]`, shard `w` taking the devices whose number is `w` modulo
    /// `shards`; each shard's results are in record order, and merged in record order.
    private mutating func takeInShards(_ batch: [SightingRecord], taken: Int, shards: Int, into results: inout [RangingResult]) {
        var outputs = [ShardOutput](repeating: ShardOutput(), count: shards)
        let engine = monitoring, constraints = catalog.constraints, policy = policy, matches = matches, offsets = offsets
        rangers.withUnsafeMutableBufferPointer { rangers in
            outputs.withUnsafeMutableBufferPointer { outputs in
                // (Each shard changes only its own devices' rangers and its own output.)
                nonisolated(unsafe) let rangers = rangers, outputs = outputs
                DispatchQueue.concurrentPerform(iterations: shards) { w in
                    var out = ShardOutput(), due: [BeaconRanger.Due] = []
                    for k in 0..<taken where Int(batch[k].device.index) % shards == w {
                        let record = batch[k], di = Int(record.device.index)
                        if !rangers[di].isIdle {
                            rangers[di].advance(to: record.sighting.time.nanosecondsSinceEpoch, inclusive: false, policy: policy, into: &due)
                            if !due.isEmpty {
                                out.dropped += Self.results(from: &due, engine.name(of: record.device), record.device, monitoring: engine,
                                                            constraints: constraints, into: &out.results)
                                out.count += due.count
                                while out.records.count < out.results.count { out.records.append(k) }
                                due.removeAll(keepingCapacity: true)
                            }
                        }
                        let matched = matches[offsets[k]..<offsets[k + 1]]
                        if !matched.isEmpty { rangers[di].add(record.sighting, cause: record.cause, constraints: matched) }
                    }
                    outputs[w] = out
                }
            }
        }
        // Merged by record: the results of one record come from one shard, in its order.
        var next = [Int](repeating: 0, count: shards)
        let total = outputs.reduce(0) { $0 + $1.results.count }
        results.reserveCapacity(results.count + total)
        for _ in 0..<total {
            var best = -1
            for w in 0..<shards where next[w] < outputs[w].results.count {
                if best < 0 || outputs[w].records[next[w]] < outputs[best].records[next[best]] { best = w }
            }
            results.append(outputs[best].results[next[best]])
            next[best] += 1
        }
        resultCount += outputs.reduce(0) { $0 + $1.count }
        droppedCount += outputs.reduce(0) { $0 + $1.dropped }
    }

    /// One shard's results, each with the position in the batch of the record that made it due.
    private struct ShardOutput {
        var results: [RangingResult] = []
        var records: [Int] = []
        var count = 0, dropped = 0
    }
}
