// What each device watches, and, under a profile's limits once conditions have audiences, which of
// those it monitors (docs/audiences.md).
extension ConditionCatalog {
    /// What `device` watches now. Under per-device limits (`perDeviceLimits`), its lists are the
    /// conditions it monitors: of each type, the first `conditionLimit` it watches, in addition
    /// order, that the profile supports (the shared index is then not asked: those lists are all).
    func watch(for device: String) -> Watch {
        var watch = audiences.watch(for: device)
        watch.epoch = watchEpoch
        guard let limits = perDeviceLimits else { return watch }
        let limit = limits.conditionLimit ?? .max
        var geographicList: [Int32] = [], beaconList: [Int32] = []
        for i in geographic.indices where geographicList.count < limit {
            let c = Int32(i)
            guard !geographic[i].isRemoved, limits.monitorsPolygons || !geographic[i].isPolygon, watches(geographic: c, watch) else { continue }
            geographicList.append(c)
        }
        if limits.monitorsBeacons {
            for i in beacons.indices where beaconList.count < limit {
                let c = Int32(i)
                guard !beaconRemoved[i], !audiences.filtersBeacons || watch.watches(audiences.beacons[i]) else { continue }
                beaconList.append(c)
            }
        }
        watch.isLimited = true
        watch.privateGeographic = geographicList
        watch.monitoredBeacons = beaconList
        return watch
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
                guard !geographic[Int(i)].isRemoved, watches(geographic: i, watch), !SortedIndices.contains(watch.privateGeographic, i) else { return }
                body(geographicIdentifiers[Int(i)],
                     !limits.monitorsPolygons && geographic[Int(i)].isPolygon ? .conditionUnsupported : .conditionLimitExceeded)
            case .beacon(let i):
                guard !beaconRemoved[Int(i)], !audiences.filtersBeacons || watch.watches(audiences.beacons[Int(i)]),
                      !SortedIndices.contains(watch.monitoredBeacons ?? [], i) else { return }
                body(beaconIdentifiers[Int(i)], limits.monitorsBeacons ? .conditionLimitExceeded : .conditionUnsupported)
            }
        }
        return position
    }
}
