import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Issue 33, "Geometry at the seams" (RFC 7946 §3.1.9): an edge spanning more than 180° of longitude
/// is refused by the conditions reader (unless both its ends are on the seam); edges on the
/// antimeridian or along a pole count for `covers` but are no boundary for the margin.
@Suite struct SeamTests {
    /// The rule, as the oracles apply it: an edge counts as boundary for the distance unless both its
    /// ends are at longitude 180 (or both at −180), or both at latitude 90 (or both at −90), within
    /// the 1e-9° of float noise vertices may have.
    static func countsAsBoundary(_ a: Coordinate, _ b: Coordinate) -> Bool {
        func on(_ value: Double, _ line: Double) -> Bool { abs(value - line) <= 1e-9 }
        return ![180.0, -180].contains { on(a.longitude, $0) && on(b.longitude, $0) }
            && ![90.0, -90].contains { on(a.latitude, $0) && on(b.latitude, $0) }
    }

    /// The distance to the edges of `polygons` that count as boundary, by the engine's plain measure
    /// (`PolygonLocator.nearestDistance`) over the oracle's own choice of edges.
    static func boundaryDistance(from p: Coordinate, _ polygons: [GeoPolygon]) -> Double {
        let edges = polygons.flatMap(\.rings).flatMap { ring in zip(ring, ring.dropFirst()).map { ($0, $1) } }.filter(countsAsBoundary)
        return PolygonLocator.nearestDistance(from: p) { body in
            for (a, b) in edges { body(a.longitude, a.latitude, b.longitude, b.latitude) }
        }
    }

    static func feature(_ id: String, _ ring: [(Double, Double)]) -> String {
        let positions = ring.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        return #"{"type":"Feature","id":"\#(id)","properties":{},"geometry":{"type":"Polygon","coordinates":[[\#(positions)]]}}"#
    }

    static func parse(_ features: [String], repair: Bool = false) -> ([ConditionDefinition], [InputError]) {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
        return ConditionsReader.parse(Data(text.utf8), file: "c.geojson", repair: repair)
    }

