/// A polygon or multipolygon region, holes allowed; the boundary counts as inside.
public struct PolygonalGeographicCondition: Sendable, Hashable {
    /// One polygon, or several (a multipolygon).
    public let polygons: [GeoPolygon]

    /// Checks the rings and GEOS validity (OGC).
    ///
    /// - Parameters:
    ///   - polygons: one polygon, or several (a multipolygon), each an outer ring and its holes.
    ///   - repair: when the polygon is invalid, repair it with GEOS's make-valid instead of
    ///     throwing (rings must still be closed and in range).
    /// - Throws: the first problem found; `problems(in:)` lists all of them.
    public init(polygons: [GeoPolygon], repair: Bool = false) throws(GeometryProblem) {
        let context = GEOSContext()
        var problems = Self.structuralProblems(polygons)
        if let first = problems.first { throw first }
        let geometry = PolygonGeometry.make(polygons, in: context)
        if let reason = geometry.invalidityReason {
            if repair {
                let repaired = PolygonGeometry.repaired(geometry)
                guard !repaired.isEmpty else {
                    throw GeometryProblem(part: .region, message: "invalid polygon (\(reason)) has no area left after repair")
                }
                self.polygons = repaired
                return
            }
            problems.append(GeometryProblem(part: .region, message: "invalid polygon: \(reason)"))
            throw problems[0]
        }
        self.polygons = polygons
    }

    /// A condition of polygons known to be valid: those of a condition checked before.
    init(checked polygons: [GeoPolygon]) {
        self.polygons = polygons
    }

    private static func structuralProblems(_ polygons: [GeoPolygon]) -> [GeometryProblem] {
        if polygons.isEmpty {
            return [GeometryProblem(part: .polygons, message: "a polygon needs at least one ring")]
        }
        return polygons.enumerated().flatMap { index, polygon in polygon.structuralProblems(index: index) }
    }

    /// Vertices in all rings of all parts.
    public var vertexCount: Int { polygons.reduce(0) { $0 + $1.vertexCount } }
}
