import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `AlignedGeometryTests`' oracles, independent of the code under test: GEOS's plain `covers` and
/// `contains` on a polygon's raw coordinates, the fine distance to its edges, a plain haversine for
/// circles, and what SPEC §2 says one fix says about one condition.
extension AlignedGeometryTests {
    /// GEOS on a polygon's raw coordinates, and the fine distance to its edges — those that count as
    /// boundary: an edge with both ends at longitude 180, or both at −180 (the antimeridian, where a
    /// polygon split by RFC 7946 §3.1.9 was cut), or both at latitude 90, or both at −90 (a pole drawn
    /// as a line), is no boundary anyone can stand on (SPEC §2 as docs/choices.md states it, our rule);
    /// GEOS's covers still counts it.
    final class PolygonOracle {
        let context: GEOSContext
        let geometry: GEOSGeometryHandle
        let edges: [(Coordinate, Coordinate)]
        let box: BoundingBox
        private let edgeBoxes: [BoundingBox]

        init(_ polygons: [GeoPolygon], context: GEOSContext) {
            self.context = context
            geometry = PolygonGeometry.make(polygons, in: context)
            func on(_ value: Double, _ line: Double) -> Bool { abs(value - line) <= 1e-9 }
            func countsAsBoundary(_ a: Coordinate, _ b: Coordinate) -> Bool {
                ![180.0, -180].contains { on(a.longitude, $0) && on(b.longitude, $0) }
                    && ![90.0, -90].contains { on(a.latitude, $0) && on(b.latitude, $0) }
            }
            edges = polygons.flatMap(\.rings).flatMap { ring in zip(ring, ring.dropFirst()).map { ($0, $1) } }.filter(countsAsBoundary)
            edgeBoxes = edges.map { BoundingBox(enclosing: [$0.0, $0.1])! }
            box = BoundingBox(enclosing: polygons.flatMap(\.exterior))!
        }

        func covers(_ p: Coordinate) -> Bool { geometry.covers(GEOSGeometryHandle.point(p, in: context)) }

        func contains(_ p: Coordinate) -> Bool {
            let point = GEOSGeometryHandle.point(p, in: context)
            return GEOSContains_r(context.handle, geometry.pointer, point.pointer) == 1
        }

