/// One polygon: an exterior ring and any holes, each ring closed (first position == last).
///
/// Edges are straight lines in longitude and latitude.
public struct GeoPolygon: Sendable, Hashable, Codable {
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

/// Why a polygon or circle cannot be a condition, and which part of it is wrong.
///
/// The part is named in the condition's own terms (its radius, a ring of one of its polygons): where
/// that part was written is for the reader of the file to say.
public struct GeometryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// A part of a circle or polygon condition.
    public enum Part: Sendable, Hashable, CustomStringConvertible {
        /// A circle's centre.
        case center
        /// A circle's radius.
        case radius
        /// A polygon condition's region as a whole (it is not a valid region).
        case region
        /// A polygon condition's list of polygons (it has none).
        case polygons
        /// Ring `ring` (0: the exterior, then the holes) of polygon `polygon`.
        case ring(polygon: Int, ring: Int)
        /// Position `position` of ring `ring` of polygon `polygon`.
        case position(polygon: Int, ring: Int, position: Int)

        public var description: String {
            switch self {
            case .center: "centre"
            case .radius: "radius"
            case .region: "region"
            case .polygons: "polygons"
            case .ring(let polygon, let ring): "polygon \(polygon) ring \(ring)"
            case .position(let polygon, let ring, let position): "polygon \(polygon) ring \(ring) position \(position)"
            }
        }
    }

    /// Which part is wrong.
    public var part: Part
    /// What is wrong, in words (for polygons, GEOS's reason).
    public var message: String

    public init(part: Part, message: String) {
        self.part = part
        self.message = message
    }

    public var description: String { "\(part): \(message)" }
}

extension GeoPolygon {
    /// Checks what GEOS would otherwise reject less clearly: closed rings of at least four positions,
    /// every position within WGS84's ranges. `index` is the polygon's place in its condition.
    func structuralProblems(index: Int) -> [GeometryProblem] {
        var problems: [GeometryProblem] = []
        for (r, ring) in rings.enumerated() {
            if ring.count < 4 {
                problems.append(GeometryProblem(part: .ring(polygon: index, ring: r), message: "a ring needs at least 4 positions, got \(ring.count)"))
                continue
            }
            if ring.first != ring.last {
                problems.append(GeometryProblem(part: .ring(polygon: index, ring: r),
                                                message: "ring is not closed (first position differs from last)"))
            }
            for (i, c) in ring.enumerated() where !c.isValidPolygonVertex {
                problems.append(GeometryProblem(
                    part: .position(polygon: index, ring: r, position: i),
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
