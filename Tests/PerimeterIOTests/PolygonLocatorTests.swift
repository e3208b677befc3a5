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

/// The cover grid's shortcuts (cells known inside or outside with a clearance) against testing every
/// condition exactly, for margins within and beyond its reach.
@Suite struct CoverGridTests {
    /// Cells classified a row at a time (`RowFrameEdges`) get what the cell-by-cell measure gives them,
    /// which is the test's oracle: the same relation, and the same clearance to rounding.
    @Test(arguments: [48.85, 69.5, -33.9, 79.9])
    func rowByRowClassificationEqualsCellByCell(latitude: Double) throws {
        var rng = SplitMix64(seed: UInt64(abs(latitude) * 10))
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: latitude, longitude: 2.35)
        for i in 0..<60 {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: origin.longitude + .random(in: -0.04...0.04, using: &rng))
            let polygon = PolygonLocatorTests.spiky(Int.random(in: 4...200, using: &rng), centre: c,
                                                    radius: .random(in: 0.0003...0.01, using: &rng), rng: &rng,
                                                    hole: i % 5 == 0)
            try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
        }
        let catalog = engine.catalog
        var compared = 0, decided = 0
        var edges = RowFrameEdges()
        for i in 0..<Int32(60) {
            let shape = try #require(catalog.rowFrameShape(i))
            let box = catalog.boundingBox(i)
            for _ in 0..<8 {
                let rowLatitude = Double.random(in: (box.minLatitude - 0.002)...(box.maxLatitude + 0.002), using: &rng)
                edges.load(shape.locator, latitude: rowLatitude, originLongitude: box.minLongitude - 0.01)
                for _ in 0..<40 {
                    let centre = Coordinate(latitude: rowLatitude,
                                            longitude: .random(in: (box.minLongitude - 0.003)...(box.maxLongitude + 0.003), using: &rng))
                    let h = Double.random(in: 5...80, using: &rng)
                    let expected = catalog.centreRelation(i, centre: centre, unit: (0, 0, 0), within: h + 100)
                    let got = catalog.centreRelation(shape, centre: centre, edges: edges)
                    compared += 1
                    // (A cell is decided whole when its centre is further from the boundary than its corners.)
                    if expected.0 != .crossed && expected.1 > h { decided += 1 }
                    #expect(got.0 == expected.0 || abs(expected.1) < 1e-6, "\(i) at \(centre), h \(h): \(got) against \(expected)")
                    // (Beyond the search radius the plain version reports the radius, a lower bound.)
                    #expect(abs(got.1 - expected.1) <= 1e-6 || (expected.1 >= h + 100 && got.1 >= expected.1),
                            "\(i) at \(centre), h \(h): \(got) against \(expected)")
                }
            }
        }
        #expect(compared == 60 * 8 * 40)
        #expect(latitude >= 80 || decided > compared / 4)
    }

    /// The grid's readings equal the exact ones (its unmeasured readings the exact side); and the
    /// clearances it hands on for the anchors never exceed the distance to the boundary (the plain
    /// edge scan's, or a circle's haversine).
    @Test(arguments: [48.85, 69.5])
    func gridSidesEqualExactSidesForEveryCondition(latitude: Double) throws {
        var rng = SplitMix64(seed: UInt64(latitude * 100))
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: latitude, longitude: 2.35)
        var distance: [(Coordinate) -> Double] = []
        for i in 0..<400 {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.03...0.03, using: &rng),
                               longitude: origin.longitude + .random(in: -0.06...0.06, using: &rng))
            if i % 2 == 0 {
                let circle = try CircularGeographicCondition(center: c, radius: .random(in: 30...600, using: &rng))
                try engine.add(.circle(circle), identifier: "c\(i)")
                distance.append { abs(circle.signedDistance(to: $0)) }
            } else {
                let polygon = PolygonLocatorTests.spiky(Int.random(in: 8...40, using: &rng), centre: c,
                                                        radius: .random(in: 0.0005...0.005, using: &rng), rng: &rng)
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
                let shape = PolygonShape([polygon])
                distance.append { shape.distanceToBoundary(from: $0) }
            }
        }
        _ = engine.makeContainmentQuery()  // builds the index and the grid
        let catalog = engine.catalog
        #expect(!catalog.coverGrid.isEmpty)
        // Built on several threads, the grid is the same.
        #expect(CoverGrid(shapes: catalog, threads: 3) == catalog.coverGrid)
        var stamps = [UInt32](repeating: 0, count: 400)
        var mismatches: [String] = []
        var decidedByGrid = 0, clearancesGiven = 0, clearancesBeyondMargin = 0, unmeasured = 0
        for n in 0..<20_000 {
            let p = Coordinate(latitude: origin.latitude + .random(in: -0.035...0.035, using: &rng),
                               longitude: origin.longitude + .random(in: -0.07...0.07, using: &rng))
            let margin = [0.0, 5, 20, 65, 100, 150].randomElement(using: &rng)!
            var frame = FixFrame(p, margin: margin)
            var candidates: [Int32] = [], readings: [Reading] = [], clearances: [Double] = []
            catalog.collectReadings(&frame, stamps: &stamps, stamp: UInt32(n + 1), asksAhead: true,
                                    candidates: &candidates, readings: &readings, clearances: &clearances)
            var found: [Int32: Reading] = [:]
            for (k, i) in candidates.enumerated() {
                found[i] = readings[k]
                guard clearances[k] > 0 else { continue }
                clearancesGiven += 1
                if clearances[k] > margin + 20 { clearancesBeyondMargin += 1 }
                let d = distance[Int(i)](p)
                if clearances[k] > d { mismatches.append("\(i) at \(p): clearance \(clearances[k]) > distance \(d)") }
                if readings[k].side == nil && !readings[k].isUnmeasured {
                    mismatches.append("\(i) at \(p): clearance \(clearances[k]) within the margin")
                }
            }
            for i in 0..<Int32(400) {
                var exactFrame = FixFrame(p, margin: margin)
                let exact = catalog.reading(i, &exactFrame)
                if let got = found[i], got.isUnmeasured {
                    unmeasured += 1
                    if got.sign != exact.sign { mismatches.append("\(i) at \(p) m=\(margin): grid \(String(describing: got)), exact \(String(describing: exact))") }
                } else if let got = found[i] {
                    if got != exact { mismatches.append("\(i) at \(p) m=\(margin): grid \(String(describing: got)), exact \(String(describing: exact))") }
                } else if exact != .outside {
                    mismatches.append("\(i) at \(p) m=\(margin): left out, exact \(String(describing: exact))")
                } else {
                    decidedByGrid += 1
                }
            }
        }
        #expect(mismatches.count == 0, "\(mismatches.prefix(5))")
        #expect(decidedByGrid > 1_000_000)
        #expect(clearancesGiven > 20_000)
        #expect(clearancesBeyondMargin > clearancesGiven / 4)
        #expect(unmeasured > 1_000)
    }

    /// Every circle entry of every cell keeps a clearance no larger than the haversine distance from
    /// the cell's centre to the circle, on the centre's side: the grid measures it from the circle's
    /// single-precision unit vector, and must take that rounding off.
    @Test func circleEntriesNeverOverstateTheirClearance() throws {
        var rng = SplitMix64(seed: 77)
        var engine = MonitoringEngine()
        var circles: [CircularGeographicCondition] = []
        for i in 0..<600 {
            let c = Coordinate(latitude: 52.5 + .random(in: -0.02...0.02, using: &rng), longitude: 13.4 + .random(in: -0.03...0.03, using: &rng))
            let circle = try CircularGeographicCondition(center: c, radius: .random(in: 30...400, using: &rng))
            circles.append(circle)
            try engine.add(.circle(circle), identifier: "c\(i)")
        }
        _ = engine.makeContainmentQuery()
        let grid = engine.catalog.coverGrid
        var checked = 0, overstated: [String] = []
        for r in 0..<grid.rows {
            for col in 0..<grid.columns {
                let centre = Coordinate(latitude: grid.minLatitude + (Double(r) + 0.5) * grid.latitudeStep,
                                        longitude: grid.minLongitude + (Double(col) + 0.5) * grid.longitudeStep)
                let (range, _) = grid.entries(at: centre)
                for k in range {
                    let e = grid.entry(k), clearance = grid.clearance(e)
                    guard clearance > 0 else { continue }
                    let d = circles[Int(e.condition)].signedDistance(to: centre)
                    checked += 1
                    if clearance > abs(d) + 1e-6 || (d < 0) != e.isInside {
                        overstated.append("c\(e.condition) at \(centre): clearance \(clearance), distance \(d)")
                    }
                }
            }
        }
        #expect(checked > 40_000)
        #expect(overstated.isEmpty, "\(overstated.count): \(overstated.prefix(3))")
    }

    /// Fixes whose margin is beyond the grid's reach take the condition index, which checks a circle
    /// by a box bounded around its centre rather than a stored one: near the antimeridian and a pole
    /// too, it leaves out only conditions the fix is confidently outside, and reads the rest exactly.
    @Test(arguments: [Coordinate(latitude: 10, longitude: 179.99), Coordinate(latitude: 88.95, longitude: -40)])
    func indexLeavesOutOnlyConfidentlyOutsideConditions(origin: Coordinate) throws {
        var rng = SplitMix64(seed: UInt64(abs(origin.longitude) * 100))
        var engine = MonitoringEngine()
        let count = 300
        // (About 5 km either way in longitude, at either latitude.)
        let spread = 0.05 / cos(origin.latitude * .pi / 180)
        for i in 0..<count {
            var longitude = origin.longitude + .random(in: -spread...spread, using: &rng)
            if longitude > 180 { longitude -= 360 }
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng), longitude: longitude)
            try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...1_500, using: &rng))),
                           identifier: "c\(i)")
        }
        _ = engine.makeContainmentQuery()  // builds the index and the grid
        let catalog = engine.catalog
        var stamps = [UInt32](repeating: 0, count: count)
        var mismatches: [String] = [], candidatesSeen = 0
        for n in 0..<5_000 {
            var longitude = origin.longitude + .random(in: -1.2 * spread...1.2 * spread, using: &rng)
            if longitude > 180 { longitude -= 360 }
            let p = Coordinate(latitude: origin.latitude + .random(in: -0.025...0.025, using: &rng), longitude: longitude)
            let margin = Double.random(in: 150...3_000, using: &rng)
            var frame = FixFrame(p, margin: margin)
            var candidates: [Int32] = [], readings: [Reading] = [], clearances: [Double] = []
            catalog.collectReadings(&frame, stamps: &stamps, stamp: UInt32(n + 1), asksAhead: true,
                                    candidates: &candidates, readings: &readings, clearances: &clearances)
            candidatesSeen += candidates.count
            for i in 0..<Int32(count) {
                var exactFrame = FixFrame(p, margin: margin)
                let exact = catalog.reading(i, &exactFrame)
                if let k = candidates.firstIndex(of: i) {
                    if readings[k] != exact { mismatches.append("\(i) at \(p) m=\(margin): \(readings[k]), exact \(exact)") }
                } else if exact != .outside {
                    mismatches.append("\(i) at \(p) m=\(margin): left out, exact \(exact)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(5))")
        #expect(candidatesSeen > 5_000 && candidatesSeen < 5_000 * count / 2)
    }
}

/// The stateless containment query against testing every condition on its own: each containing
/// condition exactly once, through the cover grid, the conditions too large for it, conditions
/// added after it was built, removed ones, and the condition index alone when the grid holds nothing.
@Suite struct ContainmentQueryTests {
    /// A box-shaped polygon; `east` may overshoot 180 by the hair Natural Earth's Russia does.
    static func box(south: Double, north: Double, west: Double, east: Double) throws -> Condition {
        let ring = [Coordinate(latitude: south, longitude: west), Coordinate(latitude: south, longitude: east),
                    Coordinate(latitude: north, longitude: east), Coordinate(latitude: north, longitude: west),
                    Coordinate(latitude: south, longitude: west)]
        return .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)]))
    }

    /// `count` circles and small spiky polygons, alternately, within a few kilometres of `origin`.
    static func addSmallConditions(_ count: Int, around origin: Coordinate, to engine: inout MonitoringEngine,
                                   rng: inout SplitMix64) throws {
        for i in 0..<count {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: origin.longitude + .random(in: -0.05...0.05, using: &rng))
            if i % 2 == 0 {
                try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...500, using: &rng))), identifier: "c\(i)")
            } else {
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [PolygonLocatorTests.spiky(
                    Int.random(in: 8...40, using: &rng), centre: c, radius: .random(in: 0.0005...0.004, using: &rng), rng: &rng)])),
                               identifier: "p\(i)")
            }
        }
    }

    static func expectMatchesEveryConditionAlone(_ engine: inout MonitoringEngine, points: [Coordinate]) {
        var query = engine.makeContainmentQuery()
        let catalog = engine.catalog
        var found: [Int32] = []
        var mismatches: [String] = []
        for p in points {
            found.removeAll()
            query.conditions(containing: p, into: &found)
            var expected: [Int32] = []
            for i in 0..<Int32(catalog.geographic.count) where !catalog.geographic[Int(i)].isRemoved {
                var frame = FixFrame(p, margin: 0)
                if catalog.reading(i, &frame) == .inside { expected.append(i) }
            }
            if found.sorted() != expected { mismatches.append("\(p): query \(found.sorted()), alone \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    @Test func eachContainingConditionOnceThroughGridAndIndex() throws {
        var rng = SplitMix64(seed: 21)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 64, longitude: 179.9)
        try Self.addSmallConditions(300, around: origin, to: &engine, rng: &rng)
        // Too large for the grid, and one whose box runs a hair past 180.
        try engine.add(Self.box(south: 60, north: 70, west: 170, east: 180.0000000000001), identifier: "east")
        try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 900_000)), identifier: "huge")
        _ = engine.makeContainmentQuery()
        for i in stride(from: 0, to: 300, by: 7) { engine.remove(i % 2 == 0 ? "c\(i)" : "p\(i)") }
        // Added after the grid was built (too few to rebuild it).
        try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 2_000)), identifier: "late")
        let points = (0..<5_000).map { _ in
            Coordinate(latitude: origin.latitude + .random(in: -0.03...0.03, using: &rng),
                       longitude: min(180, origin.longitude + .random(in: -0.07...0.07, using: &rng)))
        }
        Self.expectMatchesEveryConditionAlone(&engine, points: points)
    }

    /// Conditions all too large for the grid: a few are checked directly, many through the index.
    @Test(arguments: [2, 80])
    func eachContainingConditionOnceWhenTheGridHoldsNothing(count: Int) throws {
        var engine = MonitoringEngine()
        try engine.add(Self.box(south: -50, north: 80, west: -170, east: 180.0000000000001), identifier: "overshoot")
        try engine.add(Self.box(south: -80, north: 10, west: -180, east: 20), identifier: "west")
        var rng = SplitMix64(seed: 22)
        for i in 2..<count {
            // Running past 180 keeps them out of the grid.
            let south = Double.random(in: -80...0, using: &rng), west = Double.random(in: -170...0, using: &rng)
            try engine.add(Self.box(south: south, north: south + 60, west: west, east: 180.0000000000001), identifier: "b\(i)")
        }
        let points = (0..<5_000).map { _ in
            Coordinate(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng))
        }
        #expect(engine.makeContainmentQuery().isUsingConditionIndexOnly == (count > 64))
        Self.expectMatchesEveryConditionAlone(&engine, points: points)
    }
}

