import Perimeter

extension FeatureReader {
    static let notAPosition = "expected a position [longitude, latitude]"

    /// `nil` when `value` is not a position. The caller names the field only then: building the name
    /// of each of a million positions in case it is wrong took about a fifth of a large file's load.
    static func position(_ value: JSONValue) -> Coordinate? {
        guard case .array(let numbers) = value, numbers.count >= 2,
              case .number(_, let lon) = numbers[0], case .number(_, let lat) = numbers[1] else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }

    func polygonRings(_ value: JSONValue, field: String, line: Int) throws(LocatedProblem) -> GeoPolygon {
        guard case .array(let ringValues) = value, !ringValues.isEmpty else {
            throw LocatedProblem(line: line, field: field, message: "expected an array of rings (exterior first, then holes)")
        }
        var rings: [[Coordinate]] = []
        for (r, ringValue) in ringValues.enumerated() {
            guard case .array(let positions) = ringValue else {
                throw LocatedProblem(line: line, field: "\(field)[\(r)]", message: "expected an array of positions")
            }
            var ring: [Coordinate] = []
            ring.reserveCapacity(positions.count)
            for (p, positionValue) in positions.enumerated() {
                guard let position = Self.position(positionValue) else {
                    throw LocatedProblem(line: line, field: "\(field)[\(r)][\(p)]", message: Self.notAPosition)
                }
                ring.append(position)
            }
            rings.append(ring)
        }
        let polygon = GeoPolygon(exterior: rings[0], holes: Array(rings.dropFirst()))
        try Self.refuseAntimeridianCrossing(polygon, field: field, line: line)
        return polygon
    }

    /// Refuses an edge whose ends are more than 180° of longitude apart: GeoJSON edges are straight
    /// in longitude and latitude, so such an edge runs the long way round, and a polygon drawn across
    /// the antimeridian would mean the rest of the world (RFC 7946 §3.1.9: split it there). An edge
    /// both of whose ends lie on the seam (longitude ±180, within `vertexTolerance`) runs along a
    /// parallel the whole way round — Antarctica's closing edge in Natural Earth, a band round the
    /// Earth — and is kept *(our rule)*. Checked as read, before any repair.
    private static func refuseAntimeridianCrossing(_ polygon: GeoPolygon, field: String, line: Int) throws(LocatedProblem) {
        func onSeam(_ c: Coordinate) -> Bool { abs(abs(c.longitude) - 180) <= Coordinate.vertexTolerance }
        for (r, ring) in polygon.rings.enumerated() where ring.count > 1 {
            for p in 1..<ring.count {
                let a = ring[p - 1], b = ring[p]
                let span = abs(b.longitude - a.longitude)
                guard span > 180, !(onSeam(a) && onSeam(b)) else { continue }
                throw LocatedProblem(line: line, field: "\(field)[\(r)][\(p - 1)]", message:
                    "the edge from [\(a.longitude), \(a.latitude)] to [\(b.longitude), \(b.latitude)] spans \(span)° of longitude, "
                    + "the long way round the Earth: split a polygon that crosses the antimeridian at ±180 into a MultiPolygon "
                    + "(RFC 7946 §3.1.9)")
            }
        }
    }
}
