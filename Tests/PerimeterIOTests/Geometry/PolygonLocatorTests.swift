import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Perimeter's own point-in-polygon against GEOS, on a million points: real country outlines, random
/// spiky polygons, holes; points uniform, on vertices, on edge midpoints, exactly on edges, near edges.
@Suite struct PolygonLocatorTests {
    /// `PERIMETER_DIFFERENTIAL_POINTS` overrides the number of points (default one million).
    static let pointCount = ProcessInfo.processInfo.environment["PERIMETER_DIFFERENTIAL_POINTS"].flatMap(Int.init) ?? 1_000_000

    static func countries() throws -> [(String, [GeoPolygon])] {
        try ConditionsReader.read(contentsOf: Fixture.path("natural-earth/countries.geojson")).map { d in
            guard case .polygon(let p) = d.condition else { fatalError("countries are polygons") }
            return (d.identifier, p.polygons)
        }
    }

    /// A star-shaped polygon of `n` vertices with wildly varying radii ("spiky"), optionally with a hole.
    static func spiky(_ n: Int, centre: Coordinate, radius: Double, rng: inout SplitMix64, hole: Bool = false) -> GeoPolygon {
        var ring: [Coordinate] = (0..<n).map { k in
            let angle = Double(k) / Double(n) * 2 * .pi
            let r = radius * Double.random(in: 0.1...1.0, using: &rng)
            return Coordinate(latitude: centre.latitude + r * sin(angle), longitude: centre.longitude + r * cos(angle))
        }
        ring.append(ring[0])
        var polygon = GeoPolygon(exterior: ring)
        if hole {
            let h = radius * 0.05
            polygon.holes = [[Coordinate(latitude: centre.latitude - h, longitude: centre.longitude - h),
                              Coordinate(latitude: centre.latitude + h, longitude: centre.longitude - h),
                              Coordinate(latitude: centre.latitude + h, longitude: centre.longitude + h),
                              Coordinate(latitude: centre.latitude - h, longitude: centre.longitude + h),
                              Coordinate(latitude: centre.latitude - h, longitude: centre.longitude - h)]]
        }
        return polygon
    }

