import Foundation
import Perimeter
import PerimeterTestSupport

/// Deterministic synthetic workloads in the shape of the W1–W3, small enough for
/// `swift package benchmark` (the full-size peer comparison is Benchmarks/peers/compare.py).
enum Workload {
    typealias Generator = SplitMix64

    static let centre = Coordinate(latitude: 48.85, longitude: 2.35)
    /// Half of a 50 km square, in degrees.
    static let halfLatitude = 25_000 / Geodesy.metresPerDegree
    static let halfLongitude = halfLatitude / cos(48.85 * .pi / 180)

    static func randomPoint(_ rng: inout Generator) -> Coordinate {
        Coordinate(latitude: centre.latitude + .random(in: -halfLatitude...halfLatitude, using: &rng),
                   longitude: centre.longitude + .random(in: -halfLongitude...halfLongitude, using: &rng))
    }

    /// A star-shaped polygon of `n` vertices around `c`, radii between `low` and `high` metres.
    static func star(_ n: Int, around c: Coordinate, low: Double, high: Double, _ rng: inout Generator) -> GeoPolygon {
        var ring: [Coordinate] = (0..<n).map { k in
            let angle = Double(k) / Double(n) * 2 * .pi
            let r = Double.random(in: low...high, using: &rng) / Geodesy.metresPerDegree
            return Coordinate(latitude: c.latitude + r * sin(angle), longitude: c.longitude + r * cos(angle) / cos(c.latitude * .pi / 180))
        }
        ring.append(ring[0])
        return GeoPolygon(exterior: ring)
    }

    /// An engine with `circles` circles (50–500 m) and `polygons` polygons (16–64 vertices), all
    /// starting unsatisfied, as a geofencing service's devices start outside everything.
    static func engine(circles: Int, polygons: Int, seed: UInt64 = 1) -> MonitoringEngine {
        var rng = Generator(seed: seed)
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unsatisfied
        var engine = MonitoringEngine(policy: policy)
        for i in 0..<circles {
            try! engine.add(.circle(CircularGeographicCondition(center: randomPoint(&rng), radius: .random(in: 50...500, using: &rng))),
                            identifier: "c\(i)")
        }
        for i in 0..<polygons {
            let polygon = star(.random(in: 16...64, using: &rng), around: randomPoint(&rng), low: 50, high: 500, &rng)
            try! engine.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
        }
        _ = engine.makeContainmentQuery()  // lays out the indexes before timing starts
        return engine
    }

    /// `count` fixes from `devices` devices on random walks (1 Hz, 1–30 m/s, accuracy 5–65 m),
    /// interleaved by time across devices.
    static func fixes(count: Int, devices: Int, seed: UInt64 = 2) -> [(device: Int, fix: Fix)] {
        var rng = Generator(seed: seed)
        var positions = (0..<devices).map { _ in randomPoint(&rng) }
        var headings = (0..<devices).map { _ in Double.random(in: 0..<(2 * .pi), using: &rng) }
        let start = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
        return (0..<count).map { i in
            let d = i % devices
            if Int.random(in: 0..<20, using: &rng) == 0 { headings[d] = .random(in: 0..<(2 * .pi), using: &rng) }
            let step = Double.random(in: 1...30, using: &rng) / Geodesy.metresPerDegree
            positions[d].latitude += step * sin(headings[d])
            positions[d].longitude += step * cos(headings[d]) / cos(positions[d].latitude * .pi / 180)
            let time = start.adding(TimeSpan(nanoseconds: Int64(i / devices) * 1_000_000_000))
            return (d, Fix(time: time, coordinate: positions[d], horizontalAccuracy: .random(in: 5...65, using: &rng)))
        }
    }

    static let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
}
