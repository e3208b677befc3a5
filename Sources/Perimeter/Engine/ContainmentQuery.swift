import CBuiltins

/// Which geographic conditions contain a point — boundary included, accuracy ignored — without any
/// device state: the stateless question peers such as GEOS answer, through the engine's index and
/// exact predicates. A value: copy one per thread. Conditions for devices named one by one
/// (`ConditionAudience`) are kept with their devices, not in the shared index, and are not answered.
public struct ContainmentQuery: Sendable {
    let catalog: ConditionCatalog
    private var stamps: [UInt32] = []
    private var stamp: UInt32 = 0
    private var candidates: [Int32] = []
    /// Each polygon's answers for a batch's points, when a batch tests a few polygons directly.
    private var covered: [Bool] = []
    /// The catalog's polygons and their positions when it is a few polygons and nothing else
    /// (`ConditionCatalog.fewPolygons`): a point is tested against each directly, as a batch's are,
    /// without the grid's lookup or a copy of the catalog per call.
    private let fewPolygons: (indices: [Int32], shapes: [PolygonShape])?

    /// Whether the batch query takes points in cell order: only when the conditions' data cannot stay
    /// in cache (more than `cachedBytes` of it) and there is a grid of cells to order by. Circles are
    /// 20-byte records in one array (their centres, apart, are seldom read); a polygon is its edges
    /// several times over (raster, lists).
    var ordersBatchesByCell: Bool

    /// How many points ahead a batch asks for what a point reads.
    static let pointsAhead = 16

    /// Measured on the peer workloads: 10k polygons (≈ 30 MB) 2× faster in cell order; 10k circles
    /// (0.6 MB) or one large polygon slower, the sort costing more than it saves.
    static let cachedBytes = 4 << 20

    init(catalog: ConditionCatalog) {
        self.catalog = catalog
        stamps = [UInt32](repeating: 0, count: catalog.geographic.count)
        let bytes = catalog.circleShapes.count * MemoryLayout<CircleShape>.stride + catalog.polygonBytes
        ordersBatchesByCell = catalog.coverGrid.hasCells && bytes > Self.cachedBytes
        fewPolygons = catalog.fewPolygons()
    }

    /// Appends the positions (in addition order among geographic conditions, see
    /// `MonitoringEngine.geographicIdentifiers`) of the conditions containing `c`.
    public mutating func conditions(containing c: Coordinate, into result: inout [Int32]) {
        if let (indices, shapes) = fewPolygons {
            guard c.latitude.isFinite && c.longitude.isFinite else { return }  // not a position: in nothing
            for k in shapes.indices where shapes[k].covers(c) { result.append(indices[k]) }
            return
        }
        let catalog = self.catalog  // (one copy per call, as the call would make anyway)
        conditions(containing: c, catalog: catalog, into: &result)
    }

    /// `conditions(containing:into:)` with the catalog passed in: a batch takes its copy once, not
    /// once per point (the compiler copies a stored catalog whole, every array retained, for each call
    /// that reads it alongside the query's own scratch space).
    @inline(__always)
    private mutating func conditions(containing c: Coordinate, catalog: borrowing ConditionCatalog, into result: inout [Int32]) {
        guard c.latitude.isFinite && c.longitude.isFinite else { return }  // not a position: in nothing
        if stamp == .max {
            for i in stamps.indices { stamps[i] = 0 }
            stamp = 0
        }
        stamp += 1
        catalog.appendCovering(c, stamps: &stamps, stamp: stamp, candidates: &candidates, into: &result)
    }
}

