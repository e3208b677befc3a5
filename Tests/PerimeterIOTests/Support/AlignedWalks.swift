import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The devices' walks of `AlignedGeometryTests`' engine test (across and along edges, through
/// vertices, along raster and cover-grid lines), and the engine of the drawings with their oracles.
extension AlignedGeometryTests {
    /// A device's walk: its points, at one accuracy.
    struct Walk {
        let name: String
        let points: [Coordinate]
        let accuracy: Double
    }

    static let accuracies: [Double] = [0, 5, 30, 65]

    /// Perpendicular steps across an edge, metres: each margin (5, 30, 65) 1.5 % to 3.3 % either way,
    /// half a metre, and the edge itself.
    static let across: [Double] = [-150, -66, -64, -31, -29.5, -4.9, -0.5, 0, 0.5, 4.9, 29.5, 31, 64, 66, 150]

    /// The walks of one drawing: across each edge at its midpoint; along each ring; along a raster
    /// row's centre line and a column's border line, half a cell a step; diagonally through
    /// vertices, half a cell a step; along the cover grid's row and column borders near it; and from
    /// cover-grid cell centres straight through the boundary point nearest them. Each of the first
    /// kinds at two accuracies (0 and 30, 5 and 65, 0 and 65, 5 and 30 in turn), the grid's at one.
    static func walks(_ polygons: [GeoPolygon], grid: CoverGrid) -> [Walk] {
        var walks: [(String, [Coordinate])] = []
        let rings = polygons.flatMap(\.rings)
        // (Of a shape of many edges, every eighth.)
        let every = polygons.reduce(0) { $0 + $1.vertexCount } > 100 ? 8 : 1
        for (r, ring) in rings.enumerated() {
            for i in stride(from: 0, to: ring.count - 1, by: every) where ring[i] != ring[i + 1] {
                let a = ring[i], b = ring[i + 1]
                let mid = Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2)
                walks.append(("across ring \(r) edge \(i)", across.map { offset(mid, from: a, b, metres: $0) }))
            }
        }
        let raster = Raster(polygons)
        for (r, ring) in rings.enumerated() {
            var points: [Coordinate] = []
            for i in stride(from: 0, to: ring.count - 1, by: every) {
                let a = ring[i], b = ring[i + 1]
                let steps = min(24, max(1, Int((max(abs(b.longitude - a.longitude) / raster.cellWidth,
                                                    abs(b.latitude - a.latitude) / raster.cellHeight) * 2).rounded(.up))))
                for k in 0..<steps {
                    let t = Double(k) / Double(steps)
                    points.append(Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude)))
                }
            }
            points.append(ring[ring.count - 1])
            walks.append(("along ring \(r)", points))
        }
        // A row's centre line and a column's border line, half a cell a step (of a large raster, the
        // first hundred half cells).
        for l in [2 * (raster.rows / 2) + 1] {
            walks.append(("raster row line \(l) halves", (-2...min(2 * raster.columns + 2, 96)).map {
                Coordinate(latitude: raster.y(halves: l), longitude: raster.x(halves: $0))
            }))
        }
        for k in [2 * (raster.columns / 3)] {
            walks.append(("raster column line \(k) halves", (-2...min(2 * raster.rows + 2, 96)).map {
                Coordinate(latitude: raster.y(halves: $0), longitude: raster.x(halves: k))
            }))
        }
        for (r, ring) in rings.enumerated() {
            for (i, v) in ring.dropLast().prefix(8).enumerated() {
                for slope in [i % 2 == 0 ? 1.0 : -1.0] {
                    walks.append(("through vertex \(i) of ring \(r), slope \(slope)", (-4...4).map {
                        Coordinate(latitude: v.latitude + Double($0) * slope * raster.cellHeight / 2,
                                   longitude: v.longitude + Double($0) * raster.cellWidth / 2)
                    }))
                }
            }
        }
        // Each at two accuracies, in turn 0 and 30, 5 and 65, 0 and 65, 5 and 30.
        let pairs: [[Double]] = [[0, 30], [5, 65], [0, 65], [5, 30]]
        var result = walks.enumerated().flatMap { n, walk in
            pairs[n % pairs.count].map {
                Walk(name: "\(walk.0) a\($0)", points: walk.1, accuracy: $0)
            }
        }
        // Cover-grid cell centres near the shape, each walked from the centre through its nearest
        // boundary point and on, at one accuracy (in turn).
        guard grid.rows > 1 else { return wrapped(result) }
        let edges = rings.flatMap { ring in zip(ring, ring.dropFirst()).map { ($0, $1) } }
        let box = Geodesy.expanded(BoundingBox(enclosing: polygons.flatMap(\.exterior))!, metres: 30)
        func index(_ v: Double, _ origin: Double, _ step: Double, _ count: Int) -> Int {
            min(count - 1, max(0, Int(((v - origin) / step).rounded(.down))))
        }
        let r0 = index(box.minLatitude, grid.minLatitude, grid.latitudeStep, grid.rows)
        let r1 = index(box.maxLatitude, grid.minLatitude, grid.latitudeStep, grid.rows)
        let c0 = index(box.minLongitude, grid.minLongitude, grid.longitudeStep, grid.columns)
        let c1 = index(box.maxLongitude, grid.minLongitude, grid.longitudeStep, grid.columns)
        // Along the grid's row and column borders near the shape, through its cell corners and the
        // midpoints of its cell sides.
        var n = 0
        for r in r0...(r1 + 1) {
            let latitude = grid.minLatitude + Double(r) * grid.latitudeStep
            let points = (2 * c0...(2 * c1 + 2)).map { Coordinate(latitude: latitude, longitude: grid.minLongitude + Double($0) / 2 * grid.longitudeStep) }
            result.append(Walk(name: "grid row border \(r)", points: points, accuracy: accuracies[n % accuracies.count]))
            n += 1
        }
        for c in c0...(c1 + 1) {
            let longitude = grid.minLongitude + Double(c) * grid.longitudeStep
            let points = (2 * r0...(2 * r1 + 2)).map { Coordinate(latitude: grid.minLatitude + Double($0) / 2 * grid.latitudeStep, longitude: longitude) }
            result.append(Walk(name: "grid column border \(c)", points: points, accuracy: accuracies[n % accuracies.count]))
            n += 1
        }
        for r in r0...r1 {
            for c in c0...c1 where (r + c) % 2 == 0 || (r1 - r0) * (c1 - c0) < 16 {
                let centre = gridCentre(grid, row: r, column: c)
                let p = nearestPoint(to: centre, edges: edges)
                let kx = Geodesy.metresPerDegree * cos(p.latitude * Geodesy.radiansPerDegree), ky = Geodesy.metresPerDegree
                var (dx, dy) = ((p.longitude - centre.longitude) * kx, (p.latitude - centre.latitude) * ky)
                let length = (dx * dx + dy * dy).squareRoot()
                (dx, dy) = length > 0 ? (dx / length, dy / length) : (1, 0)
                let points = [centre] + [-31.0, -6, -1, 0, 1, 6, 31, 66].map {
                    Coordinate(latitude: p.latitude + dy * $0 / ky, longitude: p.longitude + dx * $0 / kx)
                }
                result.append(Walk(name: "grid centre (\(r), \(c)) through its nearest boundary point", points: points,
                                   accuracy: accuracies[n % accuracies.count]))
                n += 1
            }
        }
        return wrapped(result)
    }

    /// The walks with points east of the antimeridian taken round it, and without points beyond a
    /// pole.
    static func wrapped(_ walks: [Walk]) -> [Walk] {
        walks.compactMap { walk in
            let points = walk.points.filter { abs($0.latitude) <= 90 }
                .map { $0.longitude > 180 ? Coordinate(latitude: $0.latitude, longitude: $0.longitude - 360) : $0 }
            return points.isEmpty ? nil : Walk(name: walk.name, points: points, accuracy: walk.accuracy)
        }
    }

    /// The centre of cover-grid cell (row, column), as `CoverGrid.init` classifies it.
    static func gridCentre(_ grid: CoverGrid, row r: Int, column c: Int) -> Coordinate {
        let lat0 = grid.minLatitude + Double(r) * grid.latitudeStep, lat1 = grid.minLatitude + Double(r + 1) * grid.latitudeStep
        let lon0 = grid.minLongitude + Double(c) * grid.longitudeStep, lon1 = grid.minLongitude + Double(c + 1) * grid.longitudeStep
        return Coordinate(latitude: (lat0 + lat1) / 2, longitude: (lon0 + lon1) / 2)
    }

    /// An engine (its cover grid built) of the shapes, each with two circles centred on its first
    /// vertex: one through its third vertex, one tangent to its nearest edge not at that vertex; with
    /// the conditions, their oracles, and each shape's name, polygons as drawn and condition number.
    static func engine(_ shapes: [(String, [GeoPolygon])], context: GEOSContext) throws
        -> (MonitoringEngine, [(condition: Condition, identifier: String, assuming: ConditionState?)], [ConditionOracle],
            [(name: String, polygons: [GeoPolygon], condition: Int)]) {
        var conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)] = []
        var oracles: [ConditionOracle] = []
        var placed: [(name: String, polygons: [GeoPolygon], condition: Int)] = []
        for (name, raw) in shapes {
            // (Repaired where invalid: the parts sharing an edge.)
            let polygon = try PolygonalGeographicCondition(polygons: raw, repair: true)
            placed.append((name, raw, conditions.count))
            conditions.append((.polygon(polygon), name, .unknown))
            oracles.append(ConditionOracle(name, polygon: PolygonOracle(polygon.polygons, context: context)))
            let v = raw[0].exterior[0]
            let through = Geodesy.distance(v, raw[0].exterior[2])
            let tangent = raw[0].exterior.indices.dropLast().compactMap { i -> Double? in
                let a = raw[0].exterior[i], b = raw[0].exterior[i + 1]
                return a == v || b == v ? nil : DifferentialTests.fineDistance(from: v, edges: [(a, b)])
            }.min()
            for (kind, radius) in [("through", through), ("tangent", tangent ?? 0)] where radius > 0 && radius <= 1_000_000 {
                let id = "\(name) circle \(kind)"
                conditions.append((.circle(try CircularGeographicCondition(center: v, radius: radius)), id, .unsatisfied))
                oracles.append(ConditionOracle(id, centre: v, radius: radius))
            }
        }
        var engine = MonitoringEngine()
        try engine.add(contentsOf: conditions)
        engine.prepare()
        return (engine, conditions, oracles, placed)
    }
}
