import Foundation
import Testing

@testable import Perimeter
@testable import PerimeterIO

/// The report's map geometry: Web Mercator, circles drawn as their true edge, the antimeridian, and
/// track simplification.
@Suite struct ReportMapTests {
    @Test func webMercatorPlacesKnownPoints() {
        let origin = ReportMap.project(latitude: 0, longitude: 0)
        #expect(abs(origin.x - 500) < 1e-9 && abs(origin.y - 500) < 1e-9)
        let corner = ReportMap.project(latitude: ReportMap.latitudeLimit, longitude: -180)
        #expect(abs(corner.x) < 1e-9 && abs(corner.y) < 1e-6)
        // A degree of longitude is 1000/360 units everywhere; latitude stretches away from the equator.
        let north = ReportMap.project(latitude: 60, longitude: 1)
        #expect(abs(north.x - (500 + 1000.0 / 360)) < 1e-9)
        #expect(abs(north.y - (1 - log(tan(Double.pi / 4 + Double.pi / 6)) / Double.pi) / 2 * 1000) < 1e-9)
    }

    @Test(arguments: [(48.86, 2.34, 250.0), (-33.9, 151.2, 5_000), (69.6, 18.9, 40_000), (0.0, 179.99, 100_000)])
    func circlesAreDrawnAtTheirTrueRadius(latitude: Double, longitude: Double, radius: Double) {
        let center = Coordinate(latitude: latitude, longitude: longitude)
        let ring = ReportMap.ring(around: center, radius: radius)
        #expect(ring.count == 72)
        for (lat, lon) in ring {
            let d = Geodesy.distance(center, Coordinate(latitude: lat, longitude: lon > 180 ? lon - 360 : lon))
            #expect(abs(d - radius) <= radius * 1e-9 + 1e-6)
        }
    }

    @Test(arguments: [(48.86, 2.34, 250.0), (60.0, 10.0, 3_500), (-45.0, 170.0, 6_000), (0.5, 30.0, 50_000)])
    func smallCirclesAreArcsOfTheirTrueRadius(latitude: Double, longitude: Double, radius: Double) throws {
        let circle = try CircularGeographicCondition(center: Coordinate(latitude: latitude, longitude: longitude), radius: radius)
        let (cx, cy, r) = try #require(ReportMap.arcCircle(circle))
        // The true edge, projected, lies on the arc to within 0.2 % of the radius.
        for (lat, lon) in ReportMap.ring(around: circle.center, radius: radius) {
            let (x, y) = ReportMap.project(latitude: lat, longitude: lon)
            #expect(abs(((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot() - r) <= r * 0.002)
        }
        let shape = try #require(ReportMap.shape(of: .circle(circle)))
        #expect(shape.path.hasPrefix("M") && shape.path.filter { $0 == "a" }.count == 2)
        // Beyond 50 km, the edge point by point (and nearer the poles, sooner: see arcCircle).
        let large = try CircularGeographicCondition(center: circle.center, radius: 60_000)
        #expect(ReportMap.arcCircle(large) == nil)
        #expect(try #require(ReportMap.shape(of: .circle(large))).path.filter { $0 == "l" }.count == 71)
        let northern = try CircularGeographicCondition(center: Coordinate(latitude: 60, longitude: 10), radius: 5_000)
        #expect(ReportMap.arcCircle(northern) == nil)
    }

    @Test func numbersAreWrittenShortAndExact() {
        #expect(ReportMap.fixed(0) == "0" && ReportMap.fixed(512_345) == "512.345" && ReportMap.fixed(-12) == "-0.012")
        #expect(ReportMap.fixed(3_500) == "3.5" && ReportMap.fixed(-1_000) == "-1" && ReportMap.fixed(7) == "0.007")
        #expect(ReportMap.number(0.123456) == "0.123")
        // A frame puts a city's box at 0…1000 page units.
        let frame = ReportMap.Frame(minX: 506.5, minY: 344.0, maxX: 506.52, maxY: 344.01)
        #expect(abs(frame.x(506.51) - 500) < 1e-6 && abs(frame.y(344.01) - 500) < 1e-6)
    }

    @Test func aPolygonSplitAtTheAntimeridianIsDrawnWholeOnTheRight() throws {
        // Fiji as RFC 7946 §3.1.9 writes it: two parts that meet at ±180.
        let east = GeoPolygon(exterior: [.init(latitude: -17, longitude: 179), .init(latitude: -17, longitude: 180),
                                         .init(latitude: -16, longitude: 180), .init(latitude: -16, longitude: 179),
                                         .init(latitude: -17, longitude: 179)])
        let west = GeoPolygon(exterior: [.init(latitude: -17, longitude: -180), .init(latitude: -17, longitude: -179),
                                         .init(latitude: -16, longitude: -179), .init(latitude: -16, longitude: -180),
                                         .init(latitude: -17, longitude: -180)])
        let shape = try #require(ReportMap.shape(of: .polygon(try PolygonalGeographicCondition(polygons: [east, west]))))
        // Two degrees wide, reaching past the world's right edge (1000), not spread across it.
        #expect(abs(shape.minX - (179.0 + 180) / 360 * 1000) < 1e-9)
        #expect(abs(shape.maxX - (181.0 + 180) / 360 * 1000) < 1e-9)
        #expect(shape.path.components(separatedBy: "M").count - 1 == 2)
    }

    @Test func holesAreSubpathsOfTheirPolygon() throws {
        let outer: [Coordinate] = [.init(latitude: 0, longitude: 0), .init(latitude: 0, longitude: 1), .init(latitude: 1, longitude: 1),
                                   .init(latitude: 1, longitude: 0), .init(latitude: 0, longitude: 0)]
        let hole: [Coordinate] = [.init(latitude: 0.25, longitude: 0.25), .init(latitude: 0.75, longitude: 0.25),
                                  .init(latitude: 0.75, longitude: 0.75), .init(latitude: 0.25, longitude: 0.75),
                                  .init(latitude: 0.25, longitude: 0.25)]
        let shape = try #require(ReportMap.shape(of: .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: outer, holes: [hole])]))))
        #expect(shape.path.filter { $0 == "M" }.count == 2 && shape.path.filter { $0 == "z" }.count == 2)
    }

    @Test func simplificationKeepsTheEndsAndTheCornersAndHoldsToItsLimit() {
        // A straight run of 1,000 points, then a corner and another straight run.
        var points: [(x: Double, y: Double, t: Double)] = (0..<1000).map { (Double($0) * 0.001, 0, Double($0)) }
        points += (1..<1000).map { (0.999, Double($0) * 0.001, Double(1000 + $0)) }
        let flat = TrackSimplification.simplify(points, limit: 1000)
        #expect(flat.count == 9)  // start, corner, end
        #expect(Array(flat[0..<3]) == [0, 0, 0] && flat[3] == 0.999 && flat[4] == 0 && flat.last == 1999)
        // A zigzag cannot be simplified at the finest tolerance: the limit doubles it until it fits.
        var zigzag: [(x: Double, y: Double, t: Double)] = []
        for k in 0..<5000 {
            let y: Double = k % 2 == 0 ? 0 : 0.01
            zigzag.append((x: Double(k) * 0.001, y: y, t: Double(k)))
        }
        let kept = TrackSimplification.simplify(zigzag, limit: 300)
        #expect(kept.count / 3 <= 300 && kept.count / 3 >= 2)
        #expect(kept[kept.count - 1] == 4999)
    }
}