extension ContainmentQuery {
    /// The geographic conditions containing each of `points`, as one flat list: point k's are
    /// `conditions[offsets[k] ..< offsets[k + 1]]`, as `conditions(containing:into:)` gives them.
    ///
    /// Faster than one call per point on large batches of scattered points (a recording interleaved
    /// across devices) over many conditions: the points are then taken in an order that keeps nearby
    /// ones together, so the conditions' data is read while it is still in cache; the answers are
    /// the same.
    public mutating func conditions(containing points: [Coordinate], conditions: inout [Int32], offsets: inout [Int]) {
        offsets.removeAll(keepingCapacity: true)
        offsets.reserveCapacity(points.count + 1)
        offsets.append(0)
        conditions.removeAll(keepingCapacity: true)
        let catalog = self.catalog
        let grid = catalog.coverGrid
        if let (indices, shapes) = catalog.fewPolygons() {
            self.conditions(containing: points, polygons: indices, shapes, conditions: &conditions, offsets: &offsets)
            return
        }
        guard ordersBatchesByCell else {
            // The conditions' data stays in cache: in input order (sorting would cost more). The
            // grid may not: each point's cell, then its entries, are asked for some points ahead.
            for (k, p) in points.enumerated() {
                if k + Self.pointsAhead < points.count { grid.prefetchCell(at: points[k + Self.pointsAhead]) }
                if k + Self.pointsAhead / 2 < points.count { grid.prefetchEntries(at: points[k + Self.pointsAhead / 2]) }
                self.conditions(containing: p, catalog: catalog, into: &conditions)
                offsets.append(conditions.count)
            }
            return
        }
        precondition(points.count < 1 << 32, "a batch holds fewer than 2³² points")  // (their index fits the key's low half)
        var order = [UInt64](repeating: 0, count: points.count)
        for (k, p) in points.enumerated() {
            // (A point that is not a finite position goes last; it is in no condition.)
            let key = p.latitude.isFinite && p.longitude.isFinite ? UInt64(grid.sortKey(p)) : UInt64(UInt32.max)
            order[k] = key << 32 | UInt64(k)
        }
        CellOrder.sort(&order)
        var found: [Int32] = []
        found.reserveCapacity(points.count * 2)
        var start = [Int32](repeating: 0, count: points.count), count = [Int32](repeating: 0, count: points.count)
        for (n, entry) in order.enumerated() {
            // (The points are read in cell order, not in theirs.)
            if n + Self.pointsAhead < order.count {
                let later = Int(order[n + Self.pointsAhead] & 0xFFFF_FFFF)
                points.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + later) }
            }
            let k = Int(entry & 0xFFFF_FFFF)
            let first = found.count
            self.conditions(containing: points[k], catalog: catalog, into: &found)
            start[k] = Int32(first)
            count[k] = Int32(found.count - first)
        }
        conditions.reserveCapacity(found.count)
        for k in points.indices {
            conditions.append(contentsOf: found[Int(start[k])..<Int(start[k] + count[k])])
            offsets.append(conditions.count)
        }
    }

    /// The batch over a few polygons and nothing else, each point tested against each polygon
    /// directly: what the general path does for them, without its per-point bookkeeping. Each
    /// polygon answers for every point in one pass (`PolygonLocator.covers(_:into:)`), and the
    /// outputs are sized first and written through buffer pointers: appending cost more per point
    /// than a country's raster lookup.
    private mutating func conditions(containing points: [Coordinate], polygons indices: [Int32], _ shapes: [PolygonShape],
                                     conditions: inout [Int32], offsets: inout [Int]) {
        let n = points.count
        covered.removeAll(keepingCapacity: true)
        covered.append(contentsOf: repeatElement(false, count: n * shapes.count))
        covered.withUnsafeMutableBufferPointer { covered in
            points.withUnsafeBufferPointer { points in
                for s in shapes.indices {
                    shapes[s].locator.covers(points, into: UnsafeMutableBufferPointer(rebasing: covered[(s * n)..<((s + 1) * n)]))
                }
            }
        }
        let first = offsets.count, start = conditions.count
        offsets.append(contentsOf: repeatElement(0, count: n))
        // (One spare slot: the one-polygon loop writes before it knows whether to keep the write.)
        conditions.append(contentsOf: repeatElement(0, count: covered.count { $0 } + 1))
        var used = start
        conditions.withUnsafeMutableBufferPointer { found in
            offsets.withUnsafeMutableBufferPointer { offsets in
                covered.withUnsafeBufferPointer { covered in
                    if let only = indices.first, indices.count == 1 {
                        // (One polygon, the common case: without branches.)
                        for k in 0..<n {
                            found[used] = only
                            used += covered[k] ? 1 : 0
                            offsets[first + k] = used
                        }
                        return
                    }
                    for k in 0..<n {
                        for s in indices.indices where covered[s * n + k] {
                            found[used] = indices[s]
                            used += 1
                        }
                        offsets[first + k] = used
                    }
                }
            }
        }
        conditions.removeLast()
    }

    /// Appends the positions (in addition order among beacon conditions) of the beacon conditions a
    /// sighted identity matches.
    public func conditions(matching identity: BeaconIdentity, into result: inout [Int32]) {
        catalog.matchingBeacons(identity, into: &result)
    }

    /// The beacon conditions each of `identities` matches, as one flat list: identity k's are
    /// `conditions[offsets[k] ..< offsets[k + 1]]`, as `conditions(matching:into:)` gives them.
    ///
    /// Faster than one call per sighting over many conditions: the table probes of several sightings
    /// wait for memory together.
    public func conditions(matching identities: [BeaconIdentity], conditions: inout [Int32], offsets: inout [Int]) {
        offsets.removeAll(keepingCapacity: true)
        offsets.reserveCapacity(identities.count + 1)
        offsets.append(0)
        conditions.removeAll(keepingCapacity: true)
        identities.withUnsafeBufferPointer { catalog.beaconMatcher.matches($0, conditions: &conditions, offsets: &offsets) }
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
    public var geographicIdentifiers: [String] { catalog.geographicIdentifiers }
}