        /// `DifferentialTests.fineDistance` to the nearest edge, measured only on the edges a lower
        /// bound does not rule out (the same minimum, for a fraction of the cost).
        /// (To within a millimetre: an edge whose lower bound is within that of the best distance so
        /// far is not measured. The edge nearest in a plain equirectangular frame is measured first.)
        func distance(_ p: Coordinate) -> Double {
            guard !edges.isEmpty else { return .infinity }
            let kx = cos(p.latitude * Geodesy.radiansPerDegree)
            func wrapped(_ lon: Double) -> Double { lon - p.longitude > 180 ? lon - 360 : lon - p.longitude < -180 ? lon + 360 : lon }
            var first = 0, firstSquared = Double.infinity
            for (k, (a, b)) in edges.enumerated() {
                let ax = (wrapped(a.longitude) - p.longitude) * kx, ay = a.latitude - p.latitude
                let dx = (wrapped(b.longitude) - wrapped(a.longitude)) * kx, dy = b.latitude - a.latitude
                let l2 = dx * dx + dy * dy
                let t = l2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / l2)) : 0
                let d2 = (ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)
                if d2 < firstSquared { firstSquared = d2; first = k }
            }
            var best = DifferentialTests.fineDistance(from: p, edges: [edges[first]])
            for k in edges.indices where k != first {
                let box = edgeBoxes[k]
                // (By latitude alone first: no trigonometry.)
                let byLatitude = max(0, box.minLatitude - p.latitude, p.latitude - box.maxLatitude) * Geodesy.metresPerDegree * (1 - 1e-9)
                guard byLatitude < best - 1e-3, AlignedGeometryTests.lowerBound(p, box) < best - 1e-3 else { continue }
                best = min(best, DifferentialTests.fineDistance(from: p, edges: [edges[k]]))
            }
            return best
        }
    }

    /// A lower bound on the great-circle distance from `p` to any point of `box` (either way round):
    /// hav θ = hav Δφ + cos φ₁ cos φ₂ hav Δλ, each term at least its least over the box (Δφ, Δλ at
    /// least the gaps, cos φ₂ at least at the box's most poleward latitude).
    static func lowerBound(_ p: Coordinate, _ box: BoundingBox) -> Double {
        let dLat = max(0, box.minLatitude - p.latitude, p.latitude - box.maxLatitude)
        let dLon = min(180, [-360.0, 0, 360].map { turn in
            max(0, box.minLongitude + turn - p.longitude, p.longitude - box.maxLongitude - turn)
        }.min()!)
        let r = Geodesy.radiansPerDegree
        let poleward = max(abs(box.minLatitude), abs(box.maxLatitude))
        let h = pow(sin(dLat * r / 2), 2) + cos(p.latitude * r) * max(0, cos(poleward * r)) * pow(sin(dLon * r / 2), 2)
        return 2 * Geodesy.meanEarthRadius * asin(min(1, h.squareRoot())) * (1 - 1e-9) - 1e-9
    }

    /// The great-circle distance from `p` to a longitude/latitude box: along the meridian when `p`'s
    /// longitude is within the box's, else to the nearer of its meridian sides (a great circle's
    /// segment: its point nearest `p` is at latitude atan(tan φ / cos Δλ), or the pole, clamped).
    static func boxDistance(_ p: Coordinate, _ box: BoundingBox) -> Double {
        func clamp(_ v: Double) -> Double { min(box.maxLatitude, max(box.minLatitude, v)) }
        let inside = [-360.0, 0, 360].contains { p.longitude + $0 >= box.minLongitude && p.longitude + $0 <= box.maxLongitude }
        if inside { return haversine(p, Coordinate(latitude: clamp(p.latitude), longitude: p.longitude)) }
        return [box.minLongitude, box.maxLongitude].map { lon in
            var dLon = (lon - p.longitude).truncatingRemainder(dividingBy: 360)
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let c = cos(dLon * Geodesy.radiansPerDegree), r = Geodesy.radiansPerDegree
            let foot = c > 0 ? atan(tan(p.latitude * r) / c) / r : (p.latitude >= 0 ? 90 : -90)
            return haversine(p, Coordinate(latitude: clamp(foot), longitude: lon))
        }.min()!
    }

    /// A plain haversine (mean Earth radius), written out again.
    static func haversine(_ a: Coordinate, _ b: Coordinate) -> Double {
        let r = Double.pi / 180
        let h = pow(sin((b.latitude - a.latitude) * r / 2), 2)
            + cos(a.latitude * r) * cos(b.latitude * r) * pow(sin((b.longitude - a.longitude) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// What SPEC §2 says one fix says about one condition.
    enum Verdict: Equatable {
        case inside, outside, near
        /// Within 1 % of the margin (or, at margin 0, a micrometre of a circle's rim): either answer
        /// may be right, and the device's later states may legitimately differ.
        case ambiguous
    }

    /// A condition of the engine test and its oracle, with a box beyond which every fix with a margin
    /// up to `farMargin` is confidently outside (no trigonometry needed for most conditions).
    final class ConditionOracle {
        let identifier: String
        let polygon: PolygonOracle?
        let centre: Coordinate, radius: Double
        let reach: BoundingBox
        private var covered: [Coordinate: (covers: Bool, boundary: Bool)] = [:]
        private var distances: [Coordinate: Double] = [:]
        static let farMargin = 70.0

        init(_ identifier: String, polygon: PolygonOracle) {
            self.identifier = identifier
            self.polygon = polygon
            centre = Coordinate(latitude: 0, longitude: 0)
            radius = 0
            reach = Geodesy.expanded(polygon.box, metres: Self.farMargin * 1.05 + 1)
        }

        init(_ identifier: String, centre: Coordinate, radius: Double) {
            self.identifier = identifier
            polygon = nil
            self.centre = centre
            self.radius = radius
            reach = Geodesy.boundingBox(around: centre, metres: radius + Self.farMargin * 1.05 + 1)
        }

        /// (Either way round the antimeridian. A polygon's box is measured: near a pole, where
        /// `Geodesy.expanded` leaves out longitudes that are within reach, no longitude is far.)
        func isFar(_ p: Coordinate) -> Bool {
            if p.latitude < reach.minLatitude || p.latitude > reach.maxLatitude { return true }
            if let polygon { return AlignedGeometryTests.boxDistance(p, polygon.box) > Self.farMargin * 1.05 + 1 }
            if p.longitude >= reach.minLongitude && p.longitude <= reach.maxLongitude { return false }
            let turned = p.longitude < 0 ? p.longitude + 360 : p.longitude - 360
            return turned < reach.minLongitude || turned > reach.maxLongitude
        }

        /// GEOS's covers, and whether the point is on the boundary (covered, not contained).
        func location(_ p: Coordinate) -> (covers: Bool, boundary: Bool) {
            guard let polygon else {
                let d = AlignedGeometryTests.haversine(centre, p) - radius
                return (d <= 0, abs(d) <= 1e-6)
            }
            if let known = covered[p] { return known }
            let covers = polygon.covers(p), result = (covers, covers && !polygon.contains(p))
            covered[p] = result
            return result
        }

        /// Whether the condition contains `p` as a stateless query answers (nil: a circle's rim,
        /// within a micrometre).
        func contains(_ p: Coordinate) -> Bool? {
            if isFar(p) { return false }
            if polygon == nil {
                let d = AlignedGeometryTests.haversine(centre, p) - radius
                return abs(d) <= 1e-6 ? nil : d <= 0
            }
            return location(p).covers
        }

        func verdict(_ p: Coordinate, margin m: Double) -> Verdict {
            precondition(m <= Self.farMargin)
            if isFar(p) { return .outside }
            guard let polygon else {
                let d = AlignedGeometryTests.haversine(centre, p) - radius
                if m == 0 { return abs(d) <= 1e-6 ? .ambiguous : (d <= 0 ? .inside : .outside) }
                if abs(abs(d) - m) <= 0.01 * m + 1e-6 { return .ambiguous }
                return d <= -m ? .inside : (d > m ? .outside : .near)
            }
            let (covers, _) = location(p)
            if m == 0 { return covers ? .inside : .outside }
            // (On the boundary the distance is 0, unless the point is on seam or pole edges alone.)
            let d: Double
            if let known = distances[p] {
                d = known
            } else {
                d = polygon.distance(p)
                distances[p] = d
            }
            if d <= 1e-6 { return .near }
            if abs(d - m) <= 0.01 * m { return .ambiguous }
            return covers ? (d >= m ? .inside : .near) : (d > m ? .outside : .near)
        }
    }
}
