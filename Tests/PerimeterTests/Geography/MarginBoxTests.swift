import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The stateless query checks a circle's box against the point without building it
/// (`BoundingBox.marginBox(around:metres:holds:)`); it must answer as the box itself does, across
/// the antimeridian and near the poles too.
@Suite struct MarginBoxTests {
    @Test func pointCheckAnswersAsTheBox() {
        var rng = SplitMix64(seed: 71)
        var disagreements: [String] = []
        var inside = 0
        for k in 0..<200_000 {
            // Centres anywhere, a fifth of them near ±180 and a tenth within two degrees of a pole.
            let latitude = k % 10 == 0 ? Double.random(in: 87...90, using: &rng) * (k % 20 == 0 ? 1 : -1)
                : Double.random(in: -86...86, using: &rng)
            let longitude = k % 5 == 0 ? Double.random(in: 178...180, using: &rng) * (k % 2 == 0 ? 1 : -1)
                : Double.random(in: -180...180, using: &rng)
            let centre = Coordinate(latitude: latitude, longitude: longitude)
            let metres = [Double.random(in: 1...500, using: &rng), .random(in: 500...50_000, using: &rng),
                          .random(in: 50_000...1_000_000, using: &rng)].randomElement(using: &rng)!
            // Points around the box's edges, on either side of ±180 when the centre is near it.
            let reach = 1.6 * metres / Geodesy.metresPerDegree
            var pointLongitude = longitude + .random(in: -4 * reach...4 * reach, using: &rng)
            if pointLongitude > 180 { pointLongitude -= 360 }
            if pointLongitude < -180 { pointLongitude += 360 }
            let point = Coordinate(latitude: max(-90, min(90, latitude + .random(in: -reach...reach, using: &rng))),
                                   longitude: pointLongitude)
            let box = BoundingBox.marginBox(around: centre, metres: metres)
            let expected = BoundingBox.meets(box, BoundingBox(minLatitude: point.latitude, maxLatitude: point.latitude,
                                                                 minLongitude: point.longitude, maxLongitude: point.longitude))
            let got = BoundingBox.marginBox(around: centre, metres: metres, holds: point)
            if expected { inside += 1 }
            if got != expected { disagreements.append("\(centre) \(metres) m, \(point): \(got) ≠ \(expected)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(inside > 20_000 && inside < 180_000)  // both answers were asked for
    }
}
