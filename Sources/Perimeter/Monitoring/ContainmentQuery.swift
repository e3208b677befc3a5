/// Which geographic conditions contain a point — boundary included, accuracy ignored — without any
/// device state: the stateless question peers such as GEOS answer, through the engine's index and
/// exact predicates. A value: copy one per thread.
public struct ContainmentQuery: Sendable {
    private let catalog: ConditionCatalog
    private var stamps: [UInt32] = []
    private var stamp: UInt32 = 0
    private var candidates: [Int32] = []

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
        catalog.appendCovering(c, stamps: &stamps, stamp: stamp, candidates: &candidates, into: &result)
    }
}

extension ContainmentQuery {
    /// Whether the query has no cover grid (every condition too large for one) and uses the
    /// condition index alone.
    var isUsingConditionIndexOnly: Bool { catalog.coverGrid.isEmpty }

    /// Appends the positions (in addition order among beacon conditions) of the beacon conditions a
    /// sighted identity matches.
    public func conditions(matching identity: BeaconIdentity, into result: inout [Int32]) {
        catalog.matchingBeacons(identity, into: &result)
    }
}

extension MonitoringEngine {
    /// A stateless containment query over the conditions monitored now.
    public mutating func makeContainmentQuery() -> ContainmentQuery {
        catalog.prepareIndex(force: true, threads: batchThreads)
        return ContainmentQuery(catalog: catalog)
    }

    /// Identifiers of the geographic conditions in addition order: position i answers
    /// `ContainmentQuery`'s index i (removed conditions keep their position).
    public var geographicIdentifiers: [String] { catalog.geographic.map(\.identifier) }
}
