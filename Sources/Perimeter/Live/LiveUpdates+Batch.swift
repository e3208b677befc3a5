extension LiveUpdates {
    /// Applies a run of fixes (no other record between them) in order, with exactly the updates and
    /// events of one `process` call each, the engine fed through its batch path.
    ///
    /// The updates take the engine's authorization as it was before the run: fixes change no
    /// authorization, and the lapses due by an update's date are applied to it all the same, so it
    /// is the authorization one record at a time would give.
    /// - Throws: the engine's refusal of a record, with its position; those before it were applied.
    public mutating func process(_ batch: [FixRecord], events: inout [MonitorEvent], updates: inout [LiveUpdate]) throws(BatchProblem) {
        var taken = batch.count
        for (k, record) in batch.enumerated() {
            let id = record.device, di = Int(id.index)
            grow(to: di)
            let t = record.fix.time
            // A fix the engine refuses changes nothing, and nothing falls due before it.
            guard t >= clocks[di], (try? MonitoringEngine.validate(.fix(record.fix))) != nil else {
                taken = k
                break
            }
            let name = monitoring.name(of: id)
            if let due = updaters[di].unavailableDue(policy), due < t {
                say(unavailable(name, id, at: due, cause: record.cause), di, into: &updates)
            }
            clocks[di] = t
            if case .update(let stationary) = updaters[di].take(.fix(record.fix), policy: policy, location: approximateLocation) {
                update(name, id, record.fix, stationary: stationary, cause: record.cause, into: &updates)
            }
        }
        try monitoring.process(taken == batch.count ? batch : Array(batch[...taken]), into: &events)
    }
}
