import Foundation

/// Distances on the sphere used throughout the engine.
public enum Geodesy {
    /// Mean Earth radius (IUGG), metres — the radius SPEC §2 fixes for circles.
    public static let meanEarthRadius = 6_371_008.8

    public static let radiansPerDegree = Double.pi / 180
    /// Metres along a meridian per degree of latitude on the sphere.
    public static let metresPerDegree = meanEarthRadius * radiansPerDegree

    /// Great-circle distance in metres by the haversine formula.
    /// An upper bound, without trigonometry, on the great-circle distance in metres between two
    /// nearby points Δφ and Δλ radians apart, the first at cos φ₁ = `cosLatitude`; `nil` when they
    /// are too far apart for it (beyond about 60 km). hav θ = hav Δφ + cos φ₁ cos φ₂ hav Δλ ≤ S with
    /// hav x ≤ (x/2)² and cos φ₂ ≤ cos φ₁ + |Δφ|; θ ≤ 2√S × 1.00005 while S ≤ 10⁻⁴
    /// (asin y ≤ y/√(1 − y²)). The factor 1.0001 also covers rounding.
    @inline(__always)
    static func shortDistanceBound(dPhi: Double, dLambda: Double, cosLatitude: Double) -> Double? {
        let s = shortDistanceSquare(dPhi: dPhi, dLambda: dLambda, cosLatitude: cosLatitude)
        return s <= 1e-4 ? shortDistanceScale * s.squareRoot() : nil
    }

    /// S of `shortDistanceBound`: its square is `shortDistanceScale`² × S while S ≤ 10⁻⁴.
    @inline(__always)
    static func shortDistanceSquare(dPhi: Double, dLambda: Double, cosLatitude: Double) -> Double {
        0.25 * (dPhi * dPhi + cosLatitude * (cosLatitude + abs(dPhi)) * dLambda * dLambda)
    }

    /// 2R × 1.0001: metres per unit of √S in `shortDistanceBound`.
    static let shortDistanceScale = 2 * meanEarthRadius * 1.0001

    /// A lower bound, without trigonometry, on the great-circle distance in metres between two points
    /// Δφ and Δλ radians apart (|Δφ|, |Δλ| ≤ π), the first at cos φ₁ = `cosLatitude`: hav θ ≥ L with
    /// hav x ≥ (x/2)²(1 − x²/12) and cos φ₂ ≥ cos φ₁ − |Δφ| (and ≥ 0); θ = 2 asin √(hav θ) ≥ 2√L. The
    /// factor 0.9999 covers rounding.
    @inline(__always)
    static func distanceLowerBound(dPhi: Double, dLambda: Double, cosLatitude: Double) -> Double {
        let phi2 = dPhi * dPhi, lambda2 = dLambda * dLambda
        let l = phi2 * (1 - phi2 / 12) + cosLatitude * max(0, cosLatitude - abs(dPhi)) * lambda2 * (1 - lambda2 / 12)
        return 2 * meanEarthRadius * 0.9999 * (0.25 * max(0, l)).squareRoot()
    }

    /// Great-circle distance in metres by the haversine formula on the mean Earth radius (SPEC §2).
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

    /// sin and cos of `metres` / 2R, the half-angle circle and margin tests compare chords with. Up to
    /// 1,270 km (h ≤ 0.1) by Taylor series to h¹¹ and h¹⁰, whose remainders (below 10⁻²¹ of the
    /// value) lie far below a rounding step, instead of two calls into libm; the results may differ
    /// from libm's in their last bits, which the chord tests' bands (2 × 10⁻¹³) absorb.
    @inline(__always)
    static func halfAngleSinCos(metres: Double) -> (sin: Double, cos: Double) {
        let h = metres / (2 * meanEarthRadius)
        guard abs(h) <= 0.1 else { return (sin(h), cos(h)) }
        let h2 = h * h
        let s = h * (1 - h2 * (1.0 / 6) * (1 - h2 * (1.0 / 20) * (1 - h2 * (1.0 / 42) * (1 - h2 * (1.0 / 72) * (1 - h2 * (1.0 / 110))))))
        let c = 1 - h2 * 0.5 * (1 - h2 * (1.0 / 12) * (1 - h2 * (1.0 / 30) * (1 - h2 * (1.0 / 56) * (1 - h2 * (1.0 / 90)))))
        return (s, c)
    }

    /// A box holding every point within `metres` of any point of `box` (conservative).
    public static func expanded(_ box: BoundingBox, metres: Double) -> BoundingBox {
        let low = boundingBox(around: Coordinate(latitude: box.minLatitude, longitude: box.minLongitude), metres: metres)
        let high = boundingBox(around: Coordinate(latitude: box.maxLatitude, longitude: box.maxLongitude), metres: metres)
        // Within `metres` of a pole every longitude is: so is the expanded box's.
        if low.minLongitude <= -180 && low.maxLongitude >= 180 || high.minLongitude <= -180 && high.maxLongitude >= 180 {
            return BoundingBox(minLatitude: low.minLatitude, maxLatitude: high.maxLatitude, minLongitude: -180, maxLongitude: 180)
        }
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