    /// Points that exercise every rule of the ray-crossing count.
    static func points(for polygons: [GeoPolygon], count: Int, rng: inout SplitMix64) -> [Coordinate] {
        let box = BoundingBox(enclosing: polygons.flatMap(\.exterior))!
        let rings = polygons.flatMap(\.rings)
        var points: [Coordinate] = []
        points.reserveCapacity(count)
        while points.count < count {
            let ring = rings.randomElement(using: &rng)!
            let i = Int.random(in: 0..<(ring.count - 1), using: &rng)
            let a = ring[i], b = ring[i + 1]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: points.append(a)  // a vertex
            case 1: points.append(Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2))
            case 2:  // on the edge's line at a random parameter (rounded: on, or a hair off, the edge)
                let t = Double.random(in: 0...1, using: &rng)
                points.append(Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude)))
            case 3:  // same latitude as a vertex (the ray passes through it)
                points.append(Coordinate(latitude: a.latitude, longitude: .random(in: box.minLongitude...box.maxLongitude, using: &rng)))
            case 4:  // a hair from a vertex
                points.append(Coordinate(latitude: a.latitude.nextUp, longitude: a.longitude.nextDown))
            case 5, 6:  // near the edge
                let t = Double.random(in: 0...1, using: &rng)
                let span = max(abs(b.latitude - a.latitude), abs(b.longitude - a.longitude)) * 0.05
                points.append(Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude) + .random(in: -span...span, using: &rng),
                                         longitude: a.longitude + t * (b.longitude - a.longitude) + .random(in: -span...span, using: &rng)))
            default:  // anywhere in (and a little around) the box
                let padX = (box.maxLongitude - box.minLongitude) * 0.05, padY = (box.maxLatitude - box.minLatitude) * 0.05
                points.append(Coordinate(latitude: .random(in: (box.minLatitude - padY)...(box.maxLatitude + padY), using: &rng),
                                         longitude: .random(in: (box.minLongitude - padX)...(box.maxLongitude + padX), using: &rng)))
            }
        }
        return points
    }

    @Test func locatorEqualsGEOSCoversOnAMillionPoints() throws {
        var rng = SplitMix64(seed: 2026)
        var shapes: [(String, [GeoPolygon])] = try Self.countries()
        shapes.append(("spiky-4096", [Self.spiky(4096, centre: Coordinate(latitude: 48.85, longitude: 2.35), radius: 0.25, rng: &rng)]))
        shapes.append(("spiky-hole", [Self.spiky(512, centre: Coordinate(latitude: -33.9, longitude: 151.2), radius: 0.1, rng: &rng, hole: true)]))
        shapes.append(("tiny", [Self.spiky(16, centre: Coordinate(latitude: 0, longitude: 0), radius: 1e-7, rng: &rng)]))

        let perShape = max(1000, Self.pointCount / shapes.count)
        let context = GEOSContext()
        var total = 0, inside = 0, boundaryTested = 0
        var mismatches: [String] = []
        for (name, polygons) in shapes {
            let locator = PolygonLocator(polygons)
            // The row sweep gives every boundary cell's centre the side a stripe count gives it.
            if !locator.referencesEqualStripeCounts(), mismatches.count < 20 { mismatches.append("\(name): cell references") }
            let prepared = GEOSPreparedGeometryHandle(preparing: PolygonGeometry.make(polygons, in: context))
            let count = name.hasPrefix("spiky-4096") ? perShape * 20 : perShape
            let points = Self.points(for: polygons, count: count, rng: &rng)
            // The batch form too, with its own answers.
            var batch = [Bool](repeating: false, count: points.count)
            points.withUnsafeBufferPointer { points in batch.withUnsafeMutableBufferPointer { locator.covers(points, into: $0) } }
            for (k, p) in points.enumerated() {
                let expected = prepared.covers(GEOSGeometryHandle.point(p, in: context))
                let got = locator.covers(p.longitude, p.latitude)
                if batch[k] != expected, mismatches.count < 20 {
                    mismatches.append("\(name) batch [\(p.longitude), \(p.latitude)]: GEOS \(expected)")
                }
                total += 1
                if expected { inside += 1 }
                if got != expected, mismatches.count < 20 {
                    mismatches.append("\(name) [\(p.longitude), \(p.latitude)]: GEOS \(expected)")
                }
                // The stripes alone (no raster) must agree too.
                if total % 7 == 0 {
                    boundaryTested += 1
                    if locator.stripeCovers(p.longitude, p.latitude) != expected && p.longitude >= locator.minX && p.longitude <= locator.maxX
                        && p.latitude >= locator.minY && p.latitude <= locator.maxY, mismatches.count < 20 {
                        mismatches.append("\(name) stripes [\(p.longitude), \(p.latitude)]: GEOS \(expected)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(total >= Self.pointCount)
        #expect(inside > total / 5)
    }

    /// A point whose path to its cell's centre runs through a vertex or along an edge (the cell
    /// answer's degenerate case) gets GEOS's answer: a 16 × 16 raster over [0, 16]², whose cell
    /// centres are at k + 0.5, under a zigzag with its vertices on those centres' columns.
    @Test func cellAnswerEqualsGEOSWhenItsPathMeetsAVertex() throws {
        var ring = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 16),
                    Coordinate(latitude: 16, longitude: 16)]
        for k in stride(from: 15, through: 0, by: -1) {
            ring.append(Coordinate(latitude: k % 2 == 0 ? 10.25 : 12.5, longitude: Double(k) + 0.5))
        }
        ring += [Coordinate(latitude: 16, longitude: 0), Coordinate(latitude: 0, longitude: 0)]
        let polygons = [GeoPolygon(exterior: ring)]
        let locator = PolygonLocator(polygons)
        #expect(locator.referencesEqualStripeCounts())
        let context = GEOSContext()
        let prepared = GEOSPreparedGeometryHandle(preparing: PolygonGeometry.make(polygons, in: context))
        var points: [Coordinate] = []
        for vertex in ring {
            for dx in stride(from: -2.0, through: 2.0, by: 0.125) {  // along the vertex's row
                points.append(Coordinate(latitude: vertex.latitude, longitude: vertex.longitude + dx))
            }
            for dy in stride(from: -0.5, through: 0.5, by: 0.0625) {  // along its column
                points.append(Coordinate(latitude: vertex.latitude + dy, longitude: vertex.longitude))
            }
        }
        var batch = [Bool](repeating: false, count: points.count)
        points.withUnsafeBufferPointer { p in batch.withUnsafeMutableBufferPointer { locator.covers(p, into: $0) } }
        var mismatches: [String] = []
        for (k, p) in points.enumerated() {
            let expected = prepared.covers(GEOSGeometryHandle.point(p, in: context))
            if locator.covers(p.longitude, p.latitude) != expected || batch[k] != expected {
                mismatches.append("[\(p.longitude), \(p.latitude)]: GEOS \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func plainAndPreparedGEOSAgreeWithTheLocatorOnBoundaryPoints() throws {
        // The unprepared predicate is slow; a smaller set of the hardest points.
        var rng = SplitMix64(seed: 11)
        let context = GEOSContext()
        for (_, polygons) in try Self.countries().filter({ ["RUS", "CAN", "ZAF", "FJI", "ATA"].contains($0.0) }) {
            let locator = PolygonLocator(polygons)
            let geometry = PolygonGeometry.make(polygons, in: context)
            for p in Self.points(for: polygons, count: 2000, rng: &rng) {
                #expect(locator.covers(p.longitude, p.latitude) == geometry.covers(GEOSGeometryHandle.point(p, in: context)))
            }
        }
    }

    @Test func orientationMatchesTheDoubleDoubleEvaluationWhereTheFilterDecides() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<100_000 {
            let a = (Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng))
            let b = (Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng))
            let t = Double.random(in: -1...2, using: &rng)
            let q = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))  // on or within rounding of the line
            let filtered = RobustOrientation.index(a.0, a.1, b.0, b.1, q.0, q.1)
            let exact = RobustOrientation.exactIndex(a.0, a.1, b.0, b.1, q.0, q.1)
            #expect(filtered == exact)
        }
    }

    /// The margin test through the indexes equals the plain scan of every edge, except within 1 % of
    /// the margin, where two equally valid local approximations (SPEC: good to 0.5 %) may differ.
    @Test func marginTestEqualsThePlainEdgeScan() throws {
        var rng = SplitMix64(seed: 8)
        var shapes = try Self.countries().filter { ["NOR", "CHL", "IDN", "ZAF", "RUS"].contains($0.0) }.map(\.1)
        shapes.append([Self.spiky(1024, centre: Coordinate(latitude: 60, longitude: 10), radius: 0.2, rng: &rng)])
        // Geofence-sized polygons of few edges, whose single stripe serves the margins wider than them.
        for n in [16, 40, 64] {
            shapes.append([Self.spiky(n, centre: Coordinate(latitude: 48.85, longitude: 2.35), radius: 0.004, rng: &rng)])
        }
        var decided = 0
        for polygons in shapes {
            let shape = PolygonShape(polygons)
            for p in Self.points(for: polygons, count: 1500, rng: &rng) {
                let margin = [1.0, 30, 250, 2000, 40_000].randomElement(using: &rng)!
                let d = shape.distanceToBoundary(from: p)
                guard abs(d - margin) > 0.01 * margin else { continue }
                decided += 1
                let inside = shape.covers(p)
                let expected: Side? = inside ? (d >= margin ? .inside : nil) : (d > margin ? .outside : nil)
                #expect(shape.side(of: p, margin: margin) == expected, "\(p) margin \(margin) distance \(d)")
            }
        }
        #expect(decided > 5000)
    }

    /// A raster cell whose centre lies on an edge is a boundary cell with no reference: its details
    /// byte must never read as a clearance. Here column 5's centres lie on the notch's edge, and the
    /// cells are 1° across, far wider than the margins, so a clearance misread as two cells would
    /// answer "no boundary within the margin" for points on the boundary itself.
    @Test func aCellWhoseCentreIsOnTheBoundaryHasNoClearance() {
        let ring = [(0.0, 0.0), (12, 0), (12, 12), (5.5, 12), (5.5, 6), (0, 6), (0, 0)]
            .map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let shape = PolygonShape([GeoPolygon(exterior: ring)])
        for latitude in [6.5, 7.5, 9.5, 11.5] {
            let p = Coordinate(latitude: latitude, longitude: 5.5)
            #expect(shape.covers(p))
            for margin in [1.0, 50, 500] {
                #expect(shape.locator.boundary(within: margin, of: p, inclusive: false), "\(p) margin \(margin)")
                #expect(shape.side(of: p, margin: margin) == nil, "\(p) margin \(margin)")
            }
            // A point a little way off the edge, inside: the boundary is 1 m away.
            let q = Coordinate(latitude: latitude, longitude: 5.5 + 1 / (Geodesy.metresPerDegree * cos(latitude * Geodesy.radiansPerDegree)))
            #expect(shape.locator.boundary(within: 2, of: q, inclusive: false))
            #expect(!shape.locator.boundary(within: 0.5, of: q, inclusive: false))
        }
    }

    /// A polygon of few edges keeps each vertex once: its vertex list has no spare capacity beyond the
    /// allocator's rounding (glibc may hand back up to 31 bytes more than asked: under two vertices),
    /// and its one stripe lists every edge once (40 edges over 40 stripes listed each edge six times).
    @Test func aSmallPolygonKeepsEachEdgeOnce() {
        var rng = SplitMix64(seed: 12)
        for n in [16, 40, 64, 65] {
            let locator = PolygonShape([Self.spiky(n, centre: Coordinate(latitude: 48.85, longitude: 2.35), radius: 0.004, rng: &rng)]).locator
            #expect(locator.edgeCount == n)
            #expect(locator.vertices.capacity >= 2 * (n + 1) && locator.vertices.capacity < 2 * (n + 1) + 4)
            if n <= PolygonLocator.fewStripedEdges {
                #expect(locator.stripeEdgeCount == n)
            } else {
                #expect(locator.stripeEdgeCount > n)
            }
        }
    }

    /// The fast margin test (early answers from the frame distance) gives exactly the full measure's
    /// answer — the haversine distance to the frame-nearest boundary point against the margin — with
    /// margins at, and a hair either side of, that distance, where the shortcut must step aside.
    @Test func fastMarginTestEqualsTheFullMeasureAtTheThreshold() throws {
        var rng = SplitMix64(seed: 11)
        var shapes = try Self.countries().filter { ["NOR", "CHE", "ZAF"].contains($0.0) }.map(\.1)
        shapes.append([Self.spiky(1024, centre: Coordinate(latitude: 48.85, longitude: 2.35), radius: 0.01, rng: &rng)])
        shapes.append([Self.spiky(64, centre: Coordinate(latitude: -33, longitude: 151), radius: 0.004, rng: &rng, hole: true)])
        var checked = 0
        for polygons in shapes {
            let locator = PolygonShape(polygons).locator
            for p in Self.points(for: polygons, count: 800, rng: &rng) {
                let d = locator.nearestBoundaryDistance(from: p, within: BoundingBox.marginBox(around: p, metres: 1500))
                guard d.isFinite, d > 0 else { continue }
                for m in [d, d.nextUp, d.nextDown, d * (1 + 1e-4), d * (1 - 1e-4), d * 1.003, d * 0.997, d * 1.5, d * 0.5] {
                    let full = locator.nearestBoundaryDistance(from: p, within: BoundingBox.marginBox(around: p, metres: m))
                    for inclusive in [false, true] {
                        let expected = inclusive ? full <= m : full < m
                        #expect(locator.boundary(within: m, of: p, inclusive: inclusive) == expected,
                                "\(p) margin \(m) distance \(full) inclusive \(inclusive)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 20_000)
    }
}
