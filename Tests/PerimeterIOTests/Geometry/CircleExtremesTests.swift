import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Circles at the extremes — at and around the poles, across the antimeridian, radii from 1 cm to the
/// 1,000 km maximum, fixes exactly on thresholds and on cover-grid cells — against `GeographicOracle`
/// (the test's own haversine and state machine, SPEC §2), run three ways: one call per fix, the batch
/// path on one thread and on several. The three must give identical events.
///
/// The oracle asserts a fix's side only where its signed distance d is more than 1e-6 relative (plus
///
/// Sections 4–6 (exact thresholds and cells, many devices, adding and removing between batches) are
/// in `CircleExtremesTests+ThresholdsAndBatches.swift`; the circles' helpers in
/// `Support/CircleExtremesSupport.swift`.
/// 1 mm) from the thresholds −m and m; nearer, either neighbouring answer is allowed.
@Suite struct CircleExtremesTests {
    // MARK: 1. Validation

    @Test func radiiOutsideTheRangeAreRefusedNamingTheField() throws {
        let centres = [Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 180),
                       Coordinate(latitude: 0, longitude: -180), Coordinate(latitude: 48.85, longitude: 2.35)]
        let refused: [Double] = [0, -0.0, -1, -Double.leastNonzeroMagnitude, -.infinity, .nan, -.nan, .infinity,
                                 1_000_000.0.nextUp, 1_000_001, 20_015_087, .greatestFiniteMagnitude]
        for centre in centres {
            for radius in refused {
                do {
                    let circle = try CircularGeographicCondition(center: centre, radius: radius)
                    Issue.record("radius \(radius) at \(centre) accepted as \(circle.radius)")
                } catch {
                    #expect(error.part == .radius, "radius \(radius): \(error)")
                    #expect(error.message.contains("radius must be > 0 and ≤ 1000000 m"), "radius \(radius): \(error)")
                }
            }
            for radius in [1_000_000.0, 999_999.999_999_9, 1, 0.01, 1e-300, .leastNonzeroMagnitude] {
                let circle = try CircularGeographicCondition(center: centre, radius: radius)
                #expect(circle.radius == radius)
            }
        }
        // The centre is checked too, and named apart from the radius.
        for centre in [Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 90.000_000_1, longitude: 0),
                       Coordinate(latitude: 0, longitude: 180.000_000_1), Coordinate(latitude: 0, longitude: -.infinity)] {
            do {
                _ = try CircularGeographicCondition(center: centre, radius: 100)
                Issue.record("centre \(centre) accepted")
            } catch {
                #expect(error.part == .center, "\(error)")
            }
        }
        // Through the GeoJSON reader: the feature and the field are named.
        for radius in ["0", "-0", "-1", "1000000.0000001", "1e7", "-1e-300"] {
            let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"r","geometry":{"type":"Point","coordinates":[180,90]},"properties":{"radius":"#
                + radius + "}}]}"
            let (definitions, problems) = ConditionsReader.parse(Data(text.utf8), file: "c.geojson")
            #expect(definitions.isEmpty, "radius \(radius)")
            #expect(problems.count == 1, "radius \(radius): \(problems)")
            #expect(problems.first?.field == #"features[0] (id "r").properties.radius"#, "radius \(radius): \(problems)")
        }
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"r","geometry":{"type":"Point","coordinates":[-180,-90]},"properties":{"radius":1000000}}]}"#
        let (definitions, problems) = ConditionsReader.parse(Data(text.utf8), file: "c.geojson")
        #expect(problems.isEmpty)
        #expect(definitions.count == 1)
    }

    // MARK: 2. Poles and the antimeridian

    static let poleCentres: [String: [(Double, Double)]] = [
        "north": [(90, 0), (90, 137.5), (89.9999, -180), (89.9999, 45)],
        "south": [(-90, 0), (-90, -180), (-89.9999, 179.999), (-89.9999, -12.5)],
        "antimeridian": [(0, 180), (0, -180), (45, 179.999), (-45, -179.999), (60, 180), (10, -179.9999)],
    ]
    static let extremeRadii = [0.01, 1, 100, 100_000, 1_000_000]

    /// Circles centred at and near the poles and on the antimeridian, each at every extreme radius;
    /// devices' fixes walk round and across the pole and the antimeridian, land exactly on the pole,
    /// on longitude ±180, on the rims and at radius ± margin. "all" has enough circles for the cover
    /// grid; the others use the condition index alone.
    @Test(arguments: ["north", "south", "antimeridian", "all"], [0, 1])
    func polesAndAntimeridian(_ set: String, _ policyIndex: Int) throws {
        var rng = SplitMix64(seed: 1000 + UInt64(policyIndex) * 7 + UInt64(["north", "south", "antimeridian", "all"].firstIndex(of: set)!))
        let policy = Oracle.policy([(0.0, 1.0, 0.0), (150, 2, 10)][policyIndex])
        let centres = set == "all" ? Self.poleCentres.keys.sorted().flatMap { Self.poleCentres[$0]! } : Self.poleCentres[set]!
        var circles: [Circle] = []
        for (k, (lat, lon)) in centres.enumerated() {
            for radius in Self.extremeRadii {
                circles.append(Circle(id: "\(set)\(k)-\(radius)", lat: lat, lon: lon, radius: radius,
                                      assuming: [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!))
            }
        }
        let accuracies = [0.0, 0, 5, 5, 65, 1000, 100_000, -1]
        let devices = 12
        var positions = (0..<devices).map { d in (centres[d % centres.count].0, centres[d % centres.count].1) }
        var fixes: [FixSpec] = []
        for n in 0..<2400 {
            let d = n % devices
            let accuracy = accuracies.randomElement(using: &rng)!
            let margin = max(policy.hysteresis, policy.accuracyWeight * max(0, accuracy))
            let c = circles.randomElement(using: &rng)!
            var p = positions[d]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1:  // a step of 1 cm to 50 km in any direction (across the pole or the antimeridian)
                p = Oracle.destination(p, metres: Oracle.logUniform(0.01, 50_000, &rng), bearing: .random(in: 0..<360, using: &rng))
            case 2, 3:  // at the rim, or radius ± margin (± a hair)
                let rho = Self.thresholdDistance(c.radius, margin, &rng)
                p = Oracle.destination((c.lat, c.lon), metres: rho, bearing: [0, 90, 180, 270, .random(in: 0..<360, using: &rng)]
                    .randomElement(using: &rng)!)
            case 4:  // anywhere within three radii and margins
                p = Oracle.destination((c.lat, c.lon), metres: .random(in: 0...(3 * (c.radius + margin)), using: &rng),
                                     bearing: .random(in: 0..<360, using: &rng))
            case 5:  // exactly on a pole, at any longitude
                p = ([90.0, -90].randomElement(using: &rng)!, [0, 180, -180, .random(in: -180...180, using: &rng)].randomElement(using: &rng)!)
            case 6:  // exactly on the antimeridian, either sign, near a centre
                p = (max(-90, min(90, c.lat + .random(in: -1...1, using: &rng) * (c.radius + margin) * 1.5 / 111_000)),
                     Bool.random(using: &rng) ? 180 : -180)
            case 7:  // a pole crossing: the same distance from the pole on the far meridian
                p = (p.0, Oracle.normalised(p.1 + 180))
            case 8:  // a small circle round the nearer pole, 1 cm to 20 km from it
                let pole = p.0 >= 0 ? 90.0 : -90
                p = Oracle.destination((pole, 0), metres: Oracle.logUniform(0.01, 20_000, &rng), bearing: .random(in: 0..<360, using: &rng))
            default:  // the other side of the antimeridian, mirrored
                p = (p.0, p.1 == 0 ? 0 : -p.1)
            }
            positions[d] = p
            fixes.append(FixSpec(device: d, lat: p.0, lon: p.1, accuracy: accuracy, seconds: Double(n)))
        }
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .fixes(fixes)], devices: devices)
        #expect(stats.decided > 20_000)
        #expect(stats.satisfiedEvents > 100)
        #expect(stats.nearThreshold > 50)
    }

    /// A catalogue round a pole for which the cover grid is built with cells coarse enough (the
    /// median circle some 100 km across) to hold the small circles at and near the pole, whose boxes
    /// span every longitude and reach the pole: the grid's area then ends exactly at latitude ±90 and
    /// longitude 180. Fixes exactly on the pole and on longitude ±180, with margins the grid answers for.
    @Test(arguments: [90.0, -90.0])
    func polarCatalogueInTheCoverGrid(_ pole: Double) throws {
        var rng = SplitMix64(seed: pole > 0 ? 2001 : 2002)
        let policy = Oracle.policy((0, 1, 0))
        var circles: [Circle] = []
        for k in 0..<12 {  // small ones at the pole and within 3 km of it
            let centre = k == 0 ? (pole, 0.0) : k == 1 ? (pole, 180)
                : Oracle.destination((pole, 0), metres: .random(in: 0...3000, using: &rng), bearing: .random(in: 0..<360, using: &rng))
            circles.append(Circle(id: "small\(k)", lat: centre.0, lon: centre.1, radius: [1, 100, 1000, 5000][k % 4],
                                  assuming: [.unknown, .satisfied, .unsatisfied][k % 3]))
        }
        for k in 0..<30 {  // a ring of large ones 150-500 km from it
            let centre = Oracle.destination((pole, 0), metres: .random(in: 150_000...500_000, using: &rng), bearing: .random(in: 0..<360, using: &rng))
            circles.append(Circle(id: "ring\(k)", lat: centre.0, lon: centre.1, radius: .random(in: 20_000...80_000, using: &rng)))
        }
        let probe = try Self.preparedEngine(policy, circles)
        let grid = probe.catalog.coverGrid
        #expect(!grid.excluded.contains(0) && grid.builtThrough == Int32(circles.count),
                "the grid must hold the circle at the pole (excluded: \(grid.excluded))")
        let devices = 8
        var fixes: [FixSpec] = []
        for n in 0..<1200 {
            let accuracy = [0.0, 5, 65, 100, 1000].randomElement(using: &rng)!
            let p: (Double, Double)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: p = (pole, [0, 180, -180, .random(in: -180...180, using: &rng)].randomElement(using: &rng)!)
            case 1: p = (pole > 0 ? 90 - Oracle.logUniform(1e-7, 0.1, &rng) : -90 + Oracle.logUniform(1e-7, 0.1, &rng), [180.0, -180].randomElement(using: &rng)!)
            case 2:
                let c = circles.randomElement(using: &rng)!
                p = Oracle.destination((c.lat, c.lon), metres: Self.thresholdDistance(c.radius, max(0, accuracy), &rng),
                                     bearing: .random(in: 0..<360, using: &rng))
            default:
                p = Oracle.destination((pole, 0), metres: Oracle.logUniform(0.01, 600_000, &rng), bearing: .random(in: 0..<360, using: &rng))
            }
            fixes.append(FixSpec(device: n % devices, lat: p.0, lon: p.1, accuracy: accuracy, seconds: Double(n)))
        }
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .fixes(fixes)], devices: devices)
        #expect(stats.satisfiedEvents > 100)
    }

    /// Devices walking by small steps (1 cm to 60 m) back and forth across the antimeridian, through
    /// circles on both sides of it and straddling it, so that anchors are kept and measured across
    /// ±180. With 32 circles the condition index answers; with 48 the cover grid is built (over every
    /// longitude, as the circles lie on both sides) and those straddling it are left to the index.
    @Test(arguments: [32, 48])
    func antimeridianWalks(_ count: Int) throws {
        var rng = SplitMix64(seed: 2500 + UInt64(count))
        let policy = Oracle.policy((0, 1, 2))
        let centre = (65.0, 180.0)
        var circles: [Circle] = []
        for k in 0..<(count - 4) {
            let p = Oracle.destination(centre, metres: .random(in: 0...1500, using: &rng), bearing: .random(in: 0..<360, using: &rng))
            circles.append(Circle(id: "a\(k)", lat: p.0, lon: k % 5 == 0 ? -180 : (k % 5 == 1 ? 180 : p.1),
                                  radius: Oracle.logUniform(0.01, 600, &rng), assuming: [.unknown, .satisfied, .unsatisfied][k % 3]))
        }
        circles.append(Circle(id: "h100k", lat: 65.2, lon: -179.9, radius: 100_000))
        circles.append(Circle(id: "h1000k", lat: 56.1, lon: 180, radius: 1_000_000))
        circles.append(Circle(id: "tiny", lat: 65, lon: -180, radius: 0.01))
        circles.append(Circle(id: "tiny1m", lat: 65, lon: 180, radius: 1))
        let grid = try Self.gridTheEngineBuilds(policy, circles)
        #expect((grid != nil) == (count > 32))
        if let grid {
            #expect(grid.hasCells && grid.minLongitude == -180
                    && abs(grid.minLongitude + Double(grid.columns) * grid.longitudeStep - 180) < 1e-9,
                    "a grid over every longitude")
            #expect(!grid.excluded.isEmpty && grid.excluded.count < circles.count - 4, "the circles straddling ±180 (and the huge ones) are left to the index")
        }
        let devices = 16
        var positions = (0..<devices).map { _ in centre }
        var headings = (0..<devices).map { _ in Double.random(in: 0..<360, using: &rng) }
        var fixes: [FixSpec] = []
        for n in 0..<9000 {
            let d = n % devices
            if Int.random(in: 0..<300, using: &rng) == 0 {
                let c = circles.randomElement(using: &rng)!
                positions[d] = Oracle.destination((c.lat, c.lon), metres: min(c.radius, 3000) * .random(in: 0...1.2, using: &rng),
                                                bearing: .random(in: 0..<360, using: &rng))
            }
            // Mostly east or west, so the walk keeps crossing the antimeridian; turned back beyond 2 km.
            if Oracle.haversine(positions[d].0, positions[d].1, centre.0, centre.1) > 2000 {
                headings[d] = Oracle.bearing(positions[d], centre)
            }
            headings[d] += .random(in: -10...10, using: &rng)
            positions[d] = Oracle.destination(positions[d], metres: Oracle.logUniform(0.01, 60, &rng), bearing: headings[d])
            if Int.random(in: 0..<50, using: &rng) == 0 { positions[d].1 = positions[d].1 > 0 ? 180 : -180 }
            let accuracy = [0.0, 5, 5, 20, 65, 65, 100, 1000, -1].randomElement(using: &rng)!
            fixes.append(FixSpec(device: d, lat: positions[d].0, lon: positions[d].1, accuracy: accuracy, seconds: Double(n / devices)))
        }
        let crossings = zip(fixes, fixes.dropFirst(devices)).filter { ($0.0.lon > 0) != ($0.1.lon > 0) }.count
        #expect(crossings > 40)
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .fixes(fixes)], devices: devices)
        #expect(stats.anchorAnswered > 1000, "small steps keep anchors across the antimeridian")
        #expect(stats.satisfiedEvents > 100)
    }

    /// A circle at the north pole that the cover grid holds (one more circle elsewhere makes its cells
    /// coarse enough), and fixes at accuracy 0 within it, some exactly on the grid's far edge —
    /// latitude 90, or longitude 180 — which once found no cell, so that the circle was no candidate
    /// (unsatisfied even at its centre, and missed by the stateless query); the same fixes a hair
    /// off the edge were right. Every one of them is inside.
    @Test func aPolarCircleHeldByTheCoverGridAtTheGridsFarEdge() throws {
        var engine = MonitoringEngine()
        try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 90, longitude: 0), radius: 100)), identifier: "pole")
        try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 0, longitude: 0), radius: 100)), identifier: "equator")
        engine.prepare()  // (as the first record does by itself for 33 circles or more)
        let grid = engine.catalog.coverGrid
        #expect(grid.excluded.isEmpty && grid.minLatitude + Double(grid.rows) * grid.latitudeStep == 90
                && grid.minLongitude + Double(grid.columns) * grid.longitudeStep == 180, "the grid holds the pole's circle and ends at 90, 180")
        var query = engine.makeContainmentQuery()
        for (k, (lat, lon)) in [(90.0, 0.0), (90, 180), (90, -180), (89.9999, 180), (89.9999, -180), (89.9999, 179.9999), (89.9999, 0)].enumerated() {
            let c = Coordinate(latitude: lat, longitude: lon)
            var events: [MonitorEvent] = []
            try engine.process(.fix(Fix(time: Oracle.start, coordinate: c, horizontalAccuracy: 0)), device: "d\(k)", cause: k, into: &events)
            let satisfied = events.filter { $0.state == .satisfied }.map(\.identifier)
            var found: [Int32] = []
            query.conditions(containing: c, into: &found)
            #expect(Oracle.haversine(90, 0, lat, lon) < 12)
            #expect(satisfied == ["pole"], "fix at (\(lat), \(lon))")
            #expect(found == [0], "containment query at (\(lat), \(lon))")
        }
    }

    // MARK: 3. The cover grid with huge circles

    static let paris = (48.85, 2.35)

    /// A dense catalogue round Paris, for which the cover grid is built, mixed with circles of
    /// 100 km and 1,000 km (too large for it: the condition index answers) whose rims run through the
    /// cluster, and a few tiny ones. Devices walk through the cluster and along the rims.
    @Test(arguments: [0, 1])
    func coverGridMixedWithHugeCircles(_ policyIndex: Int) throws {
        var rng = SplitMix64(seed: 3000 + UInt64(policyIndex))
        let policy = Oracle.policy([(0.0, 1.0, 3.0), (150, 0.5, 0)][policyIndex])
        var circles = Self.parisCluster(120, rng: &rng)
        var huge: [Circle] = []
        for (k, radius) in [100_000.0, 1_000_000, 100_000, 1_000_000].enumerated() {
            // Rims through the cluster, from four directions; then two containing it all.
            let centre = Oracle.destination(Self.paris, metres: radius + .random(in: -300...300, using: &rng), bearing: Double(k) * 90 + 10)
            huge.append(Circle(id: "rim\(k)", lat: centre.0, lon: centre.1, radius: radius))
        }
        huge.append(Circle(id: "all100k", lat: Self.paris.0, lon: Self.paris.1, radius: 100_000, assuming: .satisfied))
        huge.append(Circle(id: "all1000k", lat: Self.paris.0 + 0.01, lon: Self.paris.1, radius: 1_000_000))
        circles.insert(contentsOf: huge[..<3], at: 40)
        circles += huge[3...]
        let tinyCentre = Oracle.destination(Self.paris, metres: 500, bearing: 45)
        circles.append(Circle(id: "tiny1cm", lat: tinyCentre.0, lon: tinyCentre.1, radius: 0.01))
        circles.append(Circle(id: "tiny1m", lat: tinyCentre.0, lon: tinyCentre.1, radius: 1))
        let probe = try Self.preparedEngine(policy, circles)
        let grid = probe.catalog.coverGrid
        #expect(grid.hasCells)
        let identifiers = probe.catalog.geographicIdentifiers
        let hugeIndices = Set(identifiers.indices.filter { i in huge.contains { $0.id == identifiers[i] } }.map { Int32($0) })
        #expect(Set(grid.excluded) == hugeIndices, "the grid holds all but the huge circles, which the condition index answers")

        let devices = 24
        let rims = Array(huge[..<4])
        var positions = (0..<devices).map { _ in Self.paris }
        var fixes: [FixSpec] = []
        for n in 0..<7200 {
            let d = n % devices
            var p = positions[d]
            let accuracy = [0.0, 5, 5, 20, 65, 65, 100, 1000, 100_000, -1].randomElement(using: &rng)!
            switch Int.random(in: 0..<12, using: &rng) {
            case 0:  // onto a rim of a huge circle (within the cluster), or a tiny circle's
                if Bool.random(using: &rng) {
                    let c = rims.randomElement(using: &rng)!
                    let margin = max(policy.hysteresis, policy.accuracyWeight * max(0, accuracy))
                    // The bearing from the huge centre towards Paris, give or take the cluster's width.
                    let bearing = Oracle.bearing((c.lat, c.lon), Self.paris) + .random(in: -0.02...0.02, using: &rng)
                    p = Oracle.destination((c.lat, c.lon), metres: Self.thresholdDistance(c.radius, margin, &rng), bearing: bearing)
                } else {
                    p = Oracle.destination(tinyCentre, metres: Oracle.logUniform(0.001, 3, &rng), bearing: .random(in: 0..<360, using: &rng))
                }
            case 1:  // back to the cluster
                p = (Self.paris.0 + .random(in: -0.02...0.02, using: &rng), Self.paris.1 + .random(in: -0.03...0.03, using: &rng))
            default:  // a walk of 1 cm to 300 m
                p = Oracle.destination(p, metres: Oracle.logUniform(0.01, 300, &rng), bearing: .random(in: 0..<360, using: &rng))
            }
            positions[d] = p
            fixes.append(FixSpec(device: d, lat: p.0, lon: p.1, accuracy: accuracy, seconds: Double(n / devices)))
        }
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .fixes(Array(fixes[..<5000])), .fixes(Array(fixes[5000...]))],
                                   devices: devices)
        #expect(stats.decided > 700_000)
        #expect(stats.satisfiedEvents > 500)
        #expect(stats.eventCount(rims.map(\.id)) > 20)
    }
}
