extension DeviceState {
    /// Applies a sighting to every beacon condition it matches (SPEC §2, beacon).
    mutating func apply(_ sighting: BeaconSighting, cause: Int, catalog: ConditionCatalog, policy: MonitoringPolicy,
                        events: inout [MonitorEvent]) {
        guard let matching = catalog.beaconsByUUID[sighting.identity.uuid] else { return }
        let due = sighting.time.adding(TimeSpan(seconds: policy.beaconExitTimeout))
        for i in matching where catalog.beacons[Int(i)].condition.matches(sighting.identity) {
            beacons[Int(i)].exitDue = due
            exits.push(.init(due: due, condition: i))
            if beacons[Int(i)].state != .satisfied {
                beacons[Int(i)].state = .satisfied
                emit(MonitorEvent(device: name, identifier: catalog.beacons[Int(i)].identifier,
                                  state: .satisfied, date: sighting.time, refinement: sighting.identity, cause: cause),
                     policy: policy, events: &events)
            }
        }
        if exits.count > 2 * beacons.count + 64 {
            exits.compact { [beacons] entry in beacons[Int(entry.condition)].exitDue == entry.due }
        }
    }

    /// Gives the device a pair for every condition added since it last looked, each in its starting
    /// state; beacon pairs not starting unsatisfied get their exit timer, counted from the device's
    /// first record or the condition's addition, whichever is later.
    mutating func catchUp(with catalog: ConditionCatalog, policy: MonitoringPolicy) {
        while geographic.count < catalog.geographic.count {
            let i = geographic.count
            var pair = GeographicPairState(state: catalog.geographic[i].initialState)
            if pair.needsFarFixes && !catalog.geographic[i].isRemoved {
                pair.isWatched = true
                watched.append(Int32(i))
            }
            geographic.append(pair)
        }
        if beacons.count < catalog.beacons.count {
            let timeout = TimeSpan(seconds: policy.beaconExitTimeout)
            while beacons.count < catalog.beacons.count {
                let i = beacons.count
                let entry = catalog.beacons[i]
                var pair = BeaconPairState(state: entry.initialState)
                if entry.initialState != .unsatisfied && !entry.isRemoved {
                    let start = max(firstTime, entry.addedAt ?? firstTime)
                    pair.exitDue = start.adding(timeout)
                    exits.push(.init(due: pair.exitDue, condition: Int32(i)))
                }
                beacons.append(pair)
            }
        }
    }
}
