import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// What a large polygon's indexes promise beyond exact answers (`PolygonLocatorTests`): the raster's
/// distance bounds, which the cover grid now takes instead of measuring edges, and indexes whose size
/// follows the polygon's edges rather than a fixed number of cells per edge.
@Suite struct LargePolygonIndexTests {
    /// Country outlines (some with seam edges) and stars with long edges, with a hole.
    static func shapes() throws -> [(String, [GeoPolygon])] {
        var rng = SplitMix64(seed: 40)
        var shapes = try PolygonLocatorTests.countries()
        shapes.append(("spiky-4096", [PolygonLocatorTests.spiky(4096, centre: Coordinate(latitude: 48.85, longitude: 2.35), radius: 0.25, rng: &rng)]))
        shapes.append(("spiky-hole", [PolygonLocatorTests.spiky(900, centre: Coordinate(latitude: 69.5, longitude: 19), radius: 0.05, rng: &rng,
                                                                hole: true)]))
        return shapes
    }

    /// Where the raster says a point is clear of the boundary, it is on the side the raster says and
    /// at least that far from every boundary point (the measure a reading uses never comes out
    /// lower); where it says a boundary point is near, one is within the distance it gives.
    @Test func rasterDistanceNeverOverstatesTheClearance() throws {
        var rng = SplitMix64(seed: 41)
        var clear = 0, near = 0, wrong: [String] = []
        for (name, polygons) in try Self.shapes() {
            let shape = PolygonShape(polygons)
            let locator = shape.locator
            let box = shape.boundingBox
            for n in 0..<1_500 {
                // Half anywhere in the box, half near the boundary (where the raster says less).
                let p = n % 2 == 0
                    ? Coordinate(latitude: .random(in: box.minLatitude...box.maxLatitude, using: &rng),
                                 longitude: .random(in: box.minLongitude...box.maxLongitude, using: &rng))
                    : PolygonLocatorTests.points(for: polygons, count: 1, rng: &rng)[0]
                switch locator.rasterDistance(p.longitude, p.latitude) {
                case .clear(let inside, let metres):
                    clear += 1
                    let d = shape.distanceToBoundary(from: p)
                    if shape.covers(p) != inside || d < metres { wrong.append("\(name) at \(p): clear \(inside) \(metres), covers \(shape.covers(p)), \(d) m") }
                case .near(let metres):
                    near += 1
                    // (Seam edges count as boundary cells but not as boundary: nothing to check.)
                    let d = shape.distanceToBoundary(from: p)
                    if !locator.hasSeamEdges && d > metres { wrong.append("\(name) at \(p): near within \(metres), \(d) m") }
                case .unknown:
                    break
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count): \(wrong.prefix(3))")
        #expect(clear > 20_000)
        #expect(near > 10_000)
    }

    /// A grid over circles and large polygons (more than `fewEdges` edges, classified from their
    /// rasters): every polygon entry's clearance is at most its cell centre's distance to the
    /// boundary, on the centre's side, and fixes read through the grid get the exact readings.
    @Test func largePolygonEntriesNeverOverstateTheirClearance() throws {
        var rng = SplitMix64(seed: 42)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 59.4, longitude: 24.7)
        var polygons: [Int32: PolygonShape] = [:]
        for i in 0..<240 {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.03...0.03, using: &rng),
                               longitude: origin.longitude + .random(in: -0.06...0.06, using: &rng))
            if i % 6 == 0 {
                let polygon = PolygonLocatorTests.spiky(Int.random(in: 300...2_000, using: &rng), centre: c,
                                                        radius: .random(in: 0.004...0.012, using: &rng), rng: &rng, hole: i % 12 == 0)
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
                polygons[Int32(i)] = PolygonShape([polygon])
            } else {
                try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...300, using: &rng))), identifier: "c\(i)")
            }
        }
        _ = engine.makeContainmentQuery()  // builds the grid
        let catalog = engine.catalog, grid = catalog.coverGrid
        #expect(grid.excluded.isEmpty)
        var checked = 0, overstated: [String] = []
        for r in 0..<grid.rows {
            for col in 0..<grid.columns {
                let centre = Coordinate(latitude: grid.minLatitude + (Double(r) + 0.5) * grid.latitudeStep,
                                        longitude: grid.minLongitude + (Double(col) + 0.5) * grid.longitudeStep)
                for k in grid.entries(at: centre).0 {
                    let e = grid.entry(k), clearance = grid.clearance(e)
                    guard let shape = polygons[e.condition], clearance > 0 else { continue }
                    checked += 1
                    let d = shape.distanceToBoundary(from: centre)
                    if clearance > d || shape.covers(centre) != e.isInside {
                        overstated.append("p\(e.condition) at \(centre): clearance \(clearance) \(e.isInside), distance \(d)")
                    }
                }
            }
        }
        #expect(checked > 10_000)
        #expect(overstated.isEmpty, "\(overstated.count): \(overstated.prefix(3))")

        var stamps = [UInt32](repeating: 0, count: 240)
        var mismatches: [String] = []
        for n in 0..<4_000 {
            let p = Coordinate(latitude: origin.latitude + .random(in: -0.04...0.04, using: &rng),
                               longitude: origin.longitude + .random(in: -0.08...0.08, using: &rng))
            let margin = [0.0, 5, 20, 65, 100].randomElement(using: &rng)!
            var frame = FixFrame(p, margin: margin)
            var candidates: [Int32] = [], readings: [Reading] = [], clearances: [Double] = []
            catalog.collectReadings(&frame, watch: Watch(), stamps: &stamps, stamp: UInt32(n + 1), asksAhead: true,
                                    candidates: &candidates, readings: &readings, clearances: &clearances)
            for i in polygons.keys {
                var exactFrame = FixFrame(p, margin: margin)
                let exact = catalog.reading(i, &exactFrame)
                if let k = candidates.firstIndex(of: i) {
                    let got = readings[k]
                    if got.isUnmeasured ? got.sign != exact.sign : got != exact { mismatches.append("p\(i) at \(p) m=\(margin): \(got), exact \(exact)") }
                } else if exact != .outside {
                    mismatches.append("p\(i) at \(p) m=\(margin): left out, exact \(exact)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count): \(mismatches.prefix(3))")
    }

    /// Long edges are listed in every stripe they span: a star's stripes are fewer, so that they list
    /// about four entries an edge, not hundreds.
    @Test func stripesListAFewEntriesPerEdge() throws {
        for (name, polygons) in try Self.shapes() {
            let locator = PolygonShape(polygons).locator
            #expect(locator.stripeEdges.count <= 4 * locator.edgeCount + locator.stripeCount, "\(name)")
        }
    }

    /// An outline of many edges whose boundary crosses few cells takes a raster of about 32 cells an
    /// edge and a few hundred bytes an edge in all; a star, or Canada's islands, whose boundary
    /// crosses more than one cell in 25, get a raster eight times finer, once.
    @Test func rasterCellsFollowTheBoundary() throws {
        var rng = SplitMix64(seed: 43)
        // A wobbly disc of 2,000 edges: its boundary crosses about 2 % of the cells.
        var ring = (0..<2_000).map { k in
            let angle = Double(k) / 2_000 * 2 * .pi, r = 0.1 * (1 + 0.002 * .random(in: -1...1, using: &rng))
            return Coordinate(latitude: 45 + r * sin(angle), longitude: 7 + r * cos(angle))
        }
        ring.append(ring[0])
        let disc = PolygonShape([GeoPolygon(exterior: ring)]).locator
        #expect(disc.columns * disc.rows <= 40 * disc.edgeCount)
        #expect(disc.heapBytes <= 400 * disc.edgeCount)
        let shapes = try Self.shapes()
        for name in ["spiky-4096", "CAN"] {
            let refined = PolygonShape(try #require(shapes.first { $0.0 == name }).1).locator
            #expect(refined.columns * refined.rows >= 200 * refined.edgeCount, "\(name)")
            let boundaryCells = refined.cells.reduce(0) { $0 + ($1 == PolygonLocator.boundary ? 1 : 0) }
            #expect(boundaryCells * 2 < refined.cells.count, "\(name)")
        }
    }
}
