import Foundation


/// Finds the nearest point of a set of lon/lat edges to a point, in an equirectangular frame centred
/// on it (edges straight in lon/lat stay straight there).
struct NearestPointFrame {
    let origin: Coordinate
    private let kx: Double
    private let ky = Geodesy.metresPerDegree
    /// The squared frame distance to `nearest`.
    private(set) var bestSquared = Double.infinity
    private(set) var nearest: Coordinate?

    init(_ origin: Coordinate) {
        self.init(origin, metresPerDegreeLongitude: Geodesy.metresPerDegree * cos(origin.latitude * Geodesy.radiansPerDegree))
    }

    /// - Parameter metresPerDegreeLongitude: the frame's scale east–west, metresPerDegree × cos(latitude).
    init(_ origin: Coordinate, metresPerDegreeLongitude: Double) {
        self.origin = origin
        kx = metresPerDegreeLongitude
    }

    /// Where an edge's frame distance from the origin lies against two squared distances.
    enum Closeness {
        /// Below `near`.
        case near
        /// From `near` up to `far`.
        case band
        /// Beyond `far`.
        case beyond
    }

    /// Where the edge's squared frame distance (as `consider` measures it) lies against `near` and
    /// `far`, compared without dividing by the edge's length. Rounding may place a distance within a
    /// few ulps of `near` or `far` on either side of it, which callers' thresholds leave room for.
    @inline(__always)
    func closeness(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double, near: Double, far: Double) -> Closeness {
        var alon = lon1 - origin.longitude, blon = lon2 - origin.longitude
        if min(alon, blon) > 180 {
            alon -= 360; blon -= 360
        } else if max(alon, blon) < -180 {
            alon += 360; blon += 360
        }
        let ax = alon * kx, ay = (lat1 - origin.latitude) * ky
        let dx = (blon - alon) * kx, dy = (lat2 - lat1) * ky
        let along = -(ax * dx + ay * dy), lengthSquared = dx * dx + dy * dy
        // The nearest point is an end (t ≤ 0 or t ≥ 1), or the foot of the perpendicular, whose
        // squared distance is cross² / length².
        let scaled: Double, scale: Double
        if along <= 0 || lengthSquared == 0 {
            scaled = ax * ax + ay * ay; scale = 1
        } else if along >= lengthSquared {
            let bx = ax + dx, by = ay + dy
            scaled = bx * bx + by * by; scale = 1
        } else {
            let cross = ax * dy - ay * dx
            scaled = cross * cross; scale = lengthSquared
        }
        if scaled < near * scale { return .near }
        return scaled > far * scale ? .beyond : .band
    }

    mutating func consider(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) {
        // The edge is straight in raw longitude; only the whole edge may be moved a turn round, to
        // its copy nearest the origin (an edge near the antimeridian, seen from the other side).
        var alon = lon1 - origin.longitude, blon = lon2 - origin.longitude
        if min(alon, blon) > 180 {
            alon -= 360; blon -= 360
        } else if max(alon, blon) < -180 {
            alon += 360; blon += 360
        }
        let alat = lat1 - origin.latitude, blat = lat2 - origin.latitude
        let ax = alon * kx, ay = alat * ky
        let dx = (blon - alon) * kx, dy = (blat - alat) * ky
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(ax * dx + ay * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let px = ax + t * dx, py = ay + t * dy
        let distanceSquared = px * px + py * py
        if distanceSquared < bestSquared {
            bestSquared = distanceSquared
            nearest = Coordinate(latitude: origin.latitude + alat + t * (blat - alat),
                                 longitude: origin.longitude + alon + t * (blon - alon))
        }
    }
}
