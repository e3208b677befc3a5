import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `--repair-polygons` against GEOS itself. Random invalid polygons — bow-ties, rings that cross or
/// touch themselves, holes that cross or lie outside their shell, overlapping and nested parts,
/// spikes, coordinates snapped to a coarse grid so that edges coincide — are written as GeoJSON and
/// read with repair; each point's answer from the engine's containment query and from its reading
/// of a fix must equal GEOS `covers` on the polygonal parts of GEOS's own make-valid of the shape as
/// written (read here from WKT, not through the library's conversion). A shape with no area left
/// must be refused, naming its feature.
@Suite struct PolygonRepairTests {
    /// Owns a GEOS WKT reader (the library has no use for one).
    final class WKTReader {
        let context: GEOSContext
        let reader: OpaquePointer

        init(_ context: GEOSContext) {
            self.context = context
            reader = GEOSWKTReader_create_r(context.handle)!
        }

        deinit { GEOSWKTReader_destroy_r(context.handle, reader) }

        func read(_ wkt: String) -> GEOSGeometryHandle {
            GEOSGeometryHandle(context: context, pointer: GEOSWKTReader_read_r(context.handle, reader, wkt)!)
        }
    }

    typealias Ring = [(x: Double, y: Double)]
    /// Parts, each a shell and its holes.
    typealias Shape = [[Ring]]

    static func wkt(_ shape: Shape) -> String {
        func ring(_ r: Ring) -> String { "(" + r.map { "\($0.x) \($0.y)" }.joined(separator: ", ") + ")" }
        func polygon(_ p: [Ring]) -> String { "(" + p.map(ring).joined(separator: ", ") + ")" }
        return "MULTIPOLYGON (" + shape.map(polygon).joined(separator: ", ") + ")"
    }

    static func geoJSON(_ shape: Shape, id: String) -> String {
        func ring(_ r: Ring) -> String { "[" + r.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]" }
        func polygon(_ p: [Ring]) -> String { "[" + p.map(ring).joined(separator: ",") + "]" }
        let geometry = shape.count == 1 ? #"{"type":"Polygon","coordinates":\#(polygon(shape[0]))}"#
            : #"{"type":"MultiPolygon","coordinates":[\#(shape.map(polygon).joined(separator: ","))]}"#
        return #"{"type":"Feature","id":"\#(id)","geometry":\#(geometry),"properties":{}}"#
    }

    /// A random invalid (now and then valid) shape of about `size` degrees at (`x`, `y`).
    static func shape(_ rng: inout SplitMix64, x: Double, y: Double, size: Double) -> Shape {
        func at(_ u: Double, _ v: Double) -> (x: Double, y: Double) { (x + u * size, y + v * size) }
        func closed(_ r: Ring) -> Ring { r + [r[0]] }
        func square(_ u: Double, _ v: Double, _ s: Double) -> Ring {
            closed([at(u, v), at(u + s, v), at(u + s, v + s), at(u, v + s)])
        }
        func jitter() -> Double { .random(in: -0.1...0.1, using: &rng) }
        func star(_ n: Int, _ u: Double, _ v: Double, _ r: Double) -> Ring {
            closed((0..<n).map { k in
                let angle = Double(k) / Double(n) * 2 * .pi, radius = r * .random(in: 0.2...1, using: &rng)
                return at(u + radius * cos(angle), v + radius * sin(angle))
            })
        }
        var shape: Shape
        switch Int.random(in: 0..<9, using: &rng) {
        case 0:  // a bow-tie
            shape = [[closed([at(jitter(), jitter()), at(1 + jitter(), 1 + jitter()), at(1 + jitter(), jitter()), at(jitter(), 1 + jitter())])]]
        case 1:  // points in random order: a ring that crosses itself many times
            shape = [[closed((0..<Int.random(in: 4...40, using: &rng)).map { _ in
                at(.random(in: 0...1, using: &rng), .random(in: 0...1, using: &rng))
            })]]
        case 2:  // a hole that crosses its shell
            shape = [[square(0, 0, 1), square(.random(in: 0.5...0.9, using: &rng), .random(in: -0.2...0.6, using: &rng), 0.4)]]
        case 3:  // a hole outside its shell, or touching it along an edge
            shape = [[square(0, 0, 1), Bool.random(using: &rng) ? square(1.2, 0.2, 0.3) : square(1, 0.2, 0.3)]]
        case 4:  // overlapping parts
            shape = [[star(Int.random(in: 5...30, using: &rng), 0.5, 0.5, 0.5)], [star(Int.random(in: 5...30, using: &rng), 0.8, 0.6, 0.5)]]
        case 5:  // a part inside another, or two parts sharing an edge
            shape = Bool.random(using: &rng) ? [[square(0, 0, 1)], [square(0.25, 0.25, 0.5)]] : [[square(0, 0, 0.5)], [square(0.5, 0, 0.5)]]
        case 6:  // a spike out of a square and back along the same line
            let v = Double.random(in: 0.2...0.8, using: &rng)
            shape = [[closed([at(0, 0), at(1, 0), at(1, v), at(1.6, v), at(1, v), at(1, 1), at(0, 1)])]]
        case 7:  // a ring that touches itself at a vertex (a figure eight)
            shape = [[closed([at(0, 0), at(1, 0), at(0.5, 0.5), at(1, 1), at(0, 1), at(0.5, 0.5)])]]
        default:  // a ring with no area at all: out and back
            shape = [[closed([at(0, 0), at(1, 1), at(0, 0.5), at(1, 1)])]]
        }
        // Now and then snap to a coarse grid, so that vertices fall on edges and edges coincide.
        if Int.random(in: 0..<10, using: &rng) < 3 {
            let step = size / 8
            shape = shape.map { $0.map { $0.map { ((($0.x / step).rounded() * step), (($0.y / step).rounded() * step)) } } }
        }
        return shape
    }

