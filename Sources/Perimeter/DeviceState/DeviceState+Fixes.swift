extension DeviceState {
    /// Applies a fix to every geographic pair it can change (SPEC §2, geographic).
    ///
    /// Only the index's candidates — conditions whose box comes within the fix's margin — are tested.
    /// Every other condition is confidently outside, which changes only the pairs kept explicitly and,
    /// once, the untouched pairs of conditions this device has not settled yet. Callers skip fixes
    /// that `needsGeometry` clears; this leaves the device's anchor for the fixes after it.
    /// Returns whether the fix was measured near its anchor: only the conditions whose anchor terms it
    /// breaks (`applyNearAnchor`).
    @discardableResult
    mutating func apply(_ fix: Fix, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                        scratch: inout EvaluationScratch, events: inout [MonitorEvent]) -> Bool {
        guard fix.isValid else { return false }
        if applyNearAnchor(fix, cause: cause, catalog: catalog, policy: policy, scratch: &scratch, events: &events) {
            return true
        }
        let confirmation = policy.spans.confirmation
        let count = Int32(catalog.geographic.count)
        // Conditions this device's fixes have not met yet: after the settled ones and the waiting runs.
        let unmet = geographicWaiting.last?.end ?? geographicSettled
        let settling = unmet < count
        let margin = policy.margin(for: fix)
        scratch.beginQuery(conditionCount: Int(count))
        let stamp = scratch.stamp
        var frame = FixFrame(fix.coordinate, margin: margin)
        catalog.collectReadings(&frame, watch: watch, stamps: &scratch.queryStamps, stamp: stamp, asksAhead: scratch.asksAhead,
                                candidates: &scratch.candidates,
                                readings: &scratch.readings, clearances: &scratch.clearances)
        var anchorBuilder = FixAnchorBuilder(fix.coordinate, margin: margin,
                                             nonCandidates: catalog.nonCandidateDistance(margin: margin))
        anchorTerms.removeAll(keepingCapacity: true)
        // (Reserved once per device: the builder keeps no more terms than that, so that the steady
        // state allocates nothing.)
        if anchorTerms.capacity < FixAnchorBuilder.mostTerms { anchorTerms.reserveCapacity(FixAnchorBuilder.mostTerms) }

        // 1. Candidates: keep an entry unless the pair ends in the settled baseline.
        for (k, i) in scratch.candidates.enumerated() {
            var reading = scratch.readings[k]
            let existing = geographicEntries.firstIndex { $0.condition == i }
            var pair = if let existing { geographicEntries[existing].pair } else { geographicBaseline(i, catalog: catalog) }
            // (A condition of a waiting run leaves it, for good, with its pair as the run had it.)
            if existing == nil && i >= geographicSettled && i < unmet { detach(i) }
            if reading.isUnmeasured {
                // Only the side is known: enough for a pair settled on it, which no fix on that side
                // changes; its term is what is known of the distance.
                if pair.isSettled(on: reading.sign) {
                    if anchorBuilder.isValid {
                        anchorBuilder.add(i, term: Self.decidedTerm(i, known: scratch.clearances[k], farBudget: anchorBuilder.farBudget,
                                                                    catalog: catalog, frame: &frame),
                                          to: &anchorTerms)
                    }
                    store(pair, for: i, at: existing)
                    continue
                }
                reading = catalog.reading(i, &frame)
                scratch.readings[k] = reading
                scratch.clearances[k] = 0
            }
            if let side = reading.side {
                if let state = pair.observe(side, at: fix.time, confirmation: confirmation) { scratch.changes.append((i, state)) }
            } else if anchorBuilder.isValid {
                anchorBuilder.add(i, term: Self.undecidedTerm(i, reading: reading, state: pair.state, catalog: catalog, frame: &frame),
                                  to: &anchorTerms)
            }
            store(pair, for: i, at: existing)
        }
        // 2. Explicit pairs the fix is far from: confidently outside. (A device keeps few entries and a
        //    fix has few candidates: a scan of the candidates reads less memory than a mark per
        //    condition, which with many conditions is a cache miss per candidate.)
        var k = geographicEntries.count - 1
        while k >= 0 {
            let i = geographicEntries[k].condition
            if !scratch.candidates.contains(i) {
                if catalog.geographic[Int(i)].isRemoved {
                    geographicEntries.swapAt(k, geographicEntries.count - 1)
                    geographicEntries.removeLast()
                } else {
                    if let state = geographicEntries[k].pair.observe(.outside, at: fix.time, confirmation: confirmation) {
                        scratch.changes.append((i, state))
                    }
                    if geographicEntries[k].pair.isSettledBaseline {
                        geographicEntries.swapAt(k, geographicEntries.count - 1)
                        geographicEntries.removeLast()
                    }
                }
            }
            k -= 1
        }
        // 3. Waiting runs whose confirmation time has passed: this fix is confidently outside their
        //    untouched pairs too (its candidates were detached above), and completes them.
        while let run = geographicWaiting.first, fix.time.span(since: run.since) >= confirmation {
            catalog.watchedStartingOtherwise(from: geographicSettled, below: run.end, watch: watch, into: &scratch.starting)
            for i in scratch.starting where !isDetached(i) { scratch.changes.append((i, .unsatisfied)) }
            geographicSettled = run.end
            geographicWaiting.removeFirst()
            geographicDetached.removeFirst(SortedIndices.firstIndex(in: geographicDetached, notBelow: run.end))
        }
        // 4. Conditions not met yet (the device's first valid fix, or conditions added since): every
        //    untouched pair is confidently outside. Without a confirmation time they change now;
        //    with one, those starting otherwise than unsatisfied wait as a run, the candidates
        //    (explicit already) detached from it.
        if settling {
            catalog.watchedStartingOtherwise(from: unmet, below: count, watch: watch, into: &scratch.starting)
            if confirmation.nanoseconds <= 0 {
                for i in scratch.candidates { scratch.candidateMarks[Int(i)] = stamp }
                for i in scratch.starting where scratch.candidateMarks[Int(i)] != stamp {
                    var pair = GeographicPairState(state: catalog.geographicInitialState(i))
                    if let state = pair.observe(.outside, at: fix.time, confirmation: confirmation) {
                        scratch.changes.append((i, state))
                    }
                    if !pair.isSettledBaseline { geographicEntries.append(GeographicEntry(condition: i, pair: pair)) }
                }
                geographicSettled = count
            } else if !scratch.starting.isEmpty {
                geographicWaiting.append(WaitingRun(end: count, since: fix.time))
                for i in scratch.candidates where i >= unmet { detach(i) }
            } else if geographicWaiting.isEmpty {
                geographicSettled = count  // (all start unsatisfied: nothing to wait for)
            } else {
                geographicWaiting[geographicWaiting.count - 1].end = count
            }
        }
        if !geographicWaiting.isEmpty
            || geographicEntries.contains(where: { $0.pair.pending != nil || $0.pair.state == .unknown }) {
            anchorBuilder.invalidate()
        }
        // Candidates the fix was confidently on the side of (their state now): how far it is inside
        // or outside, measured only where a term could come below the far budget.
        if anchorBuilder.isValid {
            for (k, i) in scratch.candidates.enumerated() where scratch.readings[k].side != nil {
                let term = Self.decidedTerm(i, known: max(MeasureBounds.marginShare * margin, scratch.clearances[k]),
                                            farBudget: anchorBuilder.farBudget, catalog: catalog, frame: &frame)
                anchorBuilder.add(i, term: term, to: &anchorTerms)
            }
        }
        anchor = anchorBuilder.anchor(&frame)
        if anchor == nil { anchorTerms.removeAll(keepingCapacity: true) }
        emitGeographicChanges(&scratch.changes, at: fix.time, cause: cause, catalog: catalog, policy: policy, events: &events)
        return false
    }

    /// The events of a fix's changes of state, in condition order.
    private mutating func emitGeographicChanges(_ changes: inout [(condition: Int32, state: ConditionState)], at time: Timestamp,
                                                cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                                                events: inout [MonitorEvent]) {
        if changes.count > 1 { changes.sort { $0.condition < $1.condition } }
        if let delay = policy.spans.loiteringDelay, !changes.isEmpty { updateDwells(changes, at: time, delay: delay) }
        for change in changes {
            emit(MonitorEvent(device: name, identifier: catalog.geographicIdentifier(change.condition),
                              state: change.state, date: time, cause: cause),
                 policy: policy, events: &events)
        }
    }

    /// Applies a fix that breaks the anchor's budget but not its far budget: only the pairs whose
    /// terms it breaks can change (`FixAnchor`), so only those are measured. The anchor then moves to
    /// this fix: the terms measured here are its own, and every other term, and the far budget, lose
    /// the distance moved. The events are those a full evaluation would give. Returns false, having
    /// changed nothing, when the fix needs the full evaluation.
    private mutating func applyNearAnchor(_ fix: Fix, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                                          scratch: inout EvaluationScratch, events: inout [MonitorEvent]) -> Bool {
        guard let anchor, geographicSettled == Int32(catalog.geographic.count) else { return false }
        let margin = policy.margin(for: fix)
        guard FixAnchor.isCacheable(fix.coordinate, margin: margin) else { return false }
        let share = MeasureBounds.marginShare * margin
        let moved = anchor.distanceBound(to: fix.coordinate)
        guard moved < share + anchor.farBudget else { return false }
        let confirmation = policy.spans.confirmation
        var frame = FixFrame(fix.coordinate, margin: margin)
        scratch.emptyChanges()
        let farBudget = anchor.farBudget - moved
        var budget = farBudget, isValid = true
        // The fix's cover-grid cell, found for the first term that needs it.
        var cell: (range: Range<Int>, offset: Double)?
        if scratch.asksAhead {
            catalog.askForShapes(of: anchorTerms.lazy.filter { moved >= share + $0.budget }.map(\.condition), at: fix.coordinate)
        }
        var t = anchorTerms.count - 1
        while t >= 0 {
            let term = anchorTerms[t], i = term.condition
            defer { t -= 1 }
            if moved < share + term.budget {
                anchorTerms[t].budget = term.budget - moved
                budget = min(budget, term.budget - moved)
                continue
            }
            // (A removed condition changes nothing any more: its term goes.)
            if catalog.geographic[Int(i)].isRemoved {
                anchorTerms.swapAt(t, anchorTerms.count - 1)
                anchorTerms.removeLast()
                continue
            }
            if cell == nil { cell = catalog.coverGrid.entries(at: fix.coordinate) }
            var clearance = 0.0
            var reading = catalog.reading(i, &frame, cell: cell!, clearance: &clearance)
            let existing = geographicEntries.firstIndex { $0.condition == i }
            var pair = if let existing { geographicEntries[existing].pair } else { geographicBaseline(i, catalog: catalog) }
            if reading.isUnmeasured {
                // As in `apply`: the side alone serves a pair settled on it.
                if pair.isSettled(on: reading.sign) {
                    let renewed = Self.decidedTerm(i, known: clearance, farBudget: farBudget, catalog: catalog, frame: &frame)
                    anchorTerms[t].budget = renewed
                    budget = min(budget, renewed)
                    continue
                }
                reading = catalog.reading(i, &frame)
                clearance = 0
            }
            var renewed: Double?
            if let side = reading.side {
                if let state = pair.observe(side, at: fix.time, confirmation: confirmation) { scratch.changes.append((i, state)) }
                renewed = pair.pending != nil ? nil
                    : Self.decidedTerm(i, known: max(share, clearance), farBudget: farBudget, catalog: catalog, frame: &frame)
            } else {
                renewed = Self.undecidedTerm(i, reading: reading, state: pair.state, catalog: catalog, frame: &frame)
            }
            store(pair, for: i, at: existing)
            guard let renewed else {
                isValid = false
                continue
            }
            anchorTerms[t].budget = renewed
            budget = min(budget, renewed)
        }
        if isValid {
            self.anchor = FixAnchor(coordinate: fix.coordinate, budget: budget, cosLatitude: frame.cosLatitude, farBudget: farBudget)
        } else {
            self.anchor = nil
            anchorTerms.removeAll(keepingCapacity: true)
        }
        emitGeographicChanges(&scratch.changes, at: fix.time, cause: cause, catalog: catalog, policy: policy, events: &events)
        return true
    }

    /// The term of candidate `i`, which the frame's fix is on the side of its pair's state (confidently,
    /// or as an unmeasured reading says), at least `known` metres from its boundary: a circle's
    /// distance is measured (to within `ConditionCatalog.cheapDistanceError`), unless
    /// `known` reaches the far budget already (the term is then not kept); a polygon's side proves
    /// what is known (λ × the margin, or the cover grid's clearance), within the cap of one with seam
    /// edges (`MeasureBounds.seamTermCap`).
    @inline(__always)
    private static func decidedTerm(_ i: Int32, known: Double, farBudget: Double, catalog: ConditionCatalog,
                                    frame: inout FixFrame) -> Double {
        guard known < farBudget, let distance = catalog.cheapDistanceToBoundary(i, &frame) else {
            return min(known, catalog.anchorTermCap(i, at: frame.coordinate))
        }
        return max(known, distance - ConditionCatalog.cheapDistanceError)
    }

    /// The term of candidate `i`, whose boundary the frame's fix is within its margin of
    /// (`FixAnchor.undecidedTerm`): a circle's distance measured, a polygon's between 0 and
    /// the margin.
    @inline(__always)
    private static func undecidedTerm(_ i: Int32, reading: Reading, state: ConditionState, catalog: ConditionCatalog,
                                      frame: inout FixFrame) -> Double? {
        let distance = catalog.cheapDistanceToBoundary(i, &frame)
        let error = ConditionCatalog.cheapDistanceError
        let term = FixAnchor.undecidedTerm(sign: reading.sign, state: state, low: distance.map { max(0, $0 - error) } ?? 0,
                                           high: distance.map { $0 + error } ?? frame.margin)
        guard distance == nil, let term else { return term }
        return min(term, catalog.anchorTermCap(i, at: frame.coordinate))
    }

    /// Whether `fix` needs its geometry computed: it is valid, there are geographic conditions, and the
    /// anchor (`FixAnchor`) cannot show that it changes nothing.
    @inline(__always)
    func needsGeometry(_ fix: Fix, catalog: ConditionCatalog, policy: MonitoringPolicy) -> Bool {
        guard fix.isValid, !catalog.geographic.isEmpty else { return false }
        // (A watch made anew, at this record, drops the anchor: what it kept may have changed.)
        guard geographicSettled == Int32(catalog.geographic.count), watch.epoch == catalog.watchEpoch, let anchor else { return true }
        return !anchor.holds(at: fix.coordinate, margin: policy.margin(for: fix))
    }

    /// Takes condition `i` out of its waiting run (a no-op if it is out already).
    mutating func detach(_ i: Int32) {
        let k = SortedIndices.firstIndex(in: geographicDetached, notBelow: i)
        if k == geographicDetached.count || geographicDetached[k] != i { geographicDetached.insert(i, at: k) }
    }


    /// Keeps `pair` as condition `i`'s entry, or drops the entry when the pair is back in the settled
    /// baseline (every condition is settled once this fix is done).
    @inline(__always)
    private mutating func store(_ pair: GeographicPairState, for i: Int32, at existing: Int?) {
        if pair.isSettledBaseline {
            if let existing {
                geographicEntries.swapAt(existing, geographicEntries.count - 1)
                geographicEntries.removeLast()
            }
        } else if let existing {
            geographicEntries[existing].pair = pair
        } else {
            geographicEntries.append(GeographicEntry(condition: i, pair: pair))
        }
    }
}
