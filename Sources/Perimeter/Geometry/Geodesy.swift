import Foundation

/// Distances on the sphere used throughout the engine.
public enum Geodesy {
    /// Mean Earth radius (IUGG), metres — the radius SPEC §2 fixes for circles.
    public static let meanEarthRadius = 6_371_008.8

    public static let radiansPerDegree = Double.pi / 180
    /// Metres along a meridian per degree of latitude on the sphere.
    public static let metresPerDegree = meanEarthRadius * radiansPerDegree

    /// Great-circle distance in metres by the haversine formula.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = a.latitude * radiansPerDegree
        let phi2 = b.latitude * radiansPerDegree
        let dPhi = phi2 - phi1
        let dLambda = (b.longitude - a.longitude) * radiansPerDegree
        let s1 = sin(dPhi / 2)
        let s2 = sin(dLambda / 2)
        let h = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2
        return 2 * meanEarthRadius * asin(min(1, h.squareRoot()))
    }

    /// A box holding every point within `metres` of any point of `box` (conservative).
    public static func expanded(_ box: BoundingBox, metres: Double) -> BoundingBox {
        let low = boundingBox(around: Coordinate(latitude: box.minLatitude, longitude: box.minLongitude), metres: metres)
        let high = boundingBox(around: Coordinate(latitude: box.maxLatitude, longitude: box.maxLongitude), metres: metres)
        // The longitude half-width is largest at the latitude nearest a pole.
        let dLon = max(box.minLongitude - low.minLongitude, high.maxLongitude - box.maxLongitude)
        return BoundingBox(minLatitude: low.minLatitude, maxLatitude: high.maxLatitude,
                           minLongitude: box.minLongitude - dLon, maxLongitude: box.maxLongitude + dLon)
    }

    /// The smallest latitude/longitude box that holds every point within `metres` of `centre`.
    ///
    /// Conservative by construction (from the haversine formula: hav(d) ≥ cos²φmax · hav(Δλ)), so a
    /// point outside the box is certainly farther than `metres`. Longitudes may exceed ±180 here; the
    /// index splits such boxes at the antimeridian.
    public static func boundingBox(around centre: Coordinate, metres: Double) -> BoundingBox {
        // A hair of slack so that rounding can never make the box too small.
        let m = metres * (1 + 1e-9) + 1e-6
        let dLat = m / metresPerDegree
        let minLat = centre.latitude - dLat
        let maxLat = centre.latitude + dLat
        let phiMax = max(abs(minLat), abs(maxLat))
        if phiMax >= 90 {
            return BoundingBox(minLatitude: max(-90, minLat), maxLatitude: min(90, maxLat),
                               minLongitude: -180, maxLongitude: 180)
        }
        let s = sin(m / (2 * meanEarthRadius)) / cos(phiMax * radiansPerDegree)
        if s >= 1 {
            return BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)
        }
        let dLon = 2 * asin(s) / radiansPerDegree * (1 + 1e-9) + 1e-9
        if dLon >= 180 {
            return BoundingBox(minLatitude: minLat, maxLatitude: maxLat, minLongitude: -180, maxLongitude: 180)
        }
        return BoundingBox(minLatitude: minLat, maxLatitude: maxLat,
                           minLongitude: centre.longitude - dLon, maxLongitude: centre.longitude + dLon)
    }
}
