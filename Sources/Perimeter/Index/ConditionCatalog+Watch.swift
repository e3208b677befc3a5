// What each device watches, and, under a profile's limits once conditions have audiences, which of
// those it monitors (docs/audiences.md).
extension ConditionCatalog {
    /// What `device` watches now, and under a profile's limits (`perDeviceLimits`) which of those it
    /// monitors: of each type, the first `conditionLimit` it watches, in addition order, that the
    /// profile supports. When that leaves some out, the device's lists say which it monitors: a short
    /// list of shared conditions is tested as its own list (the shared index not asked), a longer one
    /// filters the shared index's answers.
    func watch(for device: String) -> Watch {
        var watch = audiences.watch(for: device)
        watch.epoch = watchEpoch
        guard let limits = perDeviceLimits else { return watch }
        watch.isLimited = true
        let limit = limits.conditionLimit ?? .max
        var monitored: [Int32] = [], leavesOut = false
        for i in geographic.indices {
            let c = Int32(i)
            guard !geographic[i].isRemoved, watches(geographic: c, watch) else { continue }
            if monitored.count < limit && (limits.monitorsPolygons || !geographic[i].isPolygon) {
                monitored.append(c)
            } else {
                leavesOut = true
                if monitored.count >= limit { break }
            }
        }
        if leavesOut {
            watch.monitoredGeographic = monitored
            let shared = audiences.hasAudiences ? monitored.filter { !audiences.isPrivate(geographic: $0) } : monitored
            if shared.count <= Self.sharedListLimit {
                watch.privateGeographic = monitored
                watch.skipsShared = true
            } else {
                watch.privateGeographic = audiences.hasAudiences ? monitored.filter { audiences.isPrivate(geographic: $0) } : []
                watch.sharedMonitored = shared
                watch.filtersShared = true
            }
        }
        var beaconList: [Int32] = [], beaconsLeftOut = false
        for i in beacons.indices {
            guard !beaconRemoved[i], !audiences.filtersBeacons || watch.watches(audiences.beacons[i]) else { continue }
            if beaconList.count < limit && limits.monitorsBeacons {
                beaconList.append(Int32(i))
            } else {
                beaconsLeftOut = true
                break
            }
        }
        if beaconsLeftOut { watch.monitoredBeacons = beaconList }
        return watch
    }

    /// At most this many shared conditions monitored under a limit are tested as a device's own list
    /// rather than through the shared index (ios17's 20, android's 100 and more go through the index).
    static let sharedListLimit = 64

    /// Whether `watch`'s device monitors geographic condition `i`: watches it and, under a limit,
    /// has it among those it monitors.
    func monitors(geographic i: Int32, _ watch: Watch) -> Bool {
        if let monitored = watch.monitoredGeographic { return SortedIndices.contains(monitored, i) }
        return watches(geographic: i, watch)  // (none left out: every one watched is monitored)
    }

    /// How many conditions were ever added (removed ones included).
    var additionCount: Int { geographic.count + beacons.count }

    /// Whether `watch`'s device watches geographic condition `i` (as its audience says; under
    /// per-device limits it may still not monitor it).
    func watches(geographic i: Int32, _ watch: Watch) -> Bool {
        guard audiences.hasAudiences else { return true }
        if audiences.isPrivate(geographic: i) {
            return watch.isLimited ? audiences.audience(geographic: i).devices.contains(watch.device)
                : SortedIndices.contains(watch.privateGeographic, i)
        }
        return watch.watches(audiences.geographic[Int(i)])
    }

    /// Calls `body` with each condition added from addition position `start` on that `watch`'s
    /// device watches but does not monitor under per-device limits, in addition order, with why;
    /// returns the position after the last addition.
    func forEachUnmonitored(from start: Int32, watch: Watch, _ body: (String, Diagnostics) -> Void) -> Int32 {
        guard let limits = perDeviceLimits else { return start }
        var position: Int32 = 0
        forEachAddition { entry in
            defer { position += 1 }
            guard position >= start else { return }
            switch entry {
            case .geographic(let i):
                guard !geographic[Int(i)].isRemoved, watches(geographic: i, watch), !monitors(geographic: i, watch) else { return }
                body(geographicIdentifiers[Int(i)],
                     !limits.monitorsPolygons && geographic[Int(i)].isPolygon ? .conditionUnsupported : .conditionLimitExceeded)
            case .beacon(let i):
                guard !beaconRemoved[Int(i)], !audiences.filtersBeacons || watch.watches(audiences.beacons[Int(i)]),
                      !watches(beacon: i, watch) else { return }
                body(beaconIdentifiers[Int(i)], limits.monitorsBeacons ? .conditionLimitExceeded : .conditionUnsupported)
            }
        }
        return position
    }
}
