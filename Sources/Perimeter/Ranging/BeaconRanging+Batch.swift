extension BeaconRanging {
    /// Applies a run of sightings (no other record between them) in order, with exactly the
    /// results and events of one `process` call each: the constraints matched a group of sightings
    /// at a time (their probes prefetched together, as the monitoring path's batches do), the
    /// engine fed through its batch path.
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
        var taken = batch.count
        for (k, record) in batch.enumerated() {
            let di = Int(record.device.index)
            grow(to: di)
            let t = record.sighting.time.nanosecondsSinceEpoch
            // Older than its device's previous record: the engine refuses it, and it changes nothing.
            guard t >= clocks[di] else {
                taken = k
                break
            }
            if !rangers[di].isIdle {
                rangers[di].advance(to: t, inclusive: false, policy: policy, into: &due)
                write(monitoring.name(of: record.device), record.device, into: &results)
            }
            clocks[di] = t
            let matched = matches[offsets[k]..<offsets[k + 1]]
            if !matched.isEmpty { rangers[di].add(record.sighting, cause: record.cause, constraints: matched) }
        }
        try monitoring.process(taken == batch.count ? batch : Array(batch[...taken]), into: &events)
    }
}
