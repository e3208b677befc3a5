// What a device watches (SPEC §5.6) and monitors (§5.4), made again when the catalogue's audiences,
// or under a profile's limits its conditions, change (docs/audiences.md).
extension DeviceState {
    /// Makes the device's `Watch` anew, at `time`, if the catalogue's audiences or (under a profile's
    /// limits) its conditions changed since it was made: before a record's effect, and before the end
    /// of the input fires a device's timers (a device restored from a snapshot has made none yet).
    /// Under a profile's limits, a condition it monitors now and did not before (a place freed by a
    /// removal) starts afresh, as if added now.
    mutating func updateWatch(at time: Timestamp, catalog: ConditionCatalog, policy: MonitoringPolicy) {
        guard watch.epoch != catalog.watchEpoch else { return }
        let before = watch
        watch = catalog.watch(for: name)
        // (The anchor vouched for the conditions watched then.)
        anchor = nil
        anchorTerms.removeAll(keepingCapacity: true)
        if before.epoch >= 0 && catalog.audiences.hasAudiences { forgetUnwatched(catalog: catalog) }
        guard watch.isLimited else { return }
        // (A place freed by a removal: only a device that had some left out can gain one.)
        if before.isLimited && before.epoch >= 0 {
            if let was = before.monitoredGeographic {
                for i in 0..<Int32(catalog.geographic.count) where !SortedIndices.contains(was, i) && catalog.monitors(geographic: i, watch) {
                    startAfresh(geographic: i, catalog: catalog)
                }
            }
            if let was = before.monitoredBeacons {
                for i in 0..<Int32(catalog.beacons.count) where !SortedIndices.contains(was, i) && catalog.watches(beacon: i, watch) {
                    startAfresh(beacon: i, at: time, catalog: catalog, policy: policy)
                }
            }
        }
    }

    /// Under a profile's limits: one `unmonitored` event for each condition added since the device
    /// was last told that it watches but does not monitor, in the order added, at its record at
    /// `time` (docs/profiles.md).
    @inline(never)
    mutating func announceUnmonitored(at time: Timestamp, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                                      events: inout [MonitorEvent]) {
        announcedThrough = catalog.forEachUnmonitored(from: announcedThrough ?? 0, watch: watch) { identifier, diagnostic in
            var event = MonitorEvent(device: name, identifier: identifier, state: .unmonitored, date: time, cause: cause)
            event.delivery.diagnostics = diagnostic
            emit(event, policy: policy, events: &events)
        }
    }

    /// Drops the pairs of conditions the device no longer watches (its groups changed): no event
    /// of theirs may follow.
    private mutating func forgetUnwatched(catalog: ConditionCatalog) {
        let watch = self.watch
        geographicEntries.removeAll { !catalog.monitors(geographic: $0.condition, watch) }
        beaconEntries.removeAll { !catalog.watches(beacon: $0.condition, watch) }
        dwells?.removeAll { timer in !geographicEntries.contains { $0.condition == timer.condition } }
    }

    /// Geographic condition `i`, settled by the device's fixes while it did not monitor it, starts
    /// in its starting state again (the next fix settles it).
    private mutating func startAfresh(geographic i: Int32, catalog: ConditionCatalog) {
        let unmet = geographicWaiting.last?.end ?? geographicSettled
        guard i < unmet, !geographicEntries.contains(where: { $0.condition == i }) else { return }
        let initial = catalog.geographicInitialState(i)
        if i >= geographicSettled { detach(i) }
        if initial != .unsatisfied { geographicEntries.append(GeographicEntry(condition: i, pair: GeographicPairState(state: initial))) }
    }

    /// Beacon condition `i`, whose first exit timer has been scheduled while the device did not
    /// monitor it, starts in its starting state with an exit timer from now.
    private mutating func startAfresh(beacon i: Int32, at time: Timestamp, catalog: ConditionCatalog, policy: MonitoringPolicy) {
        guard i < beaconScheduled, !beaconEntries.contains(where: { $0.condition == i }) else { return }
        let initial = catalog.beaconInitialState(i)
        guard initial != .unsatisfied else { return }
        var pair = BeaconPairState(state: initial)
        let due = time.adding(policy.spans.beaconExitTimeout)
        pair.exitDue = due
        if due != .distantFuture { exits.push(.init(due: due, condition: i)) }
        beaconEntries.append(BeaconEntry(condition: i, pair: pair))
    }
}
