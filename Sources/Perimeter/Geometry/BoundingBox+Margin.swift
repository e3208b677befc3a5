import Foundation

/// Boxes round a point's margin, and box overlap across the antimeridian: what the index and the
/// polygon and circle readings ask of a fix before any exact test.
extension BoundingBox {
    /// Whether two boxes meet, either directly or one turn of longitude round.
    static func meets(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        if a.intersects(b) { return true }
        var shifted = a
        shifted.minLongitude += 360
        shifted.maxLongitude += 360
        if shifted.intersects(b) { return true }
        shifted.minLongitude -= 720
        shifted.maxLongitude -= 720
        return shifted.intersects(b)
    }

    /// A box holding every point within `metres` of `c`, cheaper than `Geodesy.boundingBox` and never
    /// smaller: the longitude half-width uses 1/cos of the band's highest latitude from a table.
    @inline(__always)
    static func marginBox(around c: Coordinate, metres: Double) -> BoundingBox {
        let dLat = metres * (1 + 1e-9) / Geodesy.metresPerDegree + 1e-9
        let highest = abs(c.latitude) + dLat
        guard highest < 89 else { return Geodesy.boundingBox(around: c, metres: metres) }
        // secant[k] = 1/cos((k + 1)°) bounds 1/cos over [k°, (k + 1)°]; hav ≥ cos²φ·hav(Δλ) gives
        // Δλ ≤ dLat/cosφ up to the sin/asin curvature, covered by the 1.001.
        let dLon = dLat * secant[Int(highest)] * 1.001
        return BoundingBox(minLatitude: c.latitude - dLat, maxLatitude: c.latitude + dLat,
                           minLongitude: c.longitude - dLon, maxLongitude: c.longitude + dLon)
    }

    /// Whether `marginBox(around: c, metres:)` meets the point `p`, as `meets` would find it (up to
    /// the last bit at the box's edges, which lie well outside the `metres`: both hold every point
    /// within them), without building the box — the stateless query's check of a circle before its
    /// test, per candidate.
    @inline(__always)
    static func marginBox(around c: Coordinate, metres: Double, holds p: Coordinate) -> Bool {
        let dLat = metres * (1 + 1e-9) / Geodesy.metresPerDegree + 1e-9
        guard abs(p.latitude - c.latitude) <= dLat else { return false }
        let highest = abs(c.latitude) + dLat
        guard highest < 89 else {
            let point = BoundingBox(minLatitude: p.latitude, maxLatitude: p.latitude, minLongitude: p.longitude, maxLongitude: p.longitude)
            return meets(marginBox(around: c, metres: metres), point)
        }
        let dLon = dLat * secant[Int(highest)] * 1.001
        // (The box one turn round either way: the shorter way between the longitudes.)
        let apart = abs(p.longitude - c.longitude)
        return min(apart, 360 - apart) <= dLon
    }

    private static let secant: [Double] = (0..<90).map { 1 / cos(Double($0 + 1) * .pi / 180) }
}

extension BoundingBox {
    /// Whether [low, high] meets the box's longitudes directly or one turn round.
    func overlapsLongitudes(_ low: Double, _ high: Double) -> Bool {
        (low <= maxLongitude && high >= minLongitude)
            || (low + 360 <= maxLongitude && high + 360 >= minLongitude)
            || (low - 360 <= maxLongitude && high - 360 >= minLongitude)
    }
}
