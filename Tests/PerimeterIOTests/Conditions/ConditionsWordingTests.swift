import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// How the conditions reader words what a user got wrong: a radius of the wrong kind, a property
/// name that misses a known one, and the engine's problems with a part of a shape, which it places at
/// the GeoJSON path where that part was written.
@Suite struct ConditionsWordingTests {
    static func problems(_ features: [String]) -> [InputError] {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}"
        return ConditionsReader.parse(Data(text.utf8), file: "c.geojson").1
    }

    static func circle(_ properties: String) -> String {
        #"{"type":"Feature","id":"c","geometry":{"type":"Point","coordinates":[2.3,48.8]},"properties":"# + properties + "}"
    }

    @Test(arguments: [
        (#"{"radius":"50"}"#, #"radius must be a number of metres, got a string ("50")"#),
        (#"{"radius":true}"#, "radius must be a number of metres, got a boolean"),
        (#"{"radius":[50]}"#, "radius must be a number of metres, got an array"),
    ])
    func aRadiusThatIsNoNumberIsNamedAsSuch(_ properties: String, _ message: String) {
        let p = Self.problems([Self.circle(properties)])
        #expect(p.map(\.field) == [#"features[0] (id "c").properties.radius"#])
        #expect(p.first?.message == message)
        #expect(p.first?.line == 2)
    }

    @Test(arguments: [
        ("radious", "radius"), ("Radius", "radius"), ("raduis", "radius"), ("radius_m", "radius"),
        ("asuming", "assuming"), ("assumng", "assuming"), ("assume", "assuming"), ("Assuming", "assuming"),
        ("beakon", "beacon"), ("beacons", "beacon"),
    ])
    func aMisspeltPropertyIsNamedWithTheOneMeant(_ name: String, _ meant: String) {
        let p = Self.problems([Self.circle(#"{"radius":50,"name":"x",""# + name + #"":1}"#)])
        #expect(p.map(\.field) == [#"features[0] (id "c").properties."# + name])
        #expect(p.first?.message == "unknown property \"\(name)\" — did you mean \"\(meant)\"?")
    }

    /// Users keep their own data in `properties`; a name that misses no known one is theirs.
    @Test(arguments: ["name", "continent", "reason", "season", "region", "radio", "colour", "id", "owner"])
    func otherPropertiesStayAllowed(_ name: String) {
        #expect(Self.problems([Self.circle(#"{"radius":50,""# + name + #"":"x"}"#)]).isEmpty, "\(name)")
    }

    /// The engine names the part of a shape; the reader says where it was written.
    @Test func theEngineNamesPartsNotFileFormats() {
        #expect(throws: GeometryProblem(part: .radius, message: "radius must be > 0 and ≤ 1000000 m, got -1.0")) {
            try CircularGeographicCondition(center: Coordinate(latitude: 48, longitude: 2), radius: -1)
        }
        #expect { try CircularGeographicCondition(center: Coordinate(latitude: 95, longitude: 2), radius: 10) } throws: {
            ($0 as? GeometryProblem)?.part == .center
        }
        let square = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 1),
                      Coordinate(latitude: 1, longitude: 1), Coordinate(latitude: 1, longitude: 0), Coordinate(latitude: 0, longitude: 0)]
        let open = GeoPolygon(exterior: Array(square.dropLast()) + [Coordinate(latitude: 0.5, longitude: 0)])
        #expect { try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: square), open]) } throws: {
            ($0 as? GeometryProblem)?.part == .ring(polygon: 1, ring: 0)
        }
        let far = GeoPolygon(exterior: square, holes: [[square[0], Coordinate(latitude: 95, longitude: 0.5), square[2], square[0]]])
        #expect { try PolygonalGeographicCondition(polygons: [far]) } throws: {
            ($0 as? GeometryProblem)?.part == .position(polygon: 0, ring: 1, position: 1)
        }
        #expect { try PolygonalGeographicCondition(polygons: []) } throws: { ($0 as? GeometryProblem)?.part == .polygons }
    }

    /// A Polygon's rings are `coordinates[ring]`, a MultiPolygon's `coordinates[polygon][ring]` — also
    /// when it has one polygon (it was once named as if a Polygon's).
    @Test func partsArePlacedAtTheirGeoJSONPath() {
        let short = "[[0,0],[1,1]]"
        let square = "[[0,0],[1,0],[1,1],[0,1],[0,0]]"
        let p = Self.problems([
            #"{"type":"Feature","id":"p","geometry":{"type":"Polygon","coordinates":["# + square + "," + short + #"]},"properties":{}}"#,
            #"{"type":"Feature","id":"m","geometry":{"type":"MultiPolygon","coordinates":[["# + square + "," + short + #"]]},"properties":{}}"#,
            #"{"type":"Feature","id":"n","geometry":{"type":"MultiPolygon","coordinates":[["# + square + "],[" + square + "," + short + #"]]},"properties":{}}"#,
            #"{"type":"Feature","id":"b","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]},"properties":{}}"#,
            #"{"type":"Feature","id":"e","geometry":{"type":"MultiPolygon","coordinates":[]},"properties":{}}"#,
            #"{"type":"Feature","id":"r","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"radius":0}}"#,
        ])
        #expect(p.map(\.field) == [
            #"features[0] (id "p").geometry.coordinates[1]"#,
            #"features[1] (id "m").geometry.coordinates[0][1]"#,
            #"features[2] (id "n").geometry.coordinates[1][1]"#,
            #"features[3] (id "b").geometry"#,
            #"features[4] (id "e").geometry.coordinates"#,
            #"features[5] (id "r").properties.radius"#,
        ])
        #expect(p.map(\.line) == [2, 3, 4, 5, 6, 7])
        #expect(p[0].message == "a ring needs at least 4 positions, got 2")
        #expect(p[3].message.hasPrefix("invalid polygon: Self-intersection"))
    }
}
