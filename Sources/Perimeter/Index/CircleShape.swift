import CBuiltins
import Foundation

/// What evaluation reads of a circle condition, 20 bytes: the centre as a unit vector, so that a fix
/// compares by chord length (a few multiplications) instead of the haversine formula's trigonometry,
/// and the radius. The vector is kept in 31-bit fixed point, which moves a chord by at most
/// `chordError` (2.6 mm on the Earth): a reading that close to a threshold, or a distance past the
/// chords the bound covers, is left to the plain haversine on the exact centre, which the catalogue
/// keeps apart (`ConditionCatalog.circleCentres`) because evaluation seldom reads it. The answers
/// are exactly the plain haversine's.
///
/// (The centre's vector in doubles took 24 bytes where this takes 12, and the centre 16 bytes beside
/// them in the same record: 48 bytes a circle in all, 36 now.)
struct CircleShape: Sendable {
    private let x: Int32, y: Int32, z: Int32
    // The radius's bits in two halves, so that the record keeps 4-byte alignment (20 bytes, not 24).
    private let radiusLow: UInt32, radiusHigh: UInt32

    /// Fixed-point units per unit of a vector component.
    private static let scale = Double(Int32.max)
    /// A bound on how far the stored vector lies from the exact one: three components each rounded by
    /// at most half a unit, with room for the doubles' own rounding.
    static let chordError = 3.0.squareRoot() * 0.5 / scale * 1.001
    /// A bound on the error of `distanceToBoundary` in metres: the chord's error at chords below 1.9,
    /// where asin's slope stays under 3.21.
    static let distanceError = 3.21 * chordError * Geodesy.meanEarthRadius + 1e-6

    init(_ condition: CircularGeographicCondition) {
        let phi = condition.center.latitude * Geodesy.radiansPerDegree
        let lambda = condition.center.longitude * Geodesy.radiansPerDegree
        x = Int32((cos(phi) * cos(lambda) * Self.scale).rounded())
        y = Int32((cos(phi) * sin(lambda) * Self.scale).rounded())
        z = Int32((sin(phi) * Self.scale).rounded())
        let bits = condition.radius.bitPattern
        radiusLow = UInt32(truncatingIfNeeded: bits)
        radiusHigh = UInt32(truncatingIfNeeded: bits >> 32)
    }

    /// Metres.
    @inline(__always)
    var radius: Double { Double(bitPattern: UInt64(radiusHigh) << 32 | UInt64(radiusLow)) }

    /// What `frame`'s fix says about the circle: inside when d ≤ −m, outside when d > m
    /// (d = haversine distance to the centre − radius), near the boundary on its inside (d ≤ 0) or
    /// outside in between; `nil` when the fix is too close to a threshold for the chord to tell, for
    /// `exactReading(_:_:)` to decide.
    @inline(__always)
    func reading(_ frame: inout FixFrame) -> Reading? {
        let chordSquared = self.chordSquared(&frame)
        let r = radius, m = frame.margin
        // sin and cos of r / 2R, computed rather than stored: 16 bytes less a circle, for a dozen
        // multiplications a reading.
        let (sinHalfAngle, cosHalfAngle) = Geodesy.halfAngleSinCos(metres: r)
        // Inside: θ ≤ (r − m)/R  ⟺  chord ≤ 2 sin((r − m)/2R), by the angle-difference formula.
        if r > m {
            let t = 2 * (sinHalfAngle * frame.cosHalfMargin - cosHalfAngle * frame.sinHalfMargin)
            let threshold = t * t
            if chordSquared < threshold - Self.band(t) { return .inside }
            if chordSquared <= threshold + Self.band(t) { return nil }
        } else {
            return nil
        }
        // Outside: θ > (r + m)/R  ⟺  chord > 2 sin((r + m)/2R), while (r + m)/2R < π/2.
        let sum = (r + m) / (2 * Geodesy.meanEarthRadius)
        guard sum < 1.5 else { return nil }
        let t = 2 * (sinHalfAngle * frame.cosHalfMargin + cosHalfAngle * frame.sinHalfMargin)
        let threshold = t * t
        if chordSquared > threshold + Self.band(t) { return .outside }
        if chordSquared >= threshold - Self.band(t) { return nil }
        // Within the margin: which side of the circle itself.
        let t0 = 2 * sinHalfAngle, radiusThreshold = t0 * t0
        if chordSquared < radiusThreshold - Self.band(t0) { return .nearInside }
        if chordSquared > radiusThreshold + Self.band(t0) { return .nearOutside }
        return nil
    }

    /// The great-circle distance from `frame`'s fix to the circle (|d|), to within `distanceError`;
    /// `nil` for a fix nearly a half turn from the centre, where asin loses precision (no candidate
    /// of a fix is that far): the plain haversine then measures it.
    @inline(__always)
    func distanceToBoundary(_ frame: inout FixFrame) -> Double? {
        let chord = chordSquared(&frame).squareRoot()
        guard chord < 1.9 else { return nil }
        return abs(2 * Geodesy.meanEarthRadius * asin(chord / 2) - radius)
    }

    /// The great-circle distance from the centre to the point `c`, given also as its unit vector
    /// (the cover grid computes those from per-row and per-column tables, without trigonometry), to
    /// within `distanceError`.
    @inline(__always)
    func centreDistance(to c: Coordinate, unit ux: Double, _ uy: Double, _ uz: Double, centre: Coordinate) -> Double {
        let chord = chordSquared(toUnit: ux, uy, uz).squareRoot()
        guard chord < 1.9 else { return Geodesy.distance(centre, c) }
        return 2 * Geodesy.meanEarthRadius * asin(chord / 2)
    }

    @inline(__always)
    private func chordSquared(_ frame: inout FixFrame) -> Double {
        frame.prepareUnitVector()
        return chordSquared(toUnit: frame.x, frame.y, frame.z)
    }

    /// The squared chord from the centre (as stored) to the point whose unit vector is (ux, uy, uz).
    @inline(__always)
    private func chordSquared(toUnit ux: Double, _ uy: Double, _ uz: Double) -> Double {
        let k = 1 / Self.scale
        let dx = ux - Double(x) * k, dy = uy - Double(y) * k, dz = uz - Double(z) * k
        return dx * dx + dy * dy + dz * dz
    }

    /// How far a squared chord may lie from the exact one near a threshold `t`: with the stored
    /// vector within ε = `chordError` of the exact one, the chord is within ε, so its square within
    /// 2εt + ε²; rounding in the doubles adds far less than 1e-13 (0.6 µm on the Earth). Within that
    /// of a threshold the haversine decides.
    @inline(__always)
    private static func band(_ t: Double) -> Double { (2 * chordError + 2e-13) * abs(t) + chordError * chordError + 1e-26 }

    /// The plain definition: haversine distance minus radius against the margin.
    static func exactReading(_ frame: FixFrame, _ circle: CircularGeographicCondition) -> Reading {
        let d = circle.signedDistance(to: frame.coordinate)
        if d <= -frame.margin { return .inside }
        if d > frame.margin { return .outside }
        return d <= 0 ? .nearInside : .nearOutside
    }
}
