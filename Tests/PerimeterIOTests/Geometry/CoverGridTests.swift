import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

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
            catalog.collectReadings(&frame, watch: Watch(), stamps: &stamps, stamp: UInt32(n + 1), asksAhead: true,
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
            catalog.collectReadings(&frame, watch: Watch(), stamps: &stamps, stamp: UInt32(n + 1), asksAhead: true,
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
