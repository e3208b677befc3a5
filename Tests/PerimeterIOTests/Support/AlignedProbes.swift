import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The points `AlignedGeometryTests` asks a shape about: on its vertices, edges and raster lines, and
/// exact distances off its edges.
extension AlignedGeometryTests {
    /// The point `metres` from `p` perpendicular to the edge a → b (to its left for positive
    /// `metres`), in the local equirectangular frame.
    static func offset(_ p: Coordinate, from a: Coordinate, _ b: Coordinate, metres s: Double) -> Coordinate {
        let kx = Geodesy.metresPerDegree * cos(p.latitude * Geodesy.radiansPerDegree), ky = Geodesy.metresPerDegree
        let ex = (b.longitude - a.longitude) * kx, ey = (b.latitude - a.latitude) * ky
        let length = (ex * ex + ey * ey).squareRoot()
        guard length > 0 else { return p }
        return Coordinate(latitude: p.latitude + ex / length * s / ky, longitude: p.longitude - ey / length * s / kx)
    }

    /// The point of the edges nearest `p` (sampled, then refined), for putting fixes there.
    static func nearestPoint(to p: Coordinate, edges: [(Coordinate, Coordinate)]) -> Coordinate {
        func at(_ a: Coordinate, _ b: Coordinate, _ t: Double) -> Coordinate {
            Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude))
        }
        var best = Double.infinity, point = p
        for (a, b) in edges {
            var bestT = 0.0, bestD = Double.infinity
            for k in 0...64 {
                let d = Geodesy.distance(p, at(a, b, Double(k) / 64))
                if d < bestD { bestD = d; bestT = Double(k) / 64 }
            }
            var lo = max(0, bestT - 1.0 / 64), hi = min(1, bestT + 1.0 / 64)
            for _ in 0..<60 {
                let m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3
                if Geodesy.distance(p, at(a, b, m1)) < Geodesy.distance(p, at(a, b, m2)) { hi = m2 } else { lo = m1 }
            }
            let q = at(a, b, (lo + hi) / 2), d = Geodesy.distance(p, q)
            if d < best { best = d; point = q }
        }
        return point
    }

    /// The margins of the point checks, metres.
    static let margins: [Double] = [0, 1, 5, 30, 65, 250, 2000]

    /// Perpendicular offsets from edges, metres: 0.5 m and 1 m, and each margin less 1 % (within the
    /// 1 % band: never asserted, only run), plus 1.5 %, and ± 10 % — the margins up to twice the
    /// shape's size (a point farther out is no harder than any other).
    static func offsets(size: Double) -> [Double] {
        [0.5, 1] + [1.0, 5, 30, 65, 250, 2000].filter { $0 <= max(5, 2 * size) }.flatMap { m in [0.9, 0.99, 1.015, 1.1].map { m * $0 } }
    }

    struct Probe {
        let coordinate: Coordinate
        let kind: String
    }

    /// Every vertex and edge midpoint; the points where each edge crosses a raster cell's centre line
    /// or border line (for an axis-aligned edge, cell centres and corners exactly on it); points off
    /// each edge by `offsets`, both sides (at the edge's first crossing of a raster line, else at its
    /// midpoint); and every raster cell centre and corner. A shape of many edges gets a sample of
    /// them. Points on the antimeridian are taken at −180 too; points east of it wrap round.
    static func probes(_ polygons: [GeoPolygon]) -> [Probe] {
        let raster = Raster(polygons)
        let box = BoundingBox(enclosing: polygons.flatMap(\.exterior))!
        let offsets = offsets(size: Geodesy.distance(Coordinate(latitude: box.minLatitude, longitude: box.minLongitude),
                                                     Coordinate(latitude: box.maxLatitude, longitude: box.maxLongitude)))
        // (Of a shape of many edges, every second or eighth edge and a sample of its raster.)
        let vertexCount = polygons.reduce(0) { $0 + $1.vertexCount }
        let heavy = vertexCount > 100, every = vertexCount > 100 ? 8 : vertexCount > 48 ? 2 : 1
        var result: [Probe] = []
        var ringNumber = 0
        for ring in polygons.flatMap(\.rings) {
            defer { ringNumber += 1 }
            for i in 0..<(ring.count - 1) {
                let a = ring[i], b = ring[i + 1]
                let edge = "ring \(ringNumber) edge \(i)"
                if i % every != 0 { continue }
                result.append(Probe(coordinate: a, kind: "vertex \(i) of ring \(ringNumber)"))
                let mid = Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2)
                result.append(Probe(coordinate: mid, kind: "midpoint of \(edge)"))
                var crossings: [Coordinate] = []
                for k in 0...(2 * raster.columns) {
                    let x = raster.x(halves: k)
                    guard x > min(a.longitude, b.longitude) && x < max(a.longitude, b.longitude) else { continue }
                    let t = (x - a.longitude) / (b.longitude - a.longitude)
                    crossings.append(Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: x))
                }
                for k in 0...(2 * raster.rows) {
                    let y = raster.y(halves: k)
                    guard y > min(a.latitude, b.latitude) && y < max(a.latitude, b.latitude) else { continue }
                    let t = (y - a.latitude) / (b.latitude - a.latitude)
                    crossings.append(Coordinate(latitude: y, longitude: a.longitude + t * (b.longitude - a.longitude)))
                }
                if heavy { crossings = stride(from: 0, to: crossings.count, by: max(1, crossings.count / 6)).map { crossings[$0] } }
                result += crossings.map { Probe(coordinate: $0, kind: "on \(edge) at a raster line") }
                let base = crossings.first ?? mid
                for s in offsets where !heavy || i % 32 == 0 {
                    for side in [1.0, -1.0] {
                        result.append(Probe(coordinate: offset(base, from: a, b, metres: side * s), kind: "\(side * s) m off \(edge)"))
                    }
                }
            }
        }
        // A vertex on a pole: points the other side of it, at exact distances from it (every
        // longitude meets there).
        for v in polygons.flatMap(\.rings).flatMap({ $0 }) where abs(v.latitude) == 90 {
            for s in [0.5, 5, 30, 64, 250, 1000] {
                for turn in [90.0, 180] {
                    let lon = v.longitude + turn > 180 ? v.longitude + turn - 360 : v.longitude + turn
                    result.append(Probe(coordinate: Coordinate(latitude: v.latitude - (v.latitude > 0 ? 1 : -1) * s / Geodesy.metresPerDegree, longitude: lon),
                                        kind: "\(s) m from the pole vertex, \(turn)° round"))
                }
            }
        }
        // (A raster of many cells: some rows of it, across the teeth.)
        let rowLines = heavy ? Array(stride(from: 0, through: 2 * raster.rows, by: max(1, raster.rows / 3))) + [1, 2, 3] : Array(0...(2 * raster.rows))
        let columnLines = heavy ? Array(0...min(2 * raster.columns, 48)) : Array(0...(2 * raster.columns))
        for k in columnLines {
            for l in rowLines where k % 2 == l % 2 {
                result.append(Probe(coordinate: Coordinate(latitude: raster.y(halves: l), longitude: raster.x(halves: k)),
                                    kind: k % 2 == 1 ? "raster centre" : "raster corner"))
            }
        }
        return result.filter { abs($0.coordinate.latitude) <= 90 }.flatMap { probe -> [Probe] in
            let c = probe.coordinate
            if c.longitude > 180 { return [Probe(coordinate: Coordinate(latitude: c.latitude, longitude: c.longitude - 360), kind: probe.kind)] }
            if c.longitude == 180 { return [probe, Probe(coordinate: Coordinate(latitude: c.latitude, longitude: -180), kind: probe.kind + " at -180")] }
            return [probe]
        }
    }
}
