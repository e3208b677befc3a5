/// One polygon: an exterior ring and any holes, each ring closed (first position == last).
///
/// Edges are straight lines in longitude/latitude, as RFC 7946 §3.1.1 says.
public struct GeoPolygon: Sendable, Hashable {
    /// The outer ring, closed.
    public var exterior: [Coordinate]
    /// The inner rings, each closed; points in a hole are outside.
    public var holes: [[Coordinate]]

    /// A polygon of these rings, as given (validity is checked where it becomes a condition).
    public init(exterior: [Coordinate], holes: [[Coordinate]] = []) {
        self.exterior = exterior
        self.holes = holes
    }

    /// Exterior first, then the holes.
    public var rings: [[Coordinate]] { [exterior] + holes }

    /// Positions in all rings, closing ones included.
    public var vertexCount: Int { exterior.count + holes.reduce(0) { $0 + $1.count } }
}

/// Why a polygon or circle cannot be a condition; `field` is a path inside the feature
/// (`geometry.coordinates[0][3]`, `properties.radius`).
public struct GeometryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the feature: a GeoJSON path such as `geometry.coordinates[0][3]`.
    public var field: String
    /// What is wrong, in words (for polygons, GEOS's reason).
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

extension GeoPolygon {
    /// Checks what GEOS would otherwise reject less clearly: closed rings of at least four positions,
    /// every position within WGS84's ranges.
    func structuralProblems(fieldPrefix: String) -> [GeometryProblem] {
        var problems: [GeometryProblem] = []
        for (r, ring) in rings.enumerated() {
            let field = "\(fieldPrefix)[\(r)]"
            if ring.count < 4 {
                problems.append(GeometryProblem(field: field, message: "a ring needs at least 4 positions, got \(ring.count)"))
                continue
            }
            if ring.first != ring.last {
                problems.append(GeometryProblem(field: field, message: "ring is not closed (first position differs from last)"))
            }
            for (i, c) in ring.enumerated() where !c.isValidPolygonVertex {
                problems.append(GeometryProblem(
                    field: "\(field)[\(i)]",
                    message: "position [\(c.longitude), \(c.latitude)] is out of range (lon −180…180, lat −90…90)"))
            }
        }
        return problems
    }
}

extension Coordinate {
    /// Polygon vertices may overshoot ±180/±90 by float noise: real data sets do (Natural Earth's
    /// Russia reaches 180.00000000000006). Such vertices are kept exactly as written, since GEOS works on
    /// the raw coordinates; anything further out is an error.
    public static let vertexTolerance = 1e-9

    var isValidPolygonVertex: Bool {
        abs(latitude) <= 90 + Self.vertexTolerance && abs(longitude) <= 180 + Self.vertexTolerance
    }
}
