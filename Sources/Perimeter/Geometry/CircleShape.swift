import CBuiltins
import Foundation

/// A circle condition compiled for evaluation: the centre as a unit vector, so that a fix compares
/// by chord length (a few multiplications) instead of the haversine formula's trigonometry, with the
/// haversine itself deciding the rare fixes within a micrometre of a threshold — so the answers are
/// exactly the plain haversine's.
struct CircleShape: Sendable {
    let condition: CircularGeographicCondition
    private let x: Double, y: Double, z: Double

    init(_ condition: CircularGeographicCondition) {
        self.condition = condition
        let phi = condition.center.latitude * Geodesy.radiansPerDegree
        let lambda = condition.center.longitude * Geodesy.radiansPerDegree
        x = cos(phi) * cos(lambda)
        y = cos(phi) * sin(lambda)
        z = sin(phi)
    }

    var boundingBox: BoundingBox { Geodesy.boundingBox(around: condition.center, metres: condition.radius) }

    /// What `frame`'s fix says about the circle: inside when d ≤ −m, outside when d > m
    /// (d = haversine distance to the centre − radius), near the boundary on its inside (d ≤ 0) or
    /// outside in between.
    @inline(__always)
    func reading(_ frame: inout FixFrame) -> Reading {
        let chordSquared = self.chordSquared(&frame)
        let r = condition.radius, m = frame.margin
        // sin and cos of r / 2R, computed rather than stored: 16 bytes less a circle, for a dozen
        // multiplications a reading.
        let (sinHalfAngle, cosHalfAngle) = Geodesy.halfAngleSinCos(metres: r)
        // Inside: θ ≤ (r − m)/R  ⟺  chord ≤ 2 sin((r − m)/2R), by the angle-difference formula.
        if r > m {
            let t = 2 * (sinHalfAngle * frame.cosHalfMargin - cosHalfAngle * frame.sinHalfMargin)
            let threshold = t * t
            if chordSquared < threshold - Self.band(t) { return .inside }
            if chordSquared <= threshold + Self.band(t) { return exactReading(frame) }
        } else {
            return exactReading(frame)
        }
        // Outside: θ > (r + m)/R  ⟺  chord > 2 sin((r + m)/2R), while (r + m)/2R < π/2.
        let sum = (r + m) / (2 * Geodesy.meanEarthRadius)
        guard sum < 1.5 else { return exactReading(frame) }
        let t = 2 * (sinHalfAngle * frame.cosHalfMargin + cosHalfAngle * frame.sinHalfMargin)
        let threshold = t * t
        if chordSquared > threshold + Self.band(t) { return .outside }
        if chordSquared >= threshold - Self.band(t) { return exactReading(frame) }
        // Within the margin: which side of the circle itself.
        let t0 = 2 * sinHalfAngle, radiusThreshold = t0 * t0
        if chordSquared < radiusThreshold - Self.band(t0) { return .nearInside }
        if chordSquared > radiusThreshold + Self.band(t0) { return .nearOutside }
        return exactReading(frame)
    }

    /// The great-circle distance from `frame`'s fix to the circle (|d|), to within a micrometre.
    @inline(__always)
    func distanceToBoundary(_ frame: inout FixFrame) -> Double {
        let chord = chordSquared(&frame).squareRoot()
        // asin loses precision near a half turn; no candidate of a fix is that far.
        guard chord < 1.9 else { return abs(condition.signedDistance(to: frame.coordinate)) }
        return abs(2 * Geodesy.meanEarthRadius * asin(chord / 2) - condition.radius)
    }

    /// The great-circle distance from the centre to the point `c`, given also as its unit vector
    /// (the cover grid computes those from per-row and per-column tables, without trigonometry).
    @inline(__always)
    func centreDistance(to c: Coordinate, unit ux: Double, _ uy: Double, _ uz: Double) -> Double {
        let dx = ux - x, dy = uy - y, dz = uz - z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        guard chord < 1.9 else { return Geodesy.distance(condition.center, c) }
        return 2 * Geodesy.meanEarthRadius * asin(chord / 2)
    }

    @inline(__always)
    private func chordSquared(_ frame: inout FixFrame) -> Double {
        frame.prepareUnitVector()
        let dx = frame.x - x, dy = frame.y - y, dz = frame.z - z
        return dx * dx + dy * dy + dz * dz
    }

    /// Rounding in the unit vectors moves the chord by far less than 1e-13 (0.6 µm on the Earth);
    /// within that of a threshold the haversine decides.
    @inline(__always)
    private static func band(_ t: Double) -> Double { 2e-13 * abs(t) + 1e-26 }

    /// The plain definition: haversine distance minus radius against the margin.
    func exactReading(_ frame: FixFrame) -> Reading {
        let d = condition.signedDistance(to: frame.coordinate)
        if d <= -frame.margin { return .inside }
        if d > frame.margin { return .outside }
        return d <= 0 ? .nearInside : .nearOutside
    }
}

/// A fix's position and margin, with what circle tests need computed once per fix, on first use.
struct FixFrame {
    let coordinate: Coordinate
    let margin: Double
    let sinHalfMargin: Double
    let cosHalfMargin: Double
    private(set) var x = 0.0, y = 0.0, z = 0.0
    private var hasUnitVector = false

    init(_ coordinate: Coordinate, margin: Double) {
        self.coordinate = coordinate
        self.margin = margin
        (sinHalfMargin, cosHalfMargin) = Geodesy.halfAngleSinCos(metres: margin)
    }

    /// cos(latitude), computed on first use and shared by the frame's scale, its unit vector and the
    /// anchor the fix may leave.
    var cosLatitude: Double {
        mutating get {
            if storedCosLatitude.isNaN { storedCosLatitude = cos(coordinate.latitude * Geodesy.radiansPerDegree) }
            return storedCosLatitude
        }
    }
    private var storedCosLatitude = Double.nan

    /// The frame's east–west scale (metresPerDegree × cos latitude).
    var metresPerDegreeLongitude: Double {
        mutating get { Geodesy.metresPerDegree * cosLatitude }
    }

    /// A box holding every point within the margin of the fix, computed on first use.
    var marginBox: BoundingBox {
        mutating get {
            if let box = storedMarginBox { return box }
            let box = ConditionIndex.marginBox(around: coordinate, metres: margin)
            storedMarginBox = box
            return box
        }
    }
    private var storedMarginBox: BoundingBox?

    @inline(__always)
    mutating func prepareUnitVector() {
        guard !hasUnitVector else { return }
        let phi = coordinate.latitude * Geodesy.radiansPerDegree
        let lambda = coordinate.longitude * Geodesy.radiansPerDegree
        var sinPhi = 0.0, cosPhi = 0.0, sinLambda = 0.0, cosLambda = 0.0
        perimeter_sincos(phi, &sinPhi, &cosPhi)
        perimeter_sincos(lambda, &sinLambda, &cosLambda)
        if storedCosLatitude.isNaN { storedCosLatitude = cosPhi }  // the same value cos(phi) gives
        x = cosPhi * cosLambda
        y = cosPhi * sinLambda
        z = sinPhi
        hasUnitVector = true
    }
}
