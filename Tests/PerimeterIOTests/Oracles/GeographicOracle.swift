import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// A geographic condition a differential test adds to the engine, with a plain evaluation of its own.
protocol OracleCondition: Sendable {
    var id: String { get }
    var assuming: ConditionState { get }
    /// The condition as the engine takes it.
    var condition: Condition { get }
    var isPolygon: Bool { get }
    /// Its plain evaluation (for a polygon, a GEOS geometry and a scan of every edge), built once.
    func plain(in context: GEOSContext) -> GeographicOracle.Plain
}

/// The oracle the differential tests of geographic monitoring share (`CircleExtremesTests`,
/// `PolygonChurnTests`): steps of conditions added and removed and fixes, run one call per fix and as
/// batches on one and several threads, which must give identical events; those events are checked
/// against a state machine of the test's own (SPEC §2) fed by each condition's plain evaluation.
///
/// A plain evaluation may leave a fix's side undecided near a threshold (within its tolerance). The
/// oracle then keeps every pair state the allowed sides lead to and keeps those the engine's observed
/// state agrees with, so a pair is never compared against a state the engine may legitimately not be
/// in. After a discrepancy the pair is compared no more.
///
/// Here its conditions, geometry and state machine; the three runs and the judging of their events
/// are in `GeographicOracle+Runs.swift`.
enum GeographicOracle {
    static let earthRadius = 6_371_008.8
    static let start = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)

    struct FixSpec: Sendable {
        var device: Int
        var lat: Double
        var lon: Double
        var accuracy: Double
        var seconds: Double

        var fix: Fix {
            Fix(time: GeographicOracle.start.adding(TimeSpan(seconds: seconds)), coordinate: Coordinate(latitude: lat, longitude: lon),
                horizontalAccuracy: accuracy)
        }
    }

    enum Step {
        case add([any OracleCondition])
        case remove([String])
        case prepare
        case fixes([FixSpec])
    }

    /// One condition's plain evaluation: the sides a fix may take of it for a margin, and the
    /// distances behind that, for a report.
    struct Plain {
        var describe: String
        var sides: (FixSpec, _ margin: Double) -> Sides
        var explain: (FixSpec) -> String
    }

    static func policy(_ values: (hysteresis: Double, weight: Double, confirmation: Double)) -> MonitoringPolicy {
        var policy = MonitoringPolicy()
        policy.hysteresis = values.hysteresis
        policy.accuracyWeight = values.weight
        policy.confirmation = values.confirmation
        return policy
    }

    // MARK: The conditions

    struct Circle: OracleCondition {
        var id: String
        var lat: Double
        var lon: Double
        var radius: Double
        var assuming: ConditionState = .unknown

        var condition: Condition {
            .circle(try! CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
        }

        var isPolygon: Bool { false }

        /// The haversine distance to the centre less the radius, decided within `tolerance` of a threshold.
        func plain(in context: GEOSContext) -> Plain {
            Plain(describe: "circle \(id) centre (\(lat), \(lon)) radius \(radius) assuming \(assuming)",
                  sides: { [self] f, margin in
                      GeographicOracle.sides(distance: haversine(lat, lon, f.lat, f.lon), radius: radius, margin: margin)
                  },
                  explain: { [self] f in
                      let distance = haversine(lat, lon, f.lat, f.lon)
                      return "distance \(distance) m, d = \(distance - radius) m"
                  })
        }
    }

    /// A polygon or multipolygon: the sign of d by GEOS's plain `covers`, its size by the plain measure
    /// over every edge that counts as boundary (`SeamTests.boundaryDistance`: seam and pole edges do
    /// not), which is good to 0.5 % (SPEC §2), so
    /// a side is decided only where |d| is more than 1 % from the margin; with a margin of 0 the sign
    /// alone decides, exactly.
    struct Polygon: OracleCondition {
        var id: String
        var polygons: [GeoPolygon]
        var assuming: ConditionState = .unknown

        var condition: Condition { .polygon(try! PolygonalGeographicCondition(polygons: polygons)) }
        var isPolygon: Bool { true }

        func plain(in context: GEOSContext) -> Plain {
            let geometry = PolygonGeometry.make(polygons, in: context)
            let vertices = polygons.flatMap { $0.rings.flatMap { $0 } }
            let minLat = vertices.map(\.latitude).min()!, maxLat = vertices.map(\.latitude).max()!
            let minLon = vertices.map(\.longitude).min()!, maxLon = vertices.map(\.longitude).max()!
            func covers(_ f: FixSpec) -> Bool {
                geometry.covers(GEOSGeometryHandle.point(Coordinate(latitude: f.lat, longitude: f.lon), in: context))
            }
            return Plain(
                describe: "polygon \(id) (\(polygons.count) parts, \(polygons.map(\.holes.count).reduce(0, +)) holes, first vertex "
                    + "\(polygons[0].exterior[0])) assuming \(assuming)",
                sides: { f, margin in
                    precondition(margin < 500)
                    // More than 0.01° (over 700 m at these latitudes) outside the box: outside by far.
                    if f.lat < minLat - 0.01 || f.lat > maxLat + 0.01 || f.lon < minLon - 0.01 || f.lon > maxLon + 0.01 {
                        return .outside
                    }
                    let inside = covers(f)
                    if margin == 0 { return inside ? .inside : .outside }
                    let distance = SeamTests.boundaryDistance(from: Coordinate(latitude: f.lat, longitude: f.lon), polygons)
                    if abs(distance - margin) <= 0.01 * max(distance, margin) { return [inside ? .inside : .outside, .between] }
                    return distance >= margin ? (inside ? .inside : .outside) : .between
                },
                explain: { f in
                    "covered \(covers(f)), distance to the boundary \(SeamTests.boundaryDistance(from: Coordinate(latitude: f.lat, longitude: f.lon), polygons)) m"
                })
        }
    }

    // MARK: Geometry of the test's own

    /// Great-circle distance by the haversine formula on the mean Earth radius (SPEC §2), the
    /// longitude difference taken the short way round.
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        var dLon = (lon2 - lon1).truncatingRemainder(dividingBy: 360)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let phi1 = lat1 * toRadians, phi2 = lat2 * toRadians
        let a = sin((phi2 - phi1) / 2), b = sin(dLon * toRadians / 2)
        let h = a * a + cos(phi1) * cos(phi2) * b * b
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// The point `metres` from `p` along the great circle leaving it at `bearing` degrees.
    static func destination(_ p: (Double, Double), metres: Double, bearing: Double) -> (Double, Double) {
        let r = Double.pi / 180
        let delta = metres / earthRadius, theta = bearing * r, phi1 = p.0 * r
        let sinPhi2 = max(-1, min(1, sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)))
        let lambda = atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sinPhi2)
        return (max(-90, min(90, asin(sinPhi2) / r)), normalised(p.1 + lambda / r))
    }

    static func bearing(_ from: (Double, Double), _ to: (Double, Double)) -> Double {
        let r = Double.pi / 180
        let phi1 = from.0 * r, phi2 = to.0 * r, dLambda = (to.1 - from.1) * r
        return atan2(sin(dLambda) * cos(phi2), cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)) / r
    }

    static func normalised(_ lon: Double) -> Double {
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l > 180 { l -= 360 } else if l < -180 { l += 360 }
        return l
    }

    static func logUniform(_ low: Double, _ high: Double, _ rng: inout SplitMix64) -> Double {
        exp(Double.random(in: log(low)...log(high), using: &rng))
    }

    // MARK: Sides and the state machine

    /// How near a circle's threshold the oracle leaves the side undecided.
    static func tolerance(distance: Double, radius: Double, margin: Double) -> Double {
        1e-6 * max(distance, radius, margin) + 0.001
    }

    struct Sides: OptionSet, Hashable {
        let rawValue: UInt8
        static let inside = Sides(rawValue: 1)
        static let between = Sides(rawValue: 2)
        static let outside = Sides(rawValue: 4)
        var isDecided: Bool { rawValue.nonzeroBitCount == 1 }
    }

    /// Where a fix `distance` from a circle's centre is, with margin `margin` (SPEC §2): confidently
    /// inside when d ≤ −m, confidently outside when d > m, else between; every answer within the
    /// tolerance of d.
    static func sides(distance: Double, radius: Double, margin: Double) -> Sides {
        let tolerance = tolerance(distance: distance, radius: radius, margin: margin)
        let d = distance - radius
        func side(_ x: Double) -> Sides { x <= -margin ? .inside : (x > margin ? .outside : .between) }
        var sides = side(d - tolerance).union(side(d + tolerance))
        if sides.contains(.inside) && sides.contains(.outside) && margin > 0 { sides.insert(.between) }
        return sides
    }

    /// A pair's state (SPEC §2): a change needs confident fixes on the new side for `confirmation`
    /// seconds; a confident fix on the current side cancels a pending change.
    struct Pair: Hashable {
        var state: ConditionState
        var pendingInside: Bool?
        var since: Int64 = 0

        func observing(_ sides: Sides, at t: Int64, confirmation: Int64) -> Pair {
            guard sides != .between else { return self }
            let inside = sides == .inside
            let target: ConditionState = inside ? .satisfied : .unsatisfied
            var next = self
            if state == target {
                next.pendingInside = nil
                return next
            }
            if pendingInside != inside {
                next.pendingInside = inside
                next.since = t
            }
            if t - next.since >= confirmation {
                next.state = target
                next.pendingInside = nil
            }
            return next
        }
    }
}
