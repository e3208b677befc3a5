extension DeviceState {
    /// Applies a fix to every geographic pair it can change (SPEC §2, geographic).
    ///
    /// Only the index's candidates — conditions whose box comes within the fix's margin — are tested;
    /// every other condition is confidently outside, which matters only to the pairs in `watched`.
    mutating func apply(_ fix: Fix, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                        scratch: inout EvaluationScratch, events: inout [MonitorEvent]) {
        guard fix.isValid else { return }
        let margin = max(policy.hysteresis, policy.accuracyWeight * fix.horizontalAccuracy)
        let confirmation = TimeSpan(seconds: policy.confirmation)
        scratch.beginQuery(conditionCount: catalog.geographic.count)
        let stamp = scratch.stamp
        catalog.index.collect(in: Geodesy.boundingBox(around: fix.coordinate, metres: margin),
                              stamps: &scratch.queryStamps, stamp: stamp, into: &scratch.candidates)

        for i in scratch.candidates {
            scratch.candidateMarks[Int(i)] = stamp
            guard let side = catalog.geographic[Int(i)].shape.side(of: fix.coordinate, margin: margin) else { continue }
            if let state = geographic[Int(i)].observe(side, at: fix.time, confirmation: confirmation) {
                scratch.changes.append((i, state))
            }
        }
        for i in watched where scratch.candidateMarks[Int(i)] != stamp && !catalog.geographic[Int(i)].isRemoved {
            if let state = geographic[Int(i)].observe(.outside, at: fix.time, confirmation: confirmation) {
                scratch.changes.append((i, state))
            }
        }
        rebuildWatched(candidates: scratch.candidates, catalog: catalog, next: &scratch.nextWatched)

        if scratch.changes.count > 1 { scratch.changes.sort { $0.condition < $1.condition } }
        for change in scratch.changes {
            emit(MonitorEvent(device: name, identifier: catalog.geographic[Int(change.condition)].identifier,
                              state: change.state, date: fix.time, cause: cause),
                 policy: policy, events: &events)
        }
    }

    /// Keeps `watched` equal to the pairs that far fixes can still change.
    private mutating func rebuildWatched(candidates: [Int32], catalog: ConditionCatalog, next: inout [Int32]) {
        next.removeAll(keepingCapacity: true)
        for i in watched {
            if geographic[Int(i)].needsFarFixes && !catalog.geographic[Int(i)].isRemoved {
                next.append(i)
            } else {
                geographic[Int(i)].isWatched = false
            }
        }
        for i in candidates where !geographic[Int(i)].isWatched && geographic[Int(i)].needsFarFixes {
            geographic[Int(i)].isWatched = true
            next.append(i)
        }
        swap(&watched, &next)
    }
}
