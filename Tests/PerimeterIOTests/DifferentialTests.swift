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

    /// The least haversine distance to the edges, by sampling each edge and refining the best sample.
    static func fineDistance(from p: Coordinate, edges: [(Coordinate, Coordinate)]) -> Double {
        func at(_ a: Coordinate, _ b: Coordinate, _ t: Double) -> Double {
            Geodesy.distance(p, Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude)))
        }
        var best = Double.infinity
        for (a, b) in edges {
            // Skip edges clearly too far (more than 2° from the point at both ends and in between).
            if min(abs(a.latitude - p.latitude), abs(b.latitude - p.latitude)) > 3 && (a.latitude - p.latitude) * (b.latitude - p.latitude) > 0 { continue }
            let samples = 64
            var bestT = 0.0, bestD = Double.infinity
            for k in 0...samples {
                let d = at(a, b, Double(k) / Double(samples))
                if d < bestD { bestD = d; bestT = Double(k) / Double(samples) }
            }
            var lo = max(0, bestT - 1.0 / Double(samples)), hi = min(1, bestT + 1.0 / Double(samples))
            for _ in 0..<80 {
                let m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3
                if at(a, b, m1) < at(a, b, m2) { hi = m2 } else { lo = m1 }
            }
            best = min(best, bestD, at(a, b, (lo + hi) / 2))
        }
        return best
    }
}

enum T0 {
    static let t = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
}

/// The batch path computes geometry out of order (or only where anchors cannot answer); its events
/// must equal one call per fix.
@Suite struct BatchPathTests {
    static let paris = Coordinate(latitude: 48.85, longitude: 2.35)

