/// A circle around a point, as `CLMonitor.CircularGeographicCondition`.
public struct CircularGeographicCondition: Sendable, Hashable {
    /// The circle's centre.
    public let center: Coordinate
    /// Metres, 0 < radius ≤ 1,000,000.
    public let radius: Double

    /// The largest radius SPEC §1 accepts, in metres.
    public static let maximumRadius = 1_000_000.0

    /// A circle of `radius` metres around `center`; throws, naming the part (`.center`, `.radius`), for
    /// a centre out of range or a radius outside 0 < r ≤ 1,000,000.
    public init(center: Coordinate, radius: Double) throws(GeometryProblem) {
        guard center.isValid else {
            throw GeometryProblem(part: .center,
                                  message: "position [\(center.longitude), \(center.latitude)] is out of range (lon −180…180, lat −90…90)")
        }
        guard radius > 0, radius <= Self.maximumRadius else {
            throw GeometryProblem(part: .radius,
                                  message: "radius must be > 0 and ≤ \(Int(Self.maximumRadius)) m, got \(radius)")
        }
        self.center = center
        self.radius = radius
    }

    /// A circle whose centre and radius were checked already (the catalogue's stored ones).
    init(checkedCenter center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// Signed distance in metres from `c` to the circle's boundary, negative inside.
    public func signedDistance(to c: Coordinate) -> Double {
        Geodesy.distance(center, c) - radius
    }
}
