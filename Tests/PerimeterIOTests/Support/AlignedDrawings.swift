import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `AlignedGeometryTests`' places and drawings: polygons in units of a dyadic size at places from a
/// city block to the pole and the antimeridian, and the raster `PolygonLocator` lays over them.
extension AlignedGeometryTests {
    /// Where drawings in units go: unit point (x, y) is (longitude + x·unit, latitude + y·unit), exact
    /// in doubles (dyadic origin and unit), so that edges hit the raster's lines exactly. Drawings
    /// side by side go `shift` units east; at the antimeridian each drawing's eastern edge is on
    /// longitude 180 instead, and they go north.
    struct Place: Sendable, CustomTestStringConvertible {
        let name: String
        let longitude: Double, latitude: Double
        let unit: Double
        var antimeridian = false
        var testDescription: String { name }

        /// Where unit point (x, y) of a drawing `width` units wide goes, `shift` units along.
        func at(_ x: Double, _ y: Double, width: Double, shift: Double = 0) -> Coordinate {
            if antimeridian {
                return Coordinate(latitude: latitude + (y + shift) * unit, longitude: 180 - (width - x) * unit)
            }
            return Coordinate(latitude: latitude + y * unit, longitude: longitude + (x + shift) * unit)
        }

        /// Metres per unit along the direction drawings are shifted in.
        var unitMetresAlong: Double {
            antimeridian ? unit * Geodesy.metresPerDegree : unit * Geodesy.metresPerDegree * cos(latitude * Geodesy.radiansPerDegree)
        }
    }

    /// 2⁻¹⁴° units (6.8 m north–south, 4.5 m east–west): shapes of tens of metres, geofence-sized.
    static let tiny = Place(name: "tiny, Paris, 2^-14 deg units", longitude: 2.3515625, latitude: 48.8515625, unit: 0x1p-14)
    /// 2⁻¹⁰° units (108 m × 72 m): shapes of about a kilometre.
    static let medium = Place(name: "medium, Paris, 2^-10 deg units", longitude: 2.3515625, latitude: 48.8515625, unit: 0x1p-10)
    /// 1° units at mid latitudes: shapes of 12°.
    static let huge = Place(name: "huge, lat 30-42, 1 deg units", longitude: -150, latitude: 30, unit: 1)
    /// 1° units at high latitudes (up to 78°, inside the 80° up to which the margin test, the anchors
    /// and the cover grid take their shortcuts).
    static let polar = Place(name: "polar, lat 66-78, 1 deg units", longitude: -170, latitude: 66, unit: 1)

    /// Geofence-sized shapes whose eastern edge is the antimeridian (Fiji's latitude); points there are
    /// also taken at longitude −180, and points east of it wrap round.
    static let antimeridian = Place(name: "antimeridian, lat -16.5, 2^-14 deg units", longitude: 180, latitude: -16.5, unit: 0x1p-14,
                                    antimeridian: true)

    /// Half-degree units from 84° up to the pole (beyond 80°: no shortcuts): the square's top edge is
    /// latitude 90, every point of it the pole; points near the pole are near every drawing there.
    static let pole = Place(name: "pole, lat 84-90, 0.5 deg units", longitude: -170, latitude: 84, unit: 0.5)

    /// Half-degree units from 72° to 78° (the engine's drawings side by side fit round the globe).
    static let polarHalf = Place(name: "polar, lat 72-78, 0.5 deg units", longitude: -170, latitude: 72, unit: 0.5)

    static let allPlaces = [tiny, medium, huge, polar, pole, antimeridian]
    static let enginePlaces = [tiny, polarHalf, antimeridian, pole]

    /// A shape drawn in units: parts, each its rings (exterior first), each ring's points, not closed.
    struct Drawing: Sendable {
        let name: String
        let parts: [[[SIMD2<Double>]]]
        /// Drawn in degrees instead: an L in a 10 × 10 box, its notch's edges through the centres of
        /// raster column 5 and row 6 exactly as `PolygonLocator` computes them (not dyadic); with
        /// `hair`, one ulp off them.
        var tenthsHair: Bool?

        init(_ name: String, _ parts: [[[(Double, Double)]]]) {
            self.name = name
            self.parts = parts.map { $0.map { $0.map { SIMD2($0.0, $0.1) } } }
        }

        init(tenths name: String, hair: Bool) {
            self.name = name
            parts = []
            tenthsHair = hair
        }

