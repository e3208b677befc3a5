import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The pieces anchors are built from: a circle's reading (with the side of the boundary itself when
/// within the margin) and its chord-based distance, each against the plain haversine.
@Suite struct FixAnchorTests {
    @Test func circleReadingEqualsThePlainHaversineOnEveryBand() throws {
        var rng = SplitMix64(seed: 5)
        var mismatches: [String] = []
        for _ in 0..<2000 {
            let centre = Coordinate(latitude: .random(in: -70...70, using: &rng), longitude: .random(in: -180...180, using: &rng))
            // (Radii up to SPEC's 1,000 km: a circle's half-angle sine and cosine come from a series.)
            let largest = [5000.0, 5000, 5000, CircularGeographicCondition.maximumRadius].randomElement(using: &rng)!
            let circle = try CircularGeographicCondition(center: centre, radius: .random(in: 20...largest, using: &rng))
            let shape = CircleShape(circle)
            for _ in 0..<200 {
                // Points around the radius, the radius ± the margin, and exactly on them.
                let margin = [0.0, 5, 30, 120, .random(in: 0...1000, using: &rng)].randomElement(using: &rng)!
                let target = circle.radius + [-margin, 0, margin].randomElement(using: &rng)!
                // (Also ±0.5 m, to either side of a threshold.)
                let distance = max(0, target + [0, .random(in: -40...40, using: &rng), .random(in: -1e-6...1e-6, using: &rng),
                                                .random(in: -0.5...0.5, using: &rng)]
                    .randomElement(using: &rng)!)
                let p = Self.destination(centre, metres: distance, bearing: .random(in: 0..<(2 * .pi), using: &rng))
                var frame = FixFrame(p, margin: margin)
                let got = shape.reading(&frame) ?? CircleShape.exactReading(frame, circle)
                let d = circle.signedDistance(to: p)
                let expected: Reading = d <= -margin ? .inside : d > margin ? .outside : d <= 0 ? .nearInside : .nearOutside
                if got != expected { mismatches.append("\(p) r=\(circle.radius) m=\(margin) d=\(d): \(got) ≠ \(expected)") }
                let measured = shape.distanceToBoundary(&frame) ?? abs(d)
                if abs(measured - abs(d)) > CircleShape.distanceError { mismatches.append("\(p): distance \(measured) ≠ \(abs(d))") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// The sine and cosine of a half-angle (a Taylor series up to 1,270 km, libm's above), which
    /// circles and fixes' margins use, are libm's to within two units in the last place, far inside
    /// the band in which the circle test leaves the answer to the haversine.
    @Test func halfAngleSineAndCosineAreLibms() {
        var rng = SplitMix64(seed: 6)
        var distances = (0...120).map { 1e-3 * pow(1.25, Double($0)) }  // 1 mm to 400 km
        distances += (0..<10_000).map { _ in Double.random(in: 0...13_000, using: &rng) }
        distances += (0..<10_000).map { _ in Double.random(in: 0...1_500_000, using: &rng) }
        for metres in distances {
            let frame = FixFrame(Coordinate(latitude: 10, longitude: 20), margin: metres)
            let half = metres / (2 * Geodesy.meanEarthRadius)
            #expect(abs(frame.sinHalfMargin - sin(half)) <= 2 * sin(half).ulp, "\(metres) m")
            #expect(abs(frame.cosHalfMargin - cos(half)) <= 2 * cos(half).ulp, "\(metres) m")
        }
    }

    /// A fix that stays well inside the anchor's allowance needs no geometry; one that moves past it,
    /// or whose margin shrinks, does.
    @Test func anAnchorAnswersOnlyWithinItsAllowance() {
        let origin = Coordinate(latitude: 60, longitude: 10)
        let anchor = FixAnchor(coordinate: origin, budget: 50)
        let near = Self.destination(origin, metres: 40, bearing: 1)
        let far = Self.destination(origin, metres: 60, bearing: 1)
        #expect(anchor.holds(at: near, margin: 0))
        #expect(!anchor.holds(at: far, margin: 0))
        #expect(anchor.holds(at: far, margin: 20))
        #expect(!FixAnchor(coordinate: origin, budget: -30).holds(at: origin, margin: 20))
        // Beyond the margins and latitudes whose measure is bounded, nothing is cached.
        #expect(!anchor.holds(at: origin, margin: 5000))
        #expect(!FixAnchor(coordinate: Coordinate(latitude: 85, longitude: 0), budget: 50)
            .holds(at: Coordinate(latitude: 85, longitude: 0), margin: 10))
    }

    /// The quick bound in `holds` only ever answers as the haversine would: near the allowance, across
    /// the antimeridian, up to 80° of latitude, and far away.
    @Test func holdsAnswersAsTheHaversineDoes() {
        var rng = SplitMix64(seed: 6)
        var mismatches: [String] = []
        var answeredYes = 0
        for _ in 0..<200_000 {
            let origin = Coordinate(latitude: .random(in: -80...80, using: &rng),
                                    longitude: [.random(in: -180...180, using: &rng), 179.9999, -179.9999].randomElement(using: &rng)!)
            let anchor = FixAnchor(coordinate: origin, budget: .random(in: -50...300, using: &rng))
            let margin = [0.0, 5, 35, 65, 400].randomElement(using: &rng)!
            let allowance = MeasureBounds.marginShare * margin + anchor.budget
            let distance = [Double.random(in: 0...500, using: &rng), max(0, allowance + .random(in: -1e-5...1e-5, using: &rng)),
                            .random(in: 0...2e6, using: &rng)].randomElement(using: &rng)!
            let p = Self.destination(origin, metres: distance, bearing: .random(in: 0..<(2 * .pi), using: &rng))
            guard abs(p.latitude) <= 80 else { continue }
            let expected = allowance > 1e-6 && Geodesy.distance(origin, p) * (1 + 1e-9) + 1e-6 < allowance
            let got = anchor.holds(at: p, margin: margin)
            if got != expected { mismatches.append("\(origin) → \(p) allowance \(allowance): \(got)") }
            if got { answeredYes += 1 }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(answeredYes > 10_000)
    }

    /// The lower bound that spares `holds` the haversine never exceeds the haversine distance, at
    /// any distance and across the antimeridian, and is within 0.1 % of it up to 1 km, the scale of
    /// anchors' allowances, where it is meant to answer.
    @Test func distanceLowerBoundIsBelowTheHaversineAndCloseToIt() {
        var rng = SplitMix64(seed: 7)
        var above: [String] = [], loose = 0
        for _ in 0..<200_000 {
            let a = Coordinate(latitude: .random(in: -89...89, using: &rng),
                               longitude: [.random(in: -180...180, using: &rng), 179.9999, -179.9999].randomElement(using: &rng)!)
            let metres = [Double.random(in: 0...1_000, using: &rng), .random(in: 0...100_000, using: &rng),
                          .random(in: 0...20_000_000, using: &rng)].randomElement(using: &rng)!
            let b = Self.destination(a, metres: metres, bearing: .random(in: 0..<(2 * .pi), using: &rng))
            var dLambda = (b.longitude - a.longitude) * Geodesy.radiansPerDegree
            if dLambda > .pi { dLambda -= 2 * .pi } else if dLambda < -.pi { dLambda += 2 * .pi }
            let bound = Geodesy.distanceLowerBound(dPhi: (b.latitude - a.latitude) * Geodesy.radiansPerDegree, dLambda: dLambda,
                                                   cosLatitude: cos(a.latitude * Geodesy.radiansPerDegree))
            let distance = Geodesy.distance(a, b)
            if bound > distance { above.append("\(a) → \(b): \(bound) > \(distance)") }
            if distance <= 1_000 && abs(a.latitude) <= 80 && bound < 0.999 * distance { loose += 1 }
        }
        #expect(above.isEmpty, "\(above.prefix(5))")
        #expect(loose == 0)
    }

    /// The point `metres` from `c` along `bearing` (radians from north), on the sphere.
    static func destination(_ c: Coordinate, metres: Double, bearing: Double) -> Coordinate {
        let delta = metres / Geodesy.meanEarthRadius
        let phi1 = c.latitude * Geodesy.radiansPerDegree, lambda1 = c.longitude * Geodesy.radiansPerDegree
        let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(bearing))
        let lambda2 = lambda1 + atan2(sin(bearing) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        var lon = lambda2 / Geodesy.radiansPerDegree
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(latitude: phi2 / Geodesy.radiansPerDegree, longitude: lon)
    }
}
