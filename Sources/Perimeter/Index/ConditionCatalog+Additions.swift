extension ConditionCatalog {
    /// Every condition ever added, removed ones included, in addition order: what rebuilds this
    /// catalogue, numbers and all, by adding them again in this order and removing those removed.
    var additions: [ConditionAddition] {
        var result: [ConditionAddition] = []
        forEachAddition { entry in
            switch entry {
            case .geographic(let i):
                let s = geographic[Int(i)]
                let condition: Condition = s.isPolygon
                    ? .polygon(PolygonalGeographicCondition(checked: polygonShapes[Int(s.slot)].locator.polygons))
                    : .circle(circle(inSlot: s.slot))
                result.append(ConditionAddition(condition: condition, identifier: geographicIdentifiers[Int(i)],
                                                initialState: s.initialState, addedAt: nil, isRemoved: s.isRemoved,
                                                audience: audiences.audience(geographic: i)))
            case .beacon(let i):
                let beacon = beacons[Int(i)]
                result.append(ConditionAddition(condition: .beacon(beacon.condition), identifier: beaconIdentifiers[Int(i)],
                                                initialState: beacon.initialState, addedAt: beacon.addedAt,
                                                isRemoved: beaconRemoved[Int(i)], audience: audiences.audience(beacon: i)))
            }
        }
        return result
    }

    /// Calls `body` with each condition added and not removed, in addition order, with its identifier.
    func forEachPresent(_ body: (Entry, String) -> Void) {
        forEachAddition { entry in
            switch entry {
            case .geographic(let i) where !geographic[Int(i)].isRemoved: body(entry, geographicIdentifiers[Int(i)])
            case .beacon(let i) where !beaconRemoved[Int(i)]: body(entry, beaconIdentifiers[Int(i)])
            default: break
            }
        }
    }

    /// Identifiers of the conditions added and not removed, in addition order.
    var identifiers: [String] {
        var result: [String] = []
        forEachPresent { _, identifier in result.append(identifier) }
        return result
    }
}