extension ContainmentQueryTests {
    enum BatchCase: String, CaseIterable, Sendable {
        /// Many small conditions, points in cell order.
        case grid
        /// A polygon and a circle the grid holds, points in input order.
        case box
        /// Two polygons the grid holds and nothing else: each point tested against each.
        case fewInGrid
        /// A few polygons too large for the grid (and one removed): each point tested against each.
        case fewLarge
        /// One such polygon (the batch's one-polygon loop).
        case oneLarge
    }

    /// The batch query (points taken in cell order, or tested directly against a few large polygons)
    /// gives each point exactly the one-point answer, and nothing for points that are not positions.
    @Test(arguments: BatchCase.allCases)
    func batchQueryEqualsOnePointAtATime(_ batch: BatchCase) throws {
        var rng = SplitMix64(seed: 23)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 48.85, longitude: 2.35)
        switch batch {
        case .grid:
            try Self.addSmallConditions(600, around: origin, to: &engine, rng: &rng)
        case .box:
            try engine.add(Self.box(south: 40, north: 55, west: -5, east: 10), identifier: "box")
            try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 2_000)), identifier: "circle")
        case .fewInGrid:
            try engine.add(Self.box(south: 48.84, north: 48.87, west: 2.3, east: 2.36), identifier: "small")
            try engine.add(Self.box(south: 40, north: 55, west: -5, east: 10), identifier: "box")
        case .fewLarge:
            // Running past 180 keeps them out of the grid.
            try engine.add(Self.box(south: 48.83, north: 80, west: 2.33, east: 180.0000000000001), identifier: "north-east")
            try engine.add(Self.box(south: -80, north: 48.86, west: -170, east: 180.0000000000001), identifier: "south")
            try engine.add(Self.box(south: -80, north: 80, west: -170, east: 180.0000000000001), identifier: "removed")
            engine.prepare()
            engine.remove("removed")  // (after the grid was laid out: still listed there)
        case .oneLarge:
            try engine.add(Self.box(south: 48.83, north: 80, west: 2.33, east: 180.0000000000001), identifier: "north-east")
        }
        var points = (0..<20_000).map { _ in
            Coordinate(latitude: origin.latitude + .random(in: -0.04...0.04, using: &rng),
                       longitude: origin.longitude + .random(in: -0.06...0.06, using: &rng))
        }
        points += [Coordinate(latitude: .nan, longitude: 2.35), Coordinate(latitude: 48.85, longitude: .infinity)]
        var query = engine.makeContainmentQuery()
        #expect(query.testsPolygonsDirectly == [.fewLarge, .oneLarge, .fewInGrid].contains(batch))
        query.ordersBatchesByCell = batch == .grid  // (the conditions here are few: order by cell regardless)
        var conditions: [Int32] = [], offsets: [Int] = []
        query.conditions(containing: points, conditions: &conditions, offsets: &offsets)
        #expect(offsets.count == points.count + 1)
        var mismatches = 0, found: [Int32] = [], total = 0
        for (k, p) in points.enumerated() {
            found.removeAll()
            query.conditions(containing: p, into: &found)
            total += found.count
            if Array(conditions[offsets[k]..<offsets[k + 1]]) != found { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(total > 5_000)
    }
}