    static func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(latitude: $0.1, longitude: $0.0) }
    }

    // MARK: The reader

    /// A box drawn across the antimeridian, 179 → −179: as written, 358° wide the other way round.
    @Test(arguments: [false, true])
    func readerRefusesAnEdgeAcrossTheAntimeridian(repair: Bool) {
        let box = Self.feature("dateline", [(179, -10), (-179, -10), (-179, 10), (179, 10), (179, -10)])
        let (definitions, problems) = Self.parse([Self.circleFeature, box], repair: repair)
        #expect(definitions.count == 1)
        #expect(problems.count == 1)
        let p = problems.first
        #expect(p?.file == "c.geojson")
        #expect(p?.line == 3)
        #expect(p?.field == #"features[1] (id "dateline").geometry.coordinates[0][0]"#)
        #expect(p?.message.contains("[179.0, -10.0] to [-179.0, -10.0] spans 358.0° of longitude") == true, "\(String(describing: p))")
        #expect(p?.message.contains("split") == true && p?.message.contains("±180 into a MultiPolygon") == true)
        #expect(p?.message.contains("RFC 7946 §3.1.9") == true)
    }

    /// A hole's edge, in a MultiPolygon's second part, is named by part, ring and position.
    @Test func readerNamesTheEdgeOfAMultiPolygonHole() {
        let text = #"{"type":"Feature","id":"m","geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],"#
            + #"[[[170,-20],[180,-20],[180,20],[170,20],[170,-20]],[[171,-1],[171,1],[-179.5,1],[171,-1]]]]}}"#
        let (_, problems) = Self.parse([text])
        #expect(problems.map(\.field) == [#"features[0] (id "m").geometry.coordinates[1][1][1]"#])
    }

    /// Both ends on the seam (±180): the edge runs along a parallel the whole way round — a band round
    /// the Earth, and Antarctica's closing edge in Natural Earth (whose −179.99999999999994 is the
    /// seam within float noise).
    @Test func readerAcceptsAnEdgeFromSeamToSeam() throws {
        let band = Self.feature("band", [(-180, 10), (180, 10), (180, 20), (-180, 20), (-180, 10)])
        let cap = Self.feature("cap", [(180, -80), (180, -90), (-179.99999999999994, -90), (-179.99999999999994, -80), (180, -80)])
        let (definitions, problems) = Self.parse([band, cap])
        #expect(problems.isEmpty, "\(problems)")
        #expect(definitions.map(\.identifier) == ["band", "cap"])
        // Both fixtures load: Natural Earth is split at ±180 already.
        #expect(try ConditionsReader.read(contentsOf: Fixture.path(DifferentialTests.countries)).count > 170)
        #expect(try ConditionsReader.read(contentsOf: Fixture.path("city/conditions.geojson")).count > 10)
    }

    static let circleFeature = #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"radius":100}}"#

    // MARK: The margin

    static let t0 = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)

    /// The events of one device's fixes (lat, lon, accuracy), a second apart.
    static func states(_ polygons: [GeoPolygon], _ fixes: [(Double, Double, Double)]) throws -> [ConditionState] {
        var engine = MonitoringEngine()
        try engine.add(.polygon(PolygonalGeographicCondition(polygons: polygons)), identifier: "p")
        var events: [MonitorEvent] = []
        for (k, f) in fixes.enumerated() {
            try engine.process(.fix(Fix(time: t0.adding(TimeSpan(seconds: Double(k))), coordinate: Coordinate(latitude: f.0, longitude: f.1),
                                        horizontalAccuracy: f.2)),
                               device: "d", cause: k, into: &events)
        }
        return events.map(\.state)
    }

    /// A cap from 80° north to the pole, every longitude: its top edge is the pole itself, its sides
    /// the seam. A fix at the pole is inside, 1,113 km from the boundary (the 80th parallel).
    static let northCap = [GeoPolygon(exterior: ring([(-180, 80), (180, 80), (180, 90), (-180, 90), (-180, 80)]))]

    @Test(arguments: [0.0, 123.4, -180, 180])
    func aFixAtTheNorthPoleInsideACapIsSatisfied(longitude: Double) throws {
        let shape = PolygonShape(Self.northCap)
        let pole = Coordinate(latitude: 90, longitude: longitude)
        #expect(shape.covers(pole))
        #expect(abs(shape.distanceToBoundary(from: pole) - 10 * Geodesy.metresPerDegree) < 1)
        #expect(shape.side(of: pole, margin: 50) == .inside)
        #expect(try Self.states(Self.northCap, [(90, longitude, 50)]) == [.satisfied])
        // Just below the 80th parallel, outside and 11 m from a real edge: within the margin.
        #expect(try Self.states(Self.northCap, [(79.9999, longitude, 50)]).isEmpty)
    }

    /// lon 170…180, lat 0…10: its eastern edge is the seam.
    static let eastOfSeam = [GeoPolygon(exterior: ring([(170, 0), (180, 0), (180, 10), (170, 10), (170, 0)]))]

    @Test func aFixBesideTheSeamInsideAPolygonEndingThereIsSatisfied() throws {
        let p = Coordinate(latitude: 5, longitude: 179.99999)
        let shape = PolygonShape(Self.eastOfSeam)
        #expect(shape.covers(p))
        #expect(shape.distanceToBoundary(from: p) > 500_000)  // the parallels 0 and 10, 5° away
        #expect(try Self.states(Self.eastOfSeam, [(5, 179.99999, 50)]) == [.satisfied])
        // On the seam itself: covered (the boundary counts as inside), and no boundary near.
        #expect(try Self.states(Self.eastOfSeam, [(5, 180, 50)]) == [.satisfied])
        // The real edges still reach the seam: 11 m south of the 10th parallel, within the margin.
        #expect(try Self.states(Self.eastOfSeam, [(9.9999, 179.99999, 50)]).isEmpty)
        #expect(try Self.states(Self.eastOfSeam, [(10.0001, 179.99999, 50)]).isEmpty)
    }

    /// Our choice for a fix just across the seam from such a polygon: `covers` on the raw coordinates
    /// says outside (−179.99999 is not in 170…180), and the seam is no boundary from either side, so
    /// the fix is as far from the boundary as from the parallels 0 and 10: confidently outside. (In
    /// data split at ±180, the polygon's other part covers that side.) A device walking across the
    /// seam changes state at once, as a plain evaluation of each fix does — the anchor that skips
    /// fixes close to the last one must not hide the crossing.
    @Test func aFixJustAcrossTheSeamIsOutside() throws {
        #expect(try Self.states(Self.eastOfSeam, [(5, -179.99999, 50)]) == [.unsatisfied])
        #expect(try Self.states(Self.eastOfSeam, [(5, -180, 50)]) == [.unsatisfied])
        let walk: [(Double, Double, Double)] = [(5, 179.99999, 50), (5, 179.999995, 50), (5, -179.999995, 50), (5, -179.99999, 50),
                                                 (5, 179.99999, 50), (5, 179.9999, 50)]
        #expect(try Self.states(Self.eastOfSeam, walk) == [.satisfied, .unsatisfied, .satisfied])
        // The same walk with the seam between two parts of one condition: never outside.
        let west = GeoPolygon(exterior: Self.ring([(-180, 0), (-170, 0), (-170, 10), (-180, 10), (-180, 0)]))
        #expect(try Self.states(Self.eastOfSeam + [west], walk) == [.satisfied])
    }

    /// Natural Earth's Antarctica: its ring runs along the South Pole from 180 to −180 and up the seam.
    @Test(arguments: [0.0, 45, -120, 179.99])
    func aFixNearTheSouthPoleInsideAntarcticaIsSatisfied(longitude: Double) throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path(DifferentialTests.countries))
        guard case .polygon(let antarctica) = definitions.first(where: { $0.identifier == "ATA" })?.condition else {
            Issue.record("no Antarctica")
            return
        }
        #expect(PolygonShape(antarctica.polygons).locator.hasSeamEdges)
        // 11 m from the pole: the pole edge was within the margin of 50 m.
        #expect(try Self.states(antarctica.polygons, [(-89.9999, longitude, 50)]) == [.satisfied])
        #expect(try Self.states(antarctica.polygons, [(-90, longitude, 50)]) == [.satisfied])
    }

    /// A polygon with no seam or pole edge measures every edge, as before.
    @Test func ordinaryPolygonsHaveNoSeamEdges() throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path(DifferentialTests.countries))
        let seamed = definitions.filter {
            guard case .polygon(let p) = $0.condition else { return false }
            return PolygonShape(p.polygons).locator.hasSeamEdges
        }.map(\.identifier)
        #expect(seamed.sorted() == ["ATA", "FJI", "RUS"])
        // A wedge whose apex is the pole: its sides reach the pole, which stays a boundary point.
        let wedge = [GeoPolygon(exterior: Self.ring([(0, 80), (10, 80), (10, 90), (0, 90), (0, 80)]))]
        #expect(PolygonShape(wedge).locator.hasSeamEdges)
        #expect(try Self.states(wedge, [(89.9999, 100, 50)]).isEmpty)  // outside, 11 m from the pole
        #expect(try Self.states(wedge, [(89.9999, 5, 50)]).isEmpty)  // inside, 11 m from it
    }
}
