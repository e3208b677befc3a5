import Foundation

/// How far the engine's distance measure may stray from the great-circle distance, and what that
/// leaves a device's anchor (`FixAnchor`): the catalog computes clearances with these bounds, and
/// the anchor spends them. λ = `marginShare`.
enum MeasureBounds {
    /// 1/(1 + ε): how much of a later fix's margin certainly lies inside the measured distance.
    static let marginShare = 1 / 1.01
    /// Beyond these the polygon measure's distortion is not bounded by ε (it is not cached).
    static let largestMargin = 1000.0
    static let largestLatitude = 80.0

    /// The most a term of a polygon with seam edges (`PolygonLocator.hasSeamEdges`) may be for an
    /// anchor at `c`. Seam and pole edges are no boundary for the distance, but `covers` still
    /// changes across the antimeridian: a fix may pass from one side to the other there while far
    /// from every boundary edge, so the anchor argument (`FixAnchor`) holds only for moves that stay short of it.
    /// A term of at most (a lower bound on `c`'s great-circle distance to the antimeridian) − λ ×
    /// `largestMargin` keeps every fix the anchor serves (δ < λ m′ + term, m′ ≤ `largestMargin`)
    /// nearer than that. (Across a pole a fix at |latitude| ≤ 80° moves thousands of kilometres,
    /// and the poles themselves are on edges that count, unless every longitude near them is on
    /// one side.)
    static func seamTermCap(_ c: Coordinate) -> Double {
        seamDistanceBound(c) - marginShare * largestMargin
    }

    /// A lower bound on the great-circle distance in metres from `c` to the antimeridian (the
    /// half meridian at longitude ±180, pole to pole): R asin(sin Δλ cos φ) with Δλ the longitude
    /// difference while it is at most 90°, else the distance to the nearer pole.
    static func seamDistanceBound(_ c: Coordinate) -> Double {
        let dLambda = (180 - min(180, abs(c.longitude))) * Geodesy.radiansPerDegree
        let phi = abs(c.latitude) * Geodesy.radiansPerDegree
        let angle = dLambda <= .pi / 2 ? asin(min(1, sin(dLambda) * cos(phi))) : .pi / 2 - phi
        return max(0, angle * Geodesy.meanEarthRadius * (1 - 1e-9) - 1e-3)
    }
}
