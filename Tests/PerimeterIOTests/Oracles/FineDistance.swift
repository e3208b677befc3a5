import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The oracle of a polygon's distance (`DifferentialTests`, and `AlignedGeometryTests`' oracle).
extension DifferentialTests {
    /// The least haversine distance to the edges, by sampling each edge and refining the best sample.
    static func fineDistance(from p: Coordinate, edges: [(Coordinate, Coordinate)]) -> Double {
        func at(_ a: Coordinate, _ b: Coordinate, _ t: Double) -> Double {
            Geodesy.distance(p, Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude)))
        }
        var best = Double.infinity
        for (a, b) in edges {
            // Skip edges clearly too far (more than 2° from the point at both ends and in between).
            if min(abs(a.latitude - p.latitude), abs(b.latitude - p.latitude)) > 3 && (a.latitude - p.latitude) * (b.latitude - p.latitude) > 0 { continue }
            let samples = 64
            var bestT = 0.0, bestD = Double.infinity
            for k in 0...samples {
                let d = at(a, b, Double(k) / Double(samples))
                if d < bestD { bestD = d; bestT = Double(k) / Double(samples) }
            }
            var lo = max(0, bestT - 1.0 / Double(samples)), hi = min(1, bestT + 1.0 / Double(samples))
            for _ in 0..<80 {
                let m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3
                if at(a, b, m1) < at(a, b, m2) { hi = m2 } else { lo = m1 }
            }
            best = min(best, bestD, at(a, b, (lo + hi) / 2))
        }
        return best
    }
}
