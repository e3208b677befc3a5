import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The bugs the aligned geometry found, each reduced to a test of its own.
extension AlignedGeometryTests {
    /// SPEC §2 lets the size of a polygon's distance come from a local approximation good to 0.5 %
    /// within 100 km. An equirectangular frame centred on the fix scales longitudes by the fix's
    /// latitude alone: between an edge to the north-east and one to the south-east at equal frame
    /// distance — any point on the line of a diamond's east and west vertices — it cannot see that the
    /// poleward edge is nearer. At 72° it measured the south-east edge, 99.11 km where the boundary is
    /// 97.83 km away (1.3 %), so a fix with a margin of 98.9 km read confidently inside. Beyond 1 km
    /// the likely edges are now measured on the sphere.
    @Test func frameTieAtHighLatitudeMeasuresTheNearerEdge() {
        let ring = [(-164.0, 66.0), (-158, 72), (-164, 78), (-170, 72), (-164, 66)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let shape = PolygonShape([GeoPolygon(exterior: ring)])
        let p = Coordinate(latitude: 72, longitude: -161)
        let fine = DifferentialTests.fineDistance(from: p, edges: Array(zip(ring, ring.dropFirst())))
        #expect(abs(fine - 97_833.3) < 1)
        let context = GEOSContext()
        #expect(PolygonGeometry.make([GeoPolygon(exterior: ring)], in: context).covers(GEOSGeometryHandle.point(p, in: context)))
        #expect(shape.distanceToBoundary(from: p) <= fine * 1.005)
        // d = 97.83 km < m: within the margin, no side.
        #expect(shape.side(of: p, margin: 98_900) == nil)
    }

    /// Near a pole, a frame that scales every longitude difference by the cosine of the fix's latitude
    /// measures round the pole, not across it. A cap whose vertex is the North Pole, and a fix 64 m
    /// from the pole on the far meridian (GEOS: outside): the pole, on the boundary, is 64 m away; the
    /// frame measured 127.9 m, so with an accuracy of 65 m the fix was confidently outside and the pair
    /// became unsatisfied, where SPEC §2 changes nothing.
    @Test func nearThePoleTheDistanceIsMeasuredAcrossIt() throws {
        let cap = [(0.0, 89.0), (10, 89), (5, 90), (0, 89)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let p = Coordinate(latitude: 89.99942443496721, longitude: 180)
        let fine = DifferentialTests.fineDistance(from: p, edges: Array(zip(cap, cap.dropFirst())))
        #expect(abs(fine - 64) < 0.01)
        let context = GEOSContext()
        #expect(!PolygonGeometry.make([GeoPolygon(exterior: cap)], in: context).covers(GEOSGeometryHandle.point(p, in: context)))
        let shape = PolygonShape([GeoPolygon(exterior: cap)])
        var engine = MonitoringEngine()
        try engine.add(.polygon(PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: cap)])), identifier: "cap")
        var events: [MonitorEvent] = []
        try engine.process(.fix(Fix(time: Timestamp(nanosecondsSinceEpoch: 0), coordinate: p, horizontalAccuracy: 65)), device: "d", cause: 1,
                           into: &events)
        #expect(shape.distanceToBoundary(from: p) <= fine * 1.005)
        #expect(shape.side(of: p, margin: 65) == nil)
        #expect(events.isEmpty)
    }

    /// `PolygonLocator`'s margin test answers "no boundary within the margin" from the raster alone
    /// when the point's cell is k cells from the nearest boundary cell. At the pole every longitude
    /// meets: a boundary point there in another column is 0 m away. An L whose top edge runs along the
    /// pole from 2.75° to 6° east; the point (0°, 90°) is in its notch (GEOS: outside) and is the pole,
    /// on that edge: with margins of 1 to 3 m it was called confidently outside.
    @Test func rasterClearanceIsNoShortcutAtThePole() {
        let ring = [(0.0, 84.0), (6, 84), (6, 90), (2.75, 90), (2.75, 87), (0, 87), (0, 84)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let shape = PolygonShape([GeoPolygon(exterior: ring)])
        let p = Coordinate(latitude: 90, longitude: 0)
        #expect(DifferentialTests.fineDistance(from: p, edges: Array(zip(ring, ring.dropFirst()))) < 1e-6)
        #expect(!shape.covers(p))
        #expect(shape.distanceToBoundary(from: p) < 1e-6)
        for margin in [1.0, 2, 3] {
            #expect(shape.side(of: p, margin: margin) == nil, "margin \(margin)")
            #expect(shape.locator.boundary(within: margin, of: p, inclusive: true), "margin \(margin)")
        }
    }

    /// The raster's clearance counts whole cells of longitude at the box's most poleward latitude,
    /// cos φ × Δλ, which holds as a distance only while Δλ is small: round the top of the globe the
    /// sphere's distance is shorter than that line. Two strips at 169°–170° east and west reaching
    /// 89.6° north: from (89.55°, 0°), 19 cells of 8.7° from either, they are 94 km away, while the
    /// cells read as 102 km; with a margin between, "no boundary within the margin" was wrong.
    @Test func rasterClearanceHoldsOnlyOverNarrowLongitudes() {
        func part(_ west: Double, _ east: Double, _ south: Double, _ north: Double) -> GeoPolygon {
            GeoPolygon(exterior: [(west, south), (east, south), (east, north), (west, north), (west, south)]
                .map { Coordinate(latitude: $0.1, longitude: $0.0) })
        }
        let parts = [part(-170, -169, 60, 89.6), part(169, 170, 60, 89.6)]
        let shape = PolygonShape(parts)
        let edges = parts.flatMap(\.rings).flatMap { Array(zip($0, $0.dropFirst())) }
        var decided = 0
        for longitude in stride(from: -150.0, through: 150, by: 5) {
            for latitude in [89.0, 89.3, 89.55] {
                let p = Coordinate(latitude: latitude, longitude: longitude)
                let d = DifferentialTests.fineDistance(from: p, edges: edges)
                for margin in [d * 0.95, d * 1.05] {
                    #expect(shape.locator.boundary(within: margin, of: p, inclusive: false) == (margin > d), "\(p) margin \(margin) distance \(d)")
                    decided += 1
                }
            }
        }
        #expect(decided > 300)
    }

    /// `Geodesy.expanded(_:metres:)` holds every point within `metres` of the box; for a box reaching
    /// a pole it widened the longitudes by 180° less the box's eastern edge, not all round: for a cap
    /// from 10° to 20° east with its vertex at the North Pole, −150° to 180°. The cover grid listed the
    /// polygon in those columns only, so a fix at the pole at 160° west, on the cap's boundary, found
    /// it in no cell: an `unsatisfied` event with an accuracy of 5 m (two far squares, one each side of
    /// the antimeridian, stretch the grid round the globe so that it holds the cap).
    @Test func coverGridHoldsEveryLongitudeAtThePole() throws {
        func polygon(_ points: [(Double, Double)]) -> GeoPolygon {
            GeoPolygon(exterior: (points + [points[0]]).map { Coordinate(latitude: $0.1, longitude: $0.0) })
        }
        let cap = polygon([(10, 84), (20, 84), (15, 90)])
        var engine = MonitoringEngine()
        try engine.add(.polygon(PolygonalGeographicCondition(polygons: [cap])), identifier: "cap")
        try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon([(174, 70), (180, 70), (180, 76), (174, 76)])])), identifier: "east")
        try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon([(-180, 70), (-174, 70), (-174, 76), (-180, 76)])])), identifier: "west")
        engine.prepare()
        #expect(engine.catalog.coverGrid.rows > 1 && !engine.catalog.coverGrid.excluded.contains(0), "the grid holds the cap")
        let p = Coordinate(latitude: 90, longitude: -160)
        var events: [MonitorEvent] = []
        try engine.process(.fix(Fix(time: Timestamp(nanosecondsSinceEpoch: 0), coordinate: p, horizontalAccuracy: 5)), device: "d", cause: 1,
                           into: &events)
        let expanded = Geodesy.expanded(BoundingBox(enclosing: cap.exterior)!, metres: 100)
        #expect(expanded.minLongitude <= -160, "\(expanded)")
        #expect(events.map(\.identifier) == ["east", "west"])
    }
}