    /// Points on and around both the written shape and its repair: vertices (the repair's include
    /// where edges crossed), points on edges, near them, and anywhere in the box.
    static func points(_ written: Shape, _ repaired: [GeoPolygon], _ rng: inout SplitMix64) -> [Coordinate] {
        let writtenPolygons = written.map { rings in
            GeoPolygon(exterior: rings[0].map { Coordinate(latitude: $0.y, longitude: $0.x) },
                       holes: rings.dropFirst().map { $0.map { Coordinate(latitude: $0.y, longitude: $0.x) } })
        }
        var points = PolygonLocatorTests.points(for: writtenPolygons, count: 600, rng: &rng)
        if !repaired.isEmpty { points += PolygonLocatorTests.points(for: repaired, count: 600, rng: &rng) }
        return points
    }

    @Test func repairedPolygonsAnswerAsGEOSMakeValidDoes() throws {
        var rng = SplitMix64(seed: 0x4E9A1)
        let context = GEOSContext()
        let wktReader = WKTReader(context)
        var compared = 0, covered = 0, refused = 0, repairedShapes = 0
        var problems: [String] = []
        for n in 0..<400 {
            let place = (x: Double.random(in: -179...178, using: &rng), y: Double.random(in: -70...70, using: &rng))
            let size = [0.001, 0.01, 0.2].randomElement(using: &rng)!
            let written = Self.shape(&rng, x: place.x, y: place.y, size: size)
            let id = "s\(n)"
            // The oracle: GEOS's make-valid of the shape as written, its polygonal parts.
            let raw = wktReader.read(Self.wkt(written))
            let valid = GEOSisValid_r(context.handle, raw.pointer) == 1
            let made = GEOSGeometryHandle(context: context, pointer: GEOSMakeValid_r(context.handle, raw.pointer)!)
            var parts: [GEOSPreparedGeometryHandle] = []
            func collect(_ g: OpaquePointer) {
                let type = GEOSGeomTypeId_r(context.handle, g)
                if type == Int32(GEOS_POLYGON.rawValue) {
                    if GEOSisEmpty_r(context.handle, g) == 0 {
                        parts.append(GEOSPreparedGeometryHandle(preparing: GEOSGeometryHandle(context: context, pointer: GEOSGeom_clone_r(context.handle, g)!)))
                    }
                } else if type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) {
                    for i in 0..<GEOSGetNumGeometries_r(context.handle, g) { collect(GEOSGetGeometryN_r(context.handle, g, i)!) }
                }
            }
            collect(made.pointer)

            let path = try Fixture.write(#"{"type":"FeatureCollection","features":[\#(Self.geoJSON(written, id: id))]}"#, named: "repair-\(n).geojson")
            let definitions: [ConditionDefinition]
            do {
                definitions = try ConditionsReader.read(contentsOf: path, repair: true)
            } catch {
                refused += 1
                if !parts.isEmpty || !error.description.contains(id) { problems.append("\(id) \(Self.wkt(written)): refused (\(error)) with \(parts.count) parts") }
                continue
            }
            if parts.isEmpty { problems.append("\(id) \(Self.wkt(written)): accepted, but make-valid leaves no area"); continue }
            if !valid { repairedShapes += 1 }
            var engine = MonitoringEngine()
            try engine.add(definitions[0].condition, identifier: id)
            guard case .polygon(let polygon) = definitions[0].condition else { Issue.record("\(id) is not a polygon"); continue }
            var query = engine.makeContainmentQuery()
            let catalog = engine.catalog
            var found: [Int32] = []
            var mismatches = 0
            for p in Self.points(written, polygon.polygons, &rng) {
                let point = GEOSGeometryHandle.point(p, in: context)
                let expected = parts.contains { $0.covers(point) }
                found.removeAll()
                query.conditions(containing: p, into: &found)
                var frame = FixFrame(p, margin: 0)
                let reading = catalog.reading(0, &frame) == .inside
                compared += 1
                if expected { covered += 1 }
                if (found == [0]) != expected || reading != expected {
                    mismatches += 1
                    if mismatches <= 2 { problems.append("\(id) \(Self.wkt(written)) at \(p.longitude) \(p.latitude): GEOS \(expected), query \(found), reading \(reading)") }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count): \(problems.prefix(6).joined(separator: "\n"))")
        // The shapes must reach every outcome: repaired ones, refused ones, and points on both sides.
        #expect(repairedShapes > 200 && refused > 10 && covered > compared / 10 && covered < compared * 9 / 10,
                "\(repairedShapes) repaired, \(refused) refused, \(covered) of \(compared) points covered")
    }
}