        /// The polygons at `place`, `shift` units along, rings closed.
        func polygons(at place: Place, shift: Double = 0) -> [GeoPolygon] {
            if let hair = tenthsHair {
                let corner = place.at(0, 0, width: 10, shift: shift), far = place.at(10, 10, width: 10, shift: shift)
                let lon0 = corner.longitude, lat0 = corner.latitude, lon1 = far.longitude, lat1 = far.latitude
                // As PolygonLocator.init sizes the raster of a square box of 6 edges: 12 × 12 cells.
                var x = lon0 + 5.5 / (12 / (lon1 - lon0)), y = lat0 + 6.5 / (12 / (lat1 - lat0))
                if hair { x = x.nextUp; y = y.nextDown }
                let ring = [(lon0, lat0), (lon1, lat0), (lon1, lat1), (x, lat1), (x, y), (lon0, y), (lon0, lat0)]
                    .map { Coordinate(latitude: $0.1, longitude: $0.0) }
                return [GeoPolygon(exterior: ring)]
            }
            let width = parts.flatMap { $0.flatMap { $0.map(\.x) } }.max()!
            return parts.map { rings in
                let closed = rings.map { ring in (ring + [ring[0]]).map { place.at($0.x, $0.y, width: width, shift: shift) } }
                return GeoPolygon(exterior: closed[0], holes: Array(closed.dropFirst()))
            }
        }
    }

    /// The drawings for `place`: the 576-edge comb only at 1° units (once is enough for its time),
    /// where its raster's cells (1/32 unit) are wider than the margins: a margin box over many of
    /// them makes the locator walk its stripes, each listing most of the teeth, seconds a point in a
    /// debug build.
    /// The engine test's (for its time): sixteen, and at the pole, where every drawing meets every
    /// other, six.
    static func drawings(at place: Place, engine: Bool = false) -> [Drawing] {
        let engineDrawings: Set = ["square", "L-centre", "L-both-centres", "U-centres", "U-borders", "U-wide-16x8", "comb-64", "staircase",
                                   "hole-axis", "hole-touching-shell", "parts-touching-at-vertex", "parts-sharing-edge", "wedge-diagonal",
                                   "diamond", "repeated-vertices", "L-tenths-hair"]
        let poleDrawings: Set = ["square", "U-borders", "L-centre", "diamond", "wedge-diagonal", "parts-touching-at-vertex"]
        return drawings().filter {
            ($0.name != "comb-576" || (place.unit == 1 && !place.antimeridian && place.latitude < 60))
                && (!engine || (place.name == pole.name ? poleDrawings : engineDrawings).contains($0.name))
        }
    }

