import Foundation

// What the cover grid asks of the conditions while it lays its cells out.
extension ConditionCatalog: CoverGridShapes {
    var geographicCount: Int { geographic.count }

    func isLeftOut(_ i: Int32) -> Bool { isLeftOutOfSharedIndex(i) }

    /// Which side of geographic condition `i`'s boundary a cover-grid cell's centre is on, and a lower
    /// bound on its distance to the boundary (as `reading(_:_:)` measures it); `crossed` with 0 when
    /// that is unknown. Distances beyond `within` need not be exact (they are at least `within`).
    /// - Parameters:
    ///   - centre: the cell's centre, and the same as a unit vector.
    func centreRelation(_ i: Int32, centre: Coordinate, unit: (x: Double, y: Double, z: Double),
                        within: Double) -> (CoverGrid.Relation, Double) {
        let s = geographic[Int(i)]
        if !s.isPolygon {
            let shape = circleShapes[Int(s.slot)], r = shape.radius
            let dc = shape.centreDistance(to: centre, unit: unit.x, unit.y, unit.z, centre: circleCentres[Int(s.slot)])
            // (Within the distance's error of the radius, the side is not known.)
            if dc + CircleShape.distanceError < r { return (.inside, r - dc - CircleShape.distanceError) }
            if dc - CircleShape.distanceError > r { return (.outside, dc - r - CircleShape.distanceError) }
            return (.crossed, 0)
        }
        guard abs(centre.latitude) < 80 else { return (.crossed, 0) }
        let shape = polygonShapes[Int(s.slot)]
        // A centre the raster keeps clear of the boundary needs no edge: its cell's clearance is a
        // lower bound, as a reading trusts it. Measuring edges instead cost a large polygon most of
        // its set-up (the airspace workload: sines and cosines for every edge near every centre).
        // Near the boundary, no edge beyond the one the raster knows of can be the nearest. (A
        // polygon of few edges has a coarse raster, and measuring all its edges costs little.)
        var radius = within + 10
        if shape.locator.edgeCount > PolygonLocator.fewEdges {
            switch shape.locator.rasterDistance(centre.longitude, centre.latitude) {
            case .clear(let inside, let metres): return (inside ? .inside : .outside, metres)
            case .near(let metres): radius = min(radius, metres)
            case .unknown: break
            }
        }
        let nearest = shape.locator.nearestBoundaryDistance(from: centre, within: Geodesy.boundingBox(around: centre, metres: radius / 0.98))
        // The frame's measure is within 2 % of the true distance at these sizes and latitudes, and
        // is never below it: 0.98 × it bounds the measure from below.
        return Self.centreRelation(shape, centre: centre, clearance: nearest.isFinite ? 0.98 * nearest : radius)
    }

    /// `centreRelation(_:centre:unit:within:)` for polygon `i` when `rowFrameShape(_:)` gave its
    /// shape and `edges` holds its edges in the frame of the centre's latitude: the same nearest
    /// boundary point, found without setting the frame up again for each cell of the row.
    func centreRelation(_ shape: PolygonShape, centre: Coordinate, edges: RowFrameEdges) -> (CoverGrid.Relation, Double) {
        guard abs(centre.latitude) < 80, let point = edges.nearestPoint(toLongitude: centre.longitude) else { return (.crossed, 0) }
        return Self.centreRelation(shape, centre: centre, clearance: 0.98 * Geodesy.distance(centre, point))
    }

    /// A polygon cell centre's side given how far it stays from the boundary.
    private static func centreRelation(_ shape: PolygonShape, centre: Coordinate, clearance: Double) -> (CoverGrid.Relation, Double) {
        guard clearance > 0 else { return (.crossed, 0) }
        return (shape.covers(centre) ? .inside : .outside, clearance)
    }

    /// Geographic condition `i`'s shape when it is a polygon whose cover-grid cells can be classified
    /// row by row (`relation(_:centre:edges:halfDiagonal:)`): few enough edges that the nearest is
    /// found among all of them, and clear of the antimeridian, which that frame does not wrap.
    func rowFrameShape(_ i: Int32) -> PolygonShape? {
        let s = geographic[Int(i)]
        guard s.isPolygon else { return nil }
        let shape = polygonShapes[Int(s.slot)]
        guard shape.locator.edgeCount <= PolygonLocator.fewEdges,
              shape.boundingBox.minLongitude > -179, shape.boundingBox.maxLongitude < 179 else { return nil }
        return shape
    }
}