    /// 300 conditions round Paris: circles starting in a random state, and small star-shaped polygons.
    static func parisEngine(confirmation: Double, rng: inout SplitMix64) throws -> MonitoringEngine {
        var policy = MonitoringPolicy()
        policy.confirmation = confirmation
        var engine = MonitoringEngine(policy: policy)
        for i in 0..<300 {
            let c = Coordinate(latitude: paris.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: paris.longitude + .random(in: -0.03...0.03, using: &rng))
            if i % 2 == 0 {
                try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...400, using: &rng))), identifier: "c\(i)",
                               assuming: [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!)
            } else {
                let polygon = PolygonLocatorTests.spiky(Int.random(in: 8...30, using: &rng), centre: c,
                                                        radius: .random(in: 0.0005...0.004, using: &rng), rng: &rng)
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
            }
        }
        return engine
    }

    /// `steps` fixes of the devices `ids` taking turns, a round a second, each on a random walk from
    /// `origin` of up to `stride` degrees of latitude (1.6 times that of longitude) per fix.
    static func walks(_ ids: [DeviceID], steps: Int, from origin: Coordinate, stride: Double, rng: inout SplitMix64,
                      accuracy: (inout SplitMix64) -> Double) -> [FixRecord] {
        var positions = Array(repeating: origin, count: ids.count)
        return (0..<steps).map { step in
            let d = step % ids.count
            positions[d].latitude += .random(in: -stride...stride, using: &rng)
            positions[d].longitude += .random(in: -1.6 * stride...1.6 * stride, using: &rng)
            let fix = Fix(time: T0.t.adding(TimeSpan(seconds: Double(step / ids.count))), coordinate: positions[d],
                          horizontalAccuracy: accuracy(&rng))
            return FixRecord(device: ids[d], fix: fix, cause: step)
        }
    }

    /// (Batches of 64 fixes from 50 devices run in record order; larger ones device by device.)
    @Test(arguments: [(1, 4096), (2, 20_000), (1, 64)])
    func batchEqualsOneCallPerFix(threads: Int, chunk: Int) throws {
        var rng = SplitMix64(seed: 77)
        let engine = try Self.parisEngine(confirmation: 3, rng: &rng)
        let origin = Self.paris
        var sequential = engine
        var batched = engine
        batched.batchThreads = threads
        let ids = (0..<50).map { batched.deviceID("d\($0)") }
        _ = (0..<50).map { sequential.deviceID("d\($0)") }
        let records = Self.walks(ids, steps: 20_000, from: origin, stride: 0.0005, rng: &rng) { rng in
            [-1.0, 0, 8, 40, 90, 200].randomElement(using: &rng)!
        }
        var expected: [MonitorEvent] = []
        for r in records { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expected) }
        var got: [MonitorEvent] = []
        for start in stride(from: 0, to: records.count, by: chunk) {
            try batched.process(Array(records[start..<min(start + chunk, records.count)]), into: &got)
        }
        #expect(firstDifference(got, expected) == nil)
        #expect(expected.count > 1000)
        #expect(batched.fixesAnsweredByAnchor == sequential.fixesAnsweredByAnchor)
        #expect(batched.fixesAnsweredByAnchor > 1000)
        #expect(batched.fixesMeasuredNearAnchor == sequential.fixesMeasuredNearAnchor)
        var expectedChanges: [AuthorizationChange] = [], gotChanges: [AuthorizationChange] = []
        sequential.takeAuthorizationChanges(into: &expectedChanges)
        batched.takeAuthorizationChanges(into: &gotChanges)
        #expect(firstDifference(gotChanges, expectedChanges) == nil)
        #expect(gotChanges.count == 50)

        // A refused fix stops the batch at the same place, with the same events before it.
        let more = records.prefix(10_000).map { r in
            var r = r
            r.fix.time = Timestamp(nanosecondsSinceEpoch: r.fix.time.nanosecondsSinceEpoch + 1_000_000_000_000)
            return r
        }
        var bad = records[0]  // far older than its device's latest fix
        bad.cause = 999_999
        let tail = Array(more[..<9000]) + [bad] + Array(more[9000...])
        var seqEvents: [MonitorEvent] = [], batchEvents: [MonitorEvent] = []
        var seqProblem: ObservationProblem?
        for r in tail {
            do { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &seqEvents) } catch { seqProblem = error; break }
        }
        do {
            try batched.process(tail, into: &batchEvents)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.index == 9000)
            #expect(error.problem == seqProblem)
        }
        #expect(firstDifference(batchEvents, seqEvents) == nil)
    }

    /// Each shard finds its own devices' first refused fix; the batch stops at the earliest of them,
    /// whichever shard holds it and whatever the problem (bad values, or older than the device's
    /// previous fix), with the events of exactly the fixes before it.
    @Test(arguments: [(6_002, 9_001), (9_001, 6_002), (6_001, nil)])
    func batchStopsAtTheEarliestRefusalOfAnyShard(outOfOrderAt: Int, badValueAt: Int?) throws {
        var rng = SplitMix64(seed: 78)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 48.85, longitude: 2.35)
        for i in 0..<200 {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: origin.longitude + .random(in: -0.03...0.03, using: &rng))
            try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 100...800, using: &rng))),
                           identifier: "c\(i)")
        }
        var sequential = engine
        var batched = engine
        batched.batchThreads = 3
        let ids = (0..<48).map { batched.deviceID("d\($0)") }
        _ = (0..<48).map { sequential.deviceID("d\($0)") }
        var records = Self.walks(ids, steps: 13_000, from: origin, stride: 0.001, rng: &rng) { _ in 10 }
        // Devices 0, 1 and 2 modulo 3 are three shards' (13,000 fixes make three workers).
        #expect(records[outOfOrderAt].device.index % 3 != (badValueAt.map { records[$0].device.index % 3 } ?? -1))
        records[outOfOrderAt].fix.time = T0.t.adding(TimeSpan(seconds: -1))
        if let badValueAt { records[badValueAt].fix.coordinate.latitude = 91 }
        let first = min(outOfOrderAt, badValueAt ?? .max)

        var expected: [MonitorEvent] = []
        var expectedProblem: ObservationProblem?
        for r in records {
            do { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expected) } catch {
                expectedProblem = error
                break
            }
        }
        var got: [MonitorEvent] = []
        do {
            try batched.process(records, into: &got)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.index == first)
            #expect(error.problem == expectedProblem)
            #expect(error.problem.field == (first == outOfOrderAt ? "t" : "lat"))
        }
        #expect(expected.count > 500)
        #expect(firstDifference(got, expected) == nil)
        // The fixes after the refused one were not applied: the rest of the batch gives the same
        // events as one call per fix.
        var rest: [MonitorEvent] = [], expectedRest: [MonitorEvent] = []
        let after = Array(records[(first + 1)...]).filter { $0.cause != outOfOrderAt && $0.cause != badValueAt }
        for r in after { try sequential.process(.fix(r.fix), device: r.device, cause: r.cause, into: &expectedRest) }
        try batched.process(after, into: &rest)
        #expect(firstDifference(rest, expectedRest) == nil)
    }
}
