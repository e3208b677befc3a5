import Foundation
import Perimeter

/// The report's map: Web Mercator on a world 1,000 units wide, SVG's y pointing down.
///
/// Shapes are projected here, in Swift, so that the page only places ready-made paths; the page
/// pans and zooms by changing the SVG's view box.
public enum ReportMap {
    /// The world's width (and height) in map units.
    public static let worldSize = 1000.0
    /// Web Mercator's latitude limit, where the projected world is square.
    static let latitudeLimit = 85.051_128_78

    /// The map point of a position; `longitude` may lie beyond ±180 where a shape or track is unwrapped.
    public static func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let phi = min(max(latitude, -latitudeLimit), latitudeLimit) * Double.pi / 180
        let x = (longitude + 180) / 360 * worldSize
        let y = (1 - log(tan(Double.pi / 4 + phi / 2)) / Double.pi) / 2 * worldSize
        return (x, y)
    }

    /// Points on the circle's true edge — each `radius` metres from the centre along a great circle,
    /// as the engine measures — so that a circle far from the equator is drawn as large as it is.
    /// Longitudes are kept continuous across ±180 (a circle at the antimeridian stays one shape).
    static func ring(around center: Coordinate, radius: Double, points: Int = 72) -> [(Double, Double)] {
        let delta = radius / Geodesy.meanEarthRadius
        let phi1 = center.latitude * Double.pi / 180
        let lambda1 = center.longitude * Double.pi / 180
        return (0..<points).map { k in
            let theta = Double(k) / Double(points) * 2 * Double.pi
            let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
            let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
            return (phi2 * 180 / Double.pi, lambda2 * 180 / Double.pi)
        }
    }

    /// A condition drawn: its SVG path and its bounds in map units.
    public struct Shape: Sendable {
        public var path: String
        public var minX: Double, minY: Double, maxX: Double, maxY: Double
    }

    /// The SVG path of a condition and its bounds, or `nil` for a beacon condition (it has no place).
    ///
    /// A polygon split at ±180 (RFC 7946 §3.1.9) is drawn whole on the map's right side: parts that
    /// touch −180 are moved by 360° when other parts touch +180, so that Fiji's two halves meet.
    public static func shape(of condition: Condition) -> Shape? {
        switch condition {
        case .circle(let circle):
            return pathData([ring(around: circle.center, radius: circle.radius)])
        case .polygon(let polygon):
            let touchesEast = polygon.polygons.contains { $0.exterior.contains { $0.longitude >= 180 - 1e-9 } }
            var rings: [[(Double, Double)]] = []
            for part in polygon.polygons {
                let shift = touchesEast && part.exterior.contains(where: { $0.longitude <= -180 + 1e-9 }) ? 360.0 : 0
                for ring in part.rings {
                    rings.append(ring.map { ($0.latitude, $0.longitude + shift) })
                }
            }
            return pathData(rings)
        case .beacon:
            return nil
        }
    }

    /// "M x y L x y … Z" for each ring, in map units to 1e-5 (0.4 m at the equator): finer than a
    /// pixel when zoomed to a street.
    static func pathData(_ rings: [[(Double, Double)]]) -> Shape {
        var shape = Shape(path: "", minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for ring in rings where !ring.isEmpty {
            for (k, point) in ring.enumerated() {
                let (x, y) = project(latitude: point.0, longitude: point.1)
                shape.path += (k == 0 ? "M" : "L") + number(x, places: 5) + " " + number(y, places: 5)
                shape.minX = min(shape.minX, x); shape.maxX = max(shape.maxX, x)
                shape.minY = min(shape.minY, y); shape.maxY = max(shape.maxY, y)
            }
            shape.path += "Z"
        }
        return shape
    }

    /// A number with at most `places` decimals and no trailing zeros, as short as the map needs.
    static func number(_ value: Double, places: Int) -> String {
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
