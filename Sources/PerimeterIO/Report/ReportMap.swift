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

    /// Where the page's coordinates come from: map units moved to `origin` and scaled by `factor`, so
    /// that what is drawn spans about 1,000 page units. Browsers draw SVG in 32-bit floats, about 7
    /// digits: a city written in world units (506.50123…) would lose its shapes' detail at street
    /// zoom; written about its own origin it keeps it.
    public struct Frame: Sendable, Encodable {
        public var originX = 0.0, originY = 0.0, factor = 1.0

        public init() {}

        /// The frame in which the box spans 1,000 page units along its longer side.
        public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            originX = minX
            originY = minY
            factor = 1000 / max(maxX - minX, maxY - minY, 1e-7)
        }

        public func x(_ x: Double) -> Double { (x - originX) * factor }
        public func y(_ y: Double) -> Double { (y - originY) * factor }
    }

    /// A condition drawn: its SVG path (in a `Frame`'s page units) and its bounds in map units.
    public struct Shape: Sendable {
        public var path: String
        public var minX: Double, minY: Double, maxX: Double, maxY: Double
    }

    /// Small circles are drawn as SVG arcs: Web Mercator is conformal, so a small circle on the sphere
    /// is nearly a circle on the map, of radius r / cos φ. It is egg-shaped by about tan φ · r / R
    /// (the scale changes across it); arcs are used while that stays under 1e-3 — a pixel on a circle
    /// that fills the screen — and up to 50 km. Other circles are drawn point by point from their
    /// true edge (`ring`).
    static let arcRadiusLimit = 50_000.0
    static let arcShapeTolerance = 1e-3

    /// The SVG path of a condition and its bounds, or `nil` for a beacon condition (it has no place).
    ///
    /// A polygon split at ±180 (RFC 7946 §3.1.9) is drawn whole on the map's right side: parts that
    /// touch −180 are moved by 360° when other parts touch +180, so that Fiji's two halves meet.
    public static func shape(of condition: Condition, in frame: Frame = Frame()) -> Shape? {
        switch condition {
        case .circle(let circle):
            if let (cx, cy, r) = arcCircle(circle) {
                let (x, y, pr) = (frame.x(cx), frame.y(cy), r * frame.factor)
                let d = "M" + number(x - pr) + " " + number(y) + "a" + number(pr) + " " + number(pr) + " 0 1 0 " + number(2 * pr)
                    + " 0a" + number(pr) + " " + number(pr) + " 0 1 0 " + number(-2 * pr) + " 0Z"
                return Shape(path: d, minX: cx - r, minY: cy - r, maxX: cx + r, maxY: cy + r)
            }
            return pathData([ring(around: circle.center, radius: circle.radius)], frame: frame)
        case .polygon(let polygon):
            return pathData(rings(of: polygon), frame: frame)
        case .beacon:
            return nil
        }
    }

    /// The bounds of a condition's shape without writing its path (choosing what to draw).
    static func bounds(of condition: Condition) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        switch condition {
        case .circle(let circle):
            if let (cx, cy, r) = arcCircle(circle) { return (cx - r, cy - r, cx + r, cy + r) }
            return shape(of: condition).map { ($0.minX, $0.minY, $0.maxX, $0.maxY) }
        case .polygon(let polygon):
            var b = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
            for ring in rings(of: polygon) {
                for point in ring {
                    let (x, y) = project(latitude: point.0, longitude: point.1)
                    b = (min(b.minX, x), min(b.minY, y), max(b.maxX, x), max(b.maxY, y))
                }
            }
            return b
        case .beacon:
            return nil
        }
    }

    /// Centre and radius in map units of a circle drawn as arcs, or `nil` when it is drawn from its edge.
    static func arcCircle(_ circle: CircularGeographicCondition) -> (Double, Double, Double)? {
        let tangent = tan(abs(circle.center.latitude) * Double.pi / 180)
        guard circle.radius <= arcRadiusLimit, tangent * circle.radius / Geodesy.meanEarthRadius <= arcShapeTolerance else { return nil }
        let (cx, cy) = project(latitude: circle.center.latitude, longitude: circle.center.longitude)
        let r = circle.radius / (Geodesy.meanEarthRadius * cos(circle.center.latitude * Double.pi / 180)) * worldSize / (2 * Double.pi)
        return (cx, cy, r)
    }

    /// A polygon's rings as latitude, longitude pairs, parts at −180 moved by 360° when the
    /// polygon also reaches +180.
    static func rings(of polygon: PolygonalGeographicCondition) -> [[(Double, Double)]] {
        let touchesEast = polygon.polygons.contains { $0.exterior.contains { $0.longitude >= 180 - 1e-9 } }
        var rings: [[(Double, Double)]] = []
        for part in polygon.polygons {
            let shift = touchesEast && part.exterior.contains(where: { $0.longitude <= -180 + 1e-9 }) ? 360.0 : 0
            for ring in part.rings {
                rings.append(ring.map { ($0.latitude, $0.longitude + shift) })
            }
        }
        return rings
    }

    /// "M x y l dx dy … z" for each ring: the first point in page units, each next one relative to
    /// the one before, all to 1e-3 of the frame's 1,000 units (a millionth of what is drawn).
    /// Points are rounded first and the steps taken between rounded points, so they never drift.
    static func pathData(_ rings: [[(Double, Double)]], frame: Frame) -> Shape {
        var shape = Shape(path: "", minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for ring in rings where !ring.isEmpty {
            var previous: (Int, Int)?
            for point in ring {
                let (x, y) = project(latitude: point.0, longitude: point.1)
                shape.minX = min(shape.minX, x); shape.maxX = max(shape.maxX, x)
                shape.minY = min(shape.minY, y); shape.maxY = max(shape.maxY, y)
                let q = (Int((frame.x(x) * scale).rounded()), Int((frame.y(y) * scale).rounded()))
                if let p = previous {
                    if q == p { continue }
                    shape.path += "l" + fixed(q.0 - p.0) + " " + fixed(q.1 - p.1)
                } else {
                    shape.path += "M" + fixed(q.0) + " " + fixed(q.1)
                }
                previous = q
            }
            shape.path += "z"
        }
        return shape
    }

    /// Page units are written to 1e-3.
    static let scale = 1000.0

    /// `value` rounded to the 1e-3 page units the page is written in.
    static func pageUnits(_ value: Double) -> Double { (value * scale).rounded() / scale }

    /// `value` in page units to 1e-3, as short as it goes.
    static func number(_ value: Double) -> String { fixed(Int((value * scale).rounded())) }

    /// A count of 1e-3 units as a decimal number without trailing zeros ("-0.012", "512", "3.5").
    static func fixed(_ units: Int) -> String {
        let negative = units < 0
        let magnitude = units.magnitude
        let whole = magnitude / 1000
        var fraction = magnitude % 1000
        var text = (negative ? "-" : "") + String(whole)
        guard fraction != 0 else { return text }
        var digits = 3
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let f = String(fraction)
        text += "." + String(repeating: "0", count: digits - f.count) + f
        return text
    }
}
