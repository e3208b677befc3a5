import Foundation

// Distance to the boundary: whether it lies within a fix's margin, and how far it is.
extension PolygonLocator {
    /// Whether some boundary point lies within `metres` of `c` (strictly closer than `metres`, or also
    /// at exactly `metres` when `inclusive`), by the same distance as `PolygonShape.distanceToBoundary`:
    /// the haversine distance to the nearest boundary point found in a frame centred on `c`.
    func boundary(within metres: Double, of c: Coordinate, inclusive: Bool) -> Bool {
        var frame = FixFrame(c, margin: metres)
        return boundary(withinMarginOf: &frame, inclusive: inclusive)
    }

    /// `boundary(within:of:inclusive:)` for a fix's frame and margin, reusing what the frame computed
    /// once per fix. Most answers need neither the nearest point nor the haversine formula: the
    /// frame's distance is within 0.05 % of the haversine one at these sizes, so an edge clearly
    /// inside the margin answers at once, and edges all clearly beyond it answer no; only a nearest
    /// distance within 0.2 % of the margin takes the full measure.
    func boundary(withinMarginOf frame: inout FixFrame, inclusive: Bool) -> Bool {
        let c = frame.coordinate, metres = frame.margin
        // Cells far from any boundary cell answer without looking at edges.
        if c.longitude >= minX, c.longitude <= maxX, c.latitude >= minY, c.latitude <= maxY {
            let (column, row) = raster.columnAndRow(c.longitude, c.latitude)
            if let clear = clearanceMetres(cellDetails[row * columns + column]), clear > metres { return false }
        }
        let box = frame.marginBox
        // (A polygon with seam edges takes the plain measure, which leaves them out.)
        guard metres <= 1000, abs(c.latitude) <= 80, !hasSeamEdges else {
            let best = nearestBoundaryDistance(from: c, within: box)
            return inclusive ? best <= metres : best < metres
        }
        // (A micrometre more either way covers rounding, which dominates at tiny distances.)
        let near = metres * (1 - 2e-3) - 1e-6, far = metres * (1 + 2e-3) + 1e-6
        let nearSquared = near > 0 ? near * near : -1, farSquared = far * far
        var nearest = NearestPointFrame(c, metresPerDegreeLongitude: frame.metresPerDegreeLongitude)
        // First without the nearest point (no division per edge): an edge inside `near` answers yes;
        // none inside `far` answers no. Only the band between needs the nearest point and the haversine.
        var closest = NearestPointFrame.Closeness.beyond
        forEachEdge(near: box) { x1, y1, x2, y2 in
            switch nearest.closeness(x1, y1, x2, y2, near: nearSquared, far: farSquared) {
            case .near: closest = .near; return false
            case .band: closest = .band
            case .beyond: break
            }
            return true
        }
        if closest == .near { return true }
        if closest == .beyond { return false }
        forEachEdge(near: box) { x1, y1, x2, y2 in
            nearest.consider(x1, y1, x2, y2)
            return true
        }
        if nearest.bestSquared < nearSquared { return true }
        if nearest.bestSquared > farSquared { return false }
        let best = nearest.nearest.map { Geodesy.distance(c, $0) } ?? .infinity
        return inclusive ? best <= metres : best < metres
    }

    /// What the raster alone says of a point's distance to the boundary (`rasterDistance(_:_:)`).
    enum RasterDistance {
        /// The point's cell keeps `metres` clear of the boundary (a lower bound: the clearance a
        /// reading's margin test trusts, `k − 1` cells), on this side.
        case clear(inside: Bool, metres: Double)
        /// The point's cell is a boundary cell or next to one: an edge passes within `metres`.
        case near(metres: Double)
        /// Outside the box, or a box that reaches a pole (no clearance): nothing known.
        case unknown
    }