    static func drawings() -> [Drawing] {
        let square = [(0.0, 0.0), (12, 0), (12, 12), (0, 12)]
        var comb: [(Double, Double)] = [(0, 0), (12, 0), (12, 3)]
        // 15 teeth half a cell wide (cells are 0.75 units: 64 edges make a 16 × 16 raster), each from
        // a column's centre to its eastern border.
        for j in stride(from: 14, through: 0, by: -1) {
            let left = 0.375 + 0.75 * Double(j), right = 0.75 * Double(j + 1)
            comb += [(right, 3), (right, 12), (left, 12), (left, 3)]
        }
        comb.append((0, 3))
        // Steps whose every vertex is a cell's centre (12 × 12 cells of 1 unit).
        var stairs: [(Double, Double)] = [(0, 0), (12, 0), (12, 12), (11.5, 12)]
        for k in stride(from: 11, through: 1, by: -1) {
            stairs += [(Double(k) + 0.5, Double(k) + 0.5), (Double(k) - 0.5, Double(k) + 0.5)]
        }
        stairs += [(0.5, 0.5), (0, 0.5)]
        // 143 teeth, one cell wide, 2.5 cells apart: 576 edges make a 384 × 384 raster (32 cells an
        // edge from 512 edges on, refined eightfold: the teeth make more than 1 cell in 25 a boundary
        // cell) of 1/32-unit cells, blocks of 8 × 8 cells, stripes, edge lists in four bytes; every
        // other tooth's edges on column centres, the others' on column borders.
        var bigComb: [(Double, Double)] = [(0, 0), (12, 0), (12, 3)]
        for j in stride(from: 142, through: 0, by: -1) {
            let left = Double(5 * j + 1) / 64, right = left + 2.0 / 64
            bigComb += [(right, 3), (right, 12), (left, 12), (left, 3)]
        }
        bigComb.append((0, 3))
        return [
            Drawing("square", [[square]]),
            // The regression of dc1d68b: the notch's vertical edge through column 5's centres.
            Drawing("L-centre", [[[(0, 0), (12, 0), (12, 12), (5.5, 12), (5.5, 6), (0, 6)]]]),
            Drawing("L-both-centres", [[[(0, 0), (12, 0), (12, 5.5), (6.5, 5.5), (6.5, 12), (0, 12)]]]),
            Drawing("U-centres", [[[(0, 0), (12, 0), (12, 12), (8.5, 12), (8.5, 3.5), (3.5, 3.5), (3.5, 12), (0, 12)]]]),
            Drawing("U-borders", [[[(0, 0), (12, 0), (12, 12), (8, 12), (8, 4), (4, 4), (4, 12), (0, 12)]]]),
            Drawing("U-wide-16x8", [[[(0, 0), (16, 0), (16, 8), (10.5, 8), (10.5, 2.5), (5, 2.5), (5, 8), (0, 8)]]]),
            Drawing("comb-64", [[comb]]),
            Drawing("comb-576", [[bigComb]]),
            Drawing("staircase", [[stairs]]),
            Drawing("hole-axis", [[square, [(3.5, 2), (8.5, 2), (8.5, 10), (3.5, 10)]]]),
            Drawing("hole-touching-shell", [[square, [(0, 6), (6, 3), (6, 9)]]]),
            Drawing("parts-touching-at-vertex", [[[(0, 0), (6, 0), (6, 6), (0, 6)]], [[(6, 6), (12, 6), (12, 12), (6, 12)]]]),
            // Invalid (OGC): the engine takes it repaired; the shape-level checks take it as drawn.
            Drawing("parts-sharing-edge", [[[(0, 0), (5.5, 0), (5.5, 12), (0, 12)]], [[(5.5, 0), (12, 0), (12, 12), (5.5, 12)]]]),
            Drawing("sliver-16x0.5", [[[(0, 0), (16, 0), (16, 0.5), (0, 0.5)]]]),
            Drawing("wedge-diagonal", [[[(0, 0), (12, 12), (12, 11.5)]]]),
            Drawing("triangle-diagonal", [[[(0, 0), (12, 0), (12, 12)]]]),
            Drawing("diamond", [[[(6, 0), (12, 6), (6, 12), (0, 6)]]]),
            Drawing("collinear-vertices", [[[(0, 0), (5.5, 0), (12, 0), (12, 6.5), (12, 12), (6, 12), (0.5, 12), (0, 12), (0, 5.5)]]]),
            // Zero-length edges: at the start, at a corner, and at a cell's centre on the top edge.
            Drawing("repeated-vertices", [[[(0, 0), (0, 0), (12, 0), (12, 0), (12, 12), (5.5, 12), (5.5, 12), (0, 12)]]]),
            // One raster row (a 256 × 1 raster of 1/16 × 1/32-unit cells): every cell a boundary cell,
            // runs longer than the row walk takes.
            Drawing("hair-sliver-16x1/32", [[[(0, 0), (16, 0), (16, 1.0 / 32), (0, 1.0 / 32)]]]),
            Drawing(tenths: "L-tenths", hair: false),
            Drawing(tenths: "L-tenths-hair", hair: true),
        ]
    }

    /// The raster `PolygonLocator.init` lays over a polygon: the same sizing (about 4 cells per edge,
    /// at least 128, shaped like the box) and the same cell lines, so that points can be put on them.
    struct Raster {
        let minX: Double, minY: Double, maxX: Double, maxY: Double
        let columns: Int, rows: Int
        let scaleX: Double, scaleY: Double

        init(_ polygons: [GeoPolygon]) {
            let all = polygons.flatMap(\.rings).flatMap { $0 }
            minX = all.map(\.longitude).min()!; maxX = all.map(\.longitude).max()!
            minY = all.map(\.latitude).min()!; maxY = all.map(\.latitude).max()!
            let edgeCount = polygons.flatMap(\.rings).reduce(0) { $0 + max(0, $1.count - 1) }
            let width = max(maxX - minX, 1e-12), height = max(maxY - minY, 1e-12)
            let target = Double(min(max((edgeCount >= 512 ? 256 : 4) * edgeCount, 128), 1 << 22))
            let aspect = width / height
            columns = max(1, min(2048, Int((target * aspect).squareRoot().rounded(.up))))
            rows = max(1, min(2048, Int((target / aspect).squareRoot().rounded(.up))))
            scaleX = Double(columns) / width
            scaleY = Double(rows) / height
        }

        /// Longitude of column line `k` halves: even k a border, odd k a centre (k = 2c + 1).
        func x(halves k: Int) -> Double { minX + (Double(k) / 2) / scaleX }
        func y(halves k: Int) -> Double { minY + (Double(k) / 2) / scaleY }
        var cellWidth: Double { 1 / scaleX }
        var cellHeight: Double { 1 / scaleY }
    }
}
