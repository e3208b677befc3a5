import CBuiltins
import Foundation

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
            let box = BoundingBox.marginBox(around: coordinate, metres: margin)
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
