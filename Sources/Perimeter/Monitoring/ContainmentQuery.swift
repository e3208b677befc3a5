/// Which geographic conditions contain a point — boundary included, accuracy ignored — without any
/// device state: the stateless question peers such as GEOS answer, through the engine's index and
/// exact predicates. A value: copy one per thread.
public struct ContainmentQuery: Sendable {
    private let catalog: ConditionCatalog
    private var stamps: [UInt32] = []
    private var stamp: UInt32 = 0
    private var candidates: [Int32] = []
    private var sides: [Side?] = []

    init(catalog: ConditionCatalog) {
        self.catalog = catalog
        stamps = [UInt32](repeating: 0, count: catalog.geographic.count)
    }

    /// Appends the positions (in addition order among geographic conditions, see
    /// `MonitoringEngine.geographicIdentifiers`) of the conditions containing `c`.
    public mutating func conditions(containing c: Coordinate, into result: inout [Int32]) {
        if stamp == .max {
            for i in stamps.indices { stamps[i] = 0 }
            stamp = 0
        }
        stamp += 1
        candidates.removeAll(keepingCapacity: true)
        sides.removeAll(keepingCapacity: true)
        var frame = FixFrame(c, margin: 0)
        catalog.collectSides(&frame, stamps: &stamps, stamp: stamp, candidates: &candidates, sides: &sides)
        for (k, i) in candidates.enumerated() where sides[k] == .inside { result.append(i) }
    }
}

extension ContainmentQuery {
    /// Appends the positions (in addition order among beacon conditions) of the beacon conditions a
    /// sighted identity matches.
    public func conditions(matching identity: BeaconIdentity, into result: inout [Int32]) {
        catalog.matchingBeacons(identity, into: &result)
    }
}

extension MonitoringEngine {
    /// A stateless containment query over the conditions monitored now.
    public mutating func makeContainmentQuery() -> ContainmentQuery {
        catalog.prepareIndex(force: true)
        return ContainmentQuery(catalog: catalog)
    }

    /// Identifiers of the geographic conditions in addition order: position i answers
    /// `ContainmentQuery`'s index i (removed conditions keep their position).
    public var geographicIdentifiers: [String] { catalog.geographic.map(\.identifier) }
}
