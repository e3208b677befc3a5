import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The engine's inside/outside verdicts against independent computations: GEOS's plain `covers` on
/// real polygons, a plain haversine on circles, and a brute-force evaluator without the index.
@Suite struct DifferentialTests {
    static let countries = "natural-earth/countries.geojson"

    /// Sample points: the fixture's (uniform, in boxes, on vertices, on edge midpoints) plus more of each kind.
    static func samplePoints(_ polygons: [(String, [GeoPolygon])]) throws -> [Coordinate] {
        var points: [Coordinate] = []
        for line in try Fixture.text("natural-earth/points.csv").split(separator: "\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            points.append(Coordinate(latitude: Double(cells[1])!, longitude: Double(cells[0])!))
        }
        var rng = SplitMix64(seed: 42)
        for _ in 0..<1000 {
            points.append(Coordinate(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng)))
        }
        for _ in 0..<2000 {
            let rings = polygons.randomElement(using: &rng)!.1.flatMap(\.rings)
            let ring = rings.randomElement(using: &rng)!
            let i = Int.random(in: 0..<(ring.count - 1), using: &rng)
            let a = ring[i], b = ring[i + 1]
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: points.append(a)  // a vertex
            case 1: points.append(Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2))
            default:  // near the edge
                let t = Double.random(in: 0...1, using: &rng)
                points.append(Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude) + .random(in: -0.01...0.01, using: &rng),
                                         longitude: a.longitude + t * (b.longitude - a.longitude) + .random(in: -0.01...0.01, using: &rng)))
            }
        }
        return points.filter(\.isValid)
    }

    @Test func polygonVerdictsEqualGEOSPlainCoversOnRealCountries() throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path(Self.countries))
        let polygons: [(String, [GeoPolygon])] = definitions.map { definition in
            guard case .polygon(let p) = definition.condition else { fatalError("countries are polygons") }
            return (definition.identifier, p.polygons)
        }
        let points = try Self.samplePoints(polygons)
        #expect(points.count > 4900)

        var engine = try Fixture.engine(Self.countries)
        var events: [MonitorEvent] = []
        var engineInside: [Set<String>] = []
        for (i, point) in points.enumerated() {
            events.removeAll()
            try engine.process(.fix(Fix(time: T0.t, coordinate: point, horizontalAccuracy: 0)), device: "p\(i)", cause: i, into: &events)
            #expect(events.count == polygons.count)  // every condition leaves unknown
            engineInside.append(Set(events.filter { $0.state == .satisfied }.map(\.identifier)))
        }

        // The oracle: GEOS's unprepared covers, one geometry per country, in a context of its own.
        let context = GEOSContext()
        var mismatches: [String] = []
        var insideCount = 0
        for (id, parts) in polygons {
            let geometry = PolygonGeometry.make(parts, in: context)
            for (i, point) in points.enumerated() {
                let covered = geometry.covers(GEOSGeometryHandle.point(point, in: context))
                if covered { insideCount += 1 }
                if covered != engineInside[i].contains(id) {
                    mismatches.append("\(id) at [\(point.longitude), \(point.latitude)]: GEOS \(covered)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(insideCount > 2000)  // the sample really exercises insides and boundaries
    }

    @Test func polygonVerdictsAgreeWithShapelyOnTheFixturePoints() throws {
        let rows = try Fixture.text("natural-earth/points.csv").split(separator: "\n").dropFirst()
        var engine = try Fixture.engine(Self.countries)
        var events: [MonitorEvent] = []
        var mismatches: [String] = []
        for (i, row) in rows.enumerated() {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            let point = Coordinate(latitude: Double(cells[1])!, longitude: Double(cells[0])!)
            let expected = Set(cells[2].split(separator: "|").map(String.init))
            events.removeAll()
            try engine.process(.fix(Fix(time: T0.t, coordinate: point, horizontalAccuracy: 0)), device: "p\(i)", cause: i, into: &events)
            let inside = Set(events.filter { $0.state == .satisfied }.map(\.identifier))
            if inside != expected { mismatches.append("row \(i + 2): engine \(inside.sorted()), shapely \(expected.sorted())") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func circleVerdictsEqualAPlainHaversine() throws {
        var rng = SplitMix64(seed: 7)
        var engine = MonitoringEngine()
        var circles: [(String, Double, Double, Double)] = []
        for i in 0..<300 {
            let lat = Double.random(in: -80...80, using: &rng), lon = Double.random(in: -180...180, using: &rng)
            let radius = Double.random(in: 50...200_000, using: &rng)
            circles.append(("c\(i)", lat, lon, radius))
            try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius)), identifier: "c\(i)")
        }
        func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
            let r = Double.pi / 180
            let a = pow(sin((lat2 - lat1) * r / 2), 2) + cos(lat1 * r) * cos(lat2 * r) * pow(sin((lon2 - lon1) * r / 2), 2)
            return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
        }
        var events: [MonitorEvent] = []
        var mismatches = 0, insides = 0
        for i in 0..<3000 {
            // Half the points near a random circle's rim, half anywhere.
            let c = circles.randomElement(using: &rng)!
            let point = i % 2 == 0
                ? Coordinate(latitude: max(-90, min(90, c.1 + .random(in: -1...1, using: &rng) * c.3 / 111_000 * 1.2)),
                             longitude: c.2 + .random(in: -1...1, using: &rng) * c.3 / 111_000 / cos(c.1 * .pi / 180))
                : Coordinate(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng))
            guard point.isValid else { continue }
            events.removeAll()
            try engine.process(.fix(Fix(time: T0.t, coordinate: point, horizontalAccuracy: 0)), device: "p\(i)", cause: i, into: &events)
            let inside = Set(events.filter { $0.state == .satisfied }.map(\.identifier))
            for (id, lat, lon, radius) in circles {
                let expected = haversine(lat, lon, point.latitude, point.longitude) <= radius
                if expected { insides += 1 }
                if expected != inside.contains(id) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(insides > 500)
    }

    /// The index, the watched list and the anchors are optimisations: the events must equal those of
    /// evaluating every condition for every fix, with random accuracies, hysteresis and confirmation.
    /// Steps of about 200 m mostly leave each anchor; steps of a few metres mostly stay near it.
    /// Steps of 200 m with a 300 s confirmation (some 37 fixes per device) meet many conditions
    /// while those the first fix found far away still wait together (`DeviceState.geographicWaiting`).
    /// Walks that keep a heading (`straight`) carry a device far from its anchor by steps each within
    /// it, as fixes measured near the anchor (`DeviceState.applyNearAnchor`) move it along.
    @Test(arguments: [(0.0, 0.0, 0.002, false), (25.0, 8.0, 0.002, false), (0.0, 0.0, 0.00006, false),
                      (10.0, 3.0, 0.00006, false), (0.0, 300.0, 0.002, false), (60.0, 0.0, 0.00003, true),
                      (60.0, 0.0, 0.0002, true)])
    func indexedEngineEqualsBruteForce(hysteresis: Double, confirmation: Double, stepDegrees: Double, straight: Bool) throws {
        var rng = SplitMix64(seed: 99)
        var policy = MonitoringPolicy()
        policy.hysteresis = hysteresis
        policy.confirmation = confirmation
        var engine = MonitoringEngine(policy: policy)
        let context = GEOSContext()
        // The plain version: GEOS's own covers and a scan of every edge, no index, no raster.
        var shapes: [(String, (Coordinate, Double) -> Side?, ConditionState)] = []
        let origin = Coordinate(latitude: 59.9, longitude: 10.7)  // high latitude on purpose
        for i in 0..<120 {
            let lat = origin.latitude + .random(in: -0.05...0.05, using: &rng)
            let lon = origin.longitude + .random(in: -0.1...0.1, using: &rng)
            let assume = [ConditionState.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!
            let condition: Condition
            if i % 2 == 0 {
                condition = .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon),
                                                                   radius: .random(in: 50...800, using: &rng)))
            } else {
                // A random star-shaped polygon around (lat, lon).
                let n = Int.random(in: 5...16, using: &rng)
                var ring: [Coordinate] = (0..<n).map { k in
                    let angle = Double(k) / Double(n) * 2 * .pi
                    let r = Double.random(in: 0.001...0.006, using: &rng)
                    return Coordinate(latitude: lat + r * sin(angle), longitude: lon + 2 * r * cos(angle))
                }
                ring.append(ring[0])
                condition = .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)]))
            }
            try engine.add(condition, identifier: "g\(i)", assuming: assume)
            let plainSide: (Coordinate, Double) -> Side?
            switch condition {
            case .circle(let c):
                plainSide = { p, m in
                    let d = c.signedDistance(to: p)
                    return d <= -m ? .inside : (d > m ? .outside : nil)
                }
            case .polygon(let poly):
                let geometry = PolygonGeometry.make(poly.polygons, in: context)
                plainSide = { p, m in
                    let inside = geometry.covers(GEOSGeometryHandle.point(p, in: context))
                    let d = SeamTests.boundaryDistance(from: p, poly.polygons)
                    if inside { return d >= m ? .inside : nil }
                    return d > m ? .outside : nil
                }
            case .beacon: fatalError()
            }
            shapes.append(("g\(i)", plainSide, assume))
        }

        var actual: [MonitorEvent] = []
        var expected: [String] = []
        let devices = 8
        var positions = Array(repeating: origin, count: devices)
        var headings = (0..<devices).map { _ in Double.random(in: 0..<(2 * .pi), using: &rng) }
        var plain = Array(repeating: shapes.map { GeographicPairState(state: $0.2) }, count: devices)
        let confirm = TimeSpan(seconds: confirmation)
        let fixes = stepDegrees < 0.001 ? 12_000 : 1500
        for step in 0..<fixes {
            let d = step % devices
            var p = positions[d]
            if straight {
                headings[d] += .random(in: -0.1...0.1, using: &rng)
                let length = Double.random(in: 0...stepDegrees, using: &rng)
                p.latitude += length * sin(headings[d])
                p.longitude += 2 * length * cos(headings[d])
            } else {
                p.latitude += .random(in: -stepDegrees...stepDegrees, using: &rng)
                p.longitude += .random(in: -2 * stepDegrees...2 * stepDegrees, using: &rng)
            }
            if Int.random(in: 0..<200, using: &rng) == 0 { p = Coordinate(latitude: 0, longitude: 0) }  // far away
            if p.latitude == 0 && Int.random(in: 0..<3, using: &rng) == 0 { p = origin }
            positions[d] = p
            let accuracy = [-1.0, 0, 5, 30, 120].randomElement(using: &rng)!
            let time = T0.t.adding(TimeSpan(seconds: Double(step)))
            try engine.process(.fix(Fix(time: time, coordinate: p, horizontalAccuracy: accuracy)), device: "d\(d)", cause: step, into: &actual)
            guard accuracy >= 0 else { continue }
            let margin = max(hysteresis, accuracy)
            for (k, shape) in shapes.enumerated() {
                if let side = shape.1(p, margin),
                   let state = plain[d][k].observe(side, at: time, confirmation: confirm) {
                    expected.append("d\(d) \(shape.0) \(state.rawValue) \(step)")
                }
            }
        }
        let got = actual.map { "\($0.device) \($0.identifier) \($0.state.rawValue) \($0.cause)" }
        #expect(firstDifference(got, expected) == nil)
        #expect(expected.count > 200)
        // Small steps must exercise the anchors and the fixes measured near them, large ones the geometry.
        if stepDegrees < 0.001 { #expect(engine.fixesAnsweredByAnchor > fixes / 3) }
        if straight { #expect(engine.fixesMeasuredNearAnchor > 100) }
        #expect(engine.fixesAnsweredByAnchor < fixes * 9 / 10)
    }

    /// SPEC §2: the size of a polygon's signed distance may come from a local approximation good to
    /// 0.5 % within 100 km. Checked against a fine search along every edge.
    @Test func polygonDistanceIsWithinHalfAPercentOfAFineSearch() throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path(Self.countries))
        var rng = SplitMix64(seed: 5)
        var worst = 0.0
        for id in ["NOR", "CHL", "GRL", "FRA", "ZAF"] {
            guard case .polygon(let polygon) = definitions.first(where: { $0.identifier == id })!.condition else { continue }
            let shape = PolygonShape(polygon.polygons)
            let edges = polygon.polygons.flatMap(\.rings).flatMap { ring in zip(ring, ring.dropFirst()).map { ($0, $1) } }
            for _ in 0..<25 {
                let (a, b) = edges.randomElement(using: &rng)!
                let t = Double.random(in: 0...1, using: &rng)
                let onEdge = Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude))
                let offset = Double.random(in: 0.001...0.6, using: &rng)  // up to ~65 km away
                let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
                let point = Coordinate(latitude: max(-89.9, min(89.9, onEdge.latitude + offset * sin(angle))),
                                       longitude: onEdge.longitude + offset * cos(angle) * 2)
                guard point.isValid else { continue }
                let approx = shape.distanceToBoundary(from: point)
                guard approx < 100_000 else { continue }
                let fine = Self.fineDistance(from: point, edges: edges)
                let error = abs(approx - fine) / max(fine, 1)
                worst = max(worst, error)
                #expect(approx >= fine - 0.01, "the approximation measures a real boundary point, so it is never shorter")
                #expect(error <= 0.005, "\(id) at \(point): \(approx) vs \(fine)")
            }
        }
        #expect(worst < 0.005)
    }
}