    /// What the raster alone says of the distance from (`x`, `y`) to the boundary. A boundary cell
    /// has an edge through it (or within its sliver of slack), so a point in it or next to it has
    /// one within the 2 × 2 cells around it: three cell diagonals in degrees, at the equator's scale,
    /// is more than that in metres.
    func rasterDistance(_ x: Double, _ y: Double) -> RasterDistance {
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return .unknown }
        let (column, row) = raster.columnAndRow(x, y)
        guard let metres = clearanceMetres(cellDetails[row * columns + column]) else {
            return .near(metres: 3 * hypot(1 / cellScaleX, 1 / cellScaleY) * Geodesy.metresPerDegree)
        }
        return metres > 0 ? .clear(inside: cells[row * columns + column] == Self.inside, metres: metres) : .unknown
    }

    /// The metres a cell's clearance `k` guarantees any point in it, from its details: `k − 1` whole
    /// cells (the point may sit at its cell's edge), as far as `largestClearance`; 0 where the box
    /// reaches a pole. `nil` for a boundary cell or one next to it. The margin test and the cover
    /// grid trust the same bound.
    @inline(__always)
    func clearanceMetres(_ details: UInt8) -> Double? {
        let k = Self.clearance(details)
        return k >= 2 ? min(Double(k - 1) * metresPerClearanceCell, largestClearance) : nil
    }

    /// The smallest boundary distance (as `PolygonShape.distanceToBoundary` measures it) over the edges
    /// that reach into `box` — or, for a polygon of few edges, over all of them, which differs only
    /// when the nearest lies beyond the box; infinity if none do. Seam and pole edges
    /// (`isSeamEdge`) are left out.
    func nearestBoundaryDistance(from c: Coordinate, within box: BoundingBox) -> Double {
        func edges(_ body: (Double, Double, Double, Double) -> Void) {
            if edgeCount <= Self.fewEdges {
                // A few edges: all of them, each once, cost less than finding those in the box (which,
                // for the cover grid's boxes, are most of them, some several times over). Edges beyond
                // the box can only lower the result: still the nearest boundary distance.
                forEveryEdge(body)
            } else {
                forEachEdge(near: box) { x1, y1, x2, y2 in
                    body(x1, y1, x2, y2)
                    return true
                }
            }
        }
        guard hasSeamEdges else { return Self.nearestDistance(from: c, edges: edges) }
        return Self.nearestDistance(from: c) { body in
            edges { x1, y1, x2, y2 in
                if !Self.isSeamEdge(x1, y1, x2, y2) { body(x1, y1, x2, y2) }
            }
        }
    }

    /// The distance in metres from `c` to the nearest of the edges `edges` calls its body with: the
    /// haversine distance to the point an equirectangular frame centred on `c` finds nearest. Where
    /// that frame can mislead — the frame's scale east–west differs from the edges' own by up to
    /// tan φ × the distance, which picks a point measurably farther (0.5 % from about 90 km of
    /// tan φ × distance: 50 km at 60°) beyond `frameTrusted` times less; and within 10° of a pole,
    /// where the frame measures round the pole rather than across it — the edges that may hold
    /// the nearest point (all of them near a pole) are measured on the sphere itself instead
    /// (`sphericalDistance`). Always the distance to a real boundary point: never below the true one.
    static func nearestDistance(from c: Coordinate, edges: ((Double, Double, Double, Double) -> Void) -> Void) -> Double {
        var frame = NearestPointFrame(c)
        edges { x1, y1, x2, y2 in frame.consider(x1, y1, x2, y2) }
        guard let nearest = frame.nearest else { return .infinity }
        let framed = Geodesy.distance(c, nearest)
        let nearPole = abs(c.latitude) > 80
        guard nearPole || (framed > frameTrusted
                           && framed * abs(tan(c.latitude * Geodesy.radiansPerDegree)) > frameTrusted * 10) else { return framed }
        // Edges whose frame distance is within three times the best's: the frame is off by far less
        // within 100 km below 80° (SPEC's 0.5 % asks no more).
        let far = 9 * frame.bestSquared
        var best = framed
        edges { x1, y1, x2, y2 in
            // (No nearer than its latitudes allow: edges that cannot beat the best cost no search.)
            guard Geodesy.metresPerDegree * max(0, min(y1, y2) - c.latitude, c.latitude - max(y1, y2)) < best else { return }
            if nearPole || frame.closeness(x1, y1, x2, y2, near: 0, far: far) != .beyond {
                best = min(best, sphericalDistance(from: c, x1, y1, x2, y2))
            }
        }
        return best
    }

    /// Up to here the frame's nearest point is within 0.1 % of the nearest on the sphere below 80°
    /// (the margin test's fast path relies on the frame alone up to 1 km margins), and up to ten
    /// times it of tan φ × distance within a tenth of SPEC's 0.5 %.
    static let frameTrusted = 1050.0

    /// The least haversine distance from `c` to the edge from (`x1`, `y1`) to (`x2`, `y2`), straight in
    /// longitude and latitude (moved a turn round as the frame moves it): the best of 16 samples,
    /// then a golden-section search between its neighbours.
    static func sphericalDistance(from c: Coordinate, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        var a = x1 - c.longitude, b = x2 - c.longitude
        if min(a, b) > 180 { a -= 360; b -= 360 } else if max(a, b) < -180 { a += 360; b += 360 }
        let lon1 = c.longitude + a, lon2 = c.longitude + b
        func at(_ t: Double) -> Double {
            Geodesy.distance(c, Coordinate(latitude: y1 + t * (y2 - y1), longitude: lon1 + t * (lon2 - lon1)))
        }
        let samples = 16
        var bestT = 0.0, best = at(0)
        for k in 1...samples {
            let t = Double(k) / Double(samples), d = at(t)
            if d < best { best = d; bestT = t }
        }
        var low = max(0, bestT - 1 / Double(samples)), high = min(1, bestT + 1 / Double(samples))
        let ratio = (5.0.squareRoot() - 1) / 2
        var m1 = high - ratio * (high - low), m2 = low + ratio * (high - low)
        var d1 = at(m1), d2 = at(m2)
        for _ in 0..<48 {
            if d1 < d2 {
                high = m2; m2 = m1; d2 = d1
                m1 = high - ratio * (high - low); d1 = at(m1)
            } else {
                low = m1; m1 = m2; d1 = d2
                m2 = low + ratio * (high - low); d2 = at(m2)
            }
        }
        return min(best, d1, d2)
    }

    /// Polygons with at most this many edges scan them all for `nearestBoundaryDistance`.
    static let fewEdges = 256

    /// `forEachEdge`'s walk over the edge lists of the cells `rows` × `columns`, either width.
    @inline(__always)
    private func forEachListedEdge<Index: FixedWidthInteger>(rows: ClosedRange<Int>, columns cellColumns: ClosedRange<Int>,
                                                            start: [Index], list: [Index],
                                                            _ body: (Double, Double, Double, Double) -> Bool) {
        let v = vertices
        // An edge runs through several adjacent cells: a polygon whose edges are numbered below 64
        // (by their first vertex) marks those it has given, so that each is measured once.
        let marksEdges = v.count <= 2 * 64
        var given: UInt64 = 0
        for r in rows {
            for col in cellColumns {
                let cell = r * columns + col
                for i in Int(start[cell])..<Int(start[cell + 1]) {
                    let edge = Int(list[i])
                    if marksEdges {
                        let bit: UInt64 = 1 << UInt64(edge)
                        if given & bit != 0 { continue }
                        given |= bit
                    }
                    let base = edge * 2
                    if !body(v[base], v[base + 1], v[base + 2], v[base + 3]) { return }
                }
            }
        }
    }

    /// Calls `body` with every edge that reaches into `box` (and possibly a few more; edges may repeat),
    /// until it returns false.
    @inline(__always)
    private func forEachEdge(near box: BoundingBox, _ body: (Double, Double, Double, Double) -> Bool) {
        let lowY = max(box.minLatitude, minY), highY = min(box.maxLatitude, maxY)
        guard lowY <= highY else { return }
        let v = vertices
        // A box over few raster cells: the edges through those cells are every edge inside it.
        if box.minLongitude >= -180, box.maxLongitude <= 180 {
            let lowX = max(box.minLongitude, minX), highX = min(box.maxLongitude, maxX)
            guard lowX <= highX else { return }
            let raster = self.raster
            let (c0, r0) = raster.columnAndRow(lowX, lowY), (c1, r1) = raster.columnAndRow(highX, highY)
            if (c1 - c0 + 1) * (r1 - r0 + 1) <= 64 {
                if smallEdges.isEmpty {
                    forEachListedEdge(rows: r0...r1, columns: c0...c1, start: cellEdgeStart, list: cellEdges, body)
                } else {
                    forEachListedEdge(rows: r0...r1, columns: c0...c1, start: smallEdgeStart, list: smallEdges, body)
                }
                return
            }
        }
        let k0 = min(stripeCount - 1, max(0, Int((lowY - minY) * stripeScale)))
        let k1 = min(stripeCount - 1, max(0, Int((highY - minY) * stripeScale)))
        let stripeStart = self.stripeStart, stripeEdges = self.stripeEdges
        for k in k0...k1 {
            for i in Int(stripeStart[k])..<Int(stripeStart[k + 1]) {
                let base = Int(stripeEdges[i]) * 2
                let x1 = v[base], y1 = v[base + 1], x2 = v[base + 2], y2 = v[base + 3]
                // Edges wholly outside the box in longitude (either way round) cannot come closer.
                if max(x1, x2) < box.minLongitude - 360 || min(x1, x2) > box.maxLongitude + 360 { continue }
                if !box.overlapsLongitudes(min(x1, x2), max(x1, x2)) { continue }
                if !body(x1, y1, x2, y2) { return }
            }
        }
    }
}
