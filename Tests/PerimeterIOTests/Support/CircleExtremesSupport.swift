import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The oracle's types, and the circles' own thresholds.
extension CircleExtremesTests {
    typealias Oracle = GeographicOracle
    typealias Circle = Oracle.Circle
    typealias FixSpec = Oracle.FixSpec
    typealias Step = Oracle.Step

    /// A distance from a circle's centre at one of its thresholds (radius, radius ± margin), at the
    /// oracle's tolerance beside one, or anywhere within a margin and a bit of the rim.
    static func thresholdDistance(_ radius: Double, _ margin: Double, _ rng: inout SplitMix64) -> Double {
        let base = [radius, radius + margin, radius - margin].randomElement(using: &rng)!
        let tolerance = Oracle.tolerance(distance: base, radius: radius, margin: margin)
        let rho: Double = switch Int.random(in: 0..<5, using: &rng) {
        case 0, 1: base
        case 2: base + [-2.0, 2, -1.001, 1.001].randomElement(using: &rng)! * tolerance
        case 3: base + .random(in: -1...1, using: &rng) * tolerance * 4
        default: radius + .random(in: -1.2...1.2, using: &rng) * (margin + radius * 0.1)
        }
        return abs(rho)
    }

    /// An engine holding `circles` with its indexes laid out, to look at its cover grid.
    static func preparedEngine(_ policy: MonitoringPolicy, _ circles: [Circle]) throws -> MonitoringEngine {
        var probe = try Oracle.engine(policy, [.add(circles)])
        probe.prepare()
        return probe
    }

    /// The cover grid an engine builds for `circles` by itself (for more than 32), if any.
    static func gridTheEngineBuilds(_ policy: MonitoringPolicy, _ circles: [Circle]) throws -> CoverGrid? {
        circles.count > 32 ? try preparedEngine(policy, circles).catalog.coverGrid : nil
    }

    /// `count` circles of 30–400 m round Paris, in random starting states.
    static func parisCluster(_ count: Int, rng: inout SplitMix64, prefix: String = "c") -> [Circle] {
        (0..<count).map { i in
            Circle(id: "\(prefix)\(i)", lat: paris.0 + .random(in: -0.02...0.02, using: &rng), lon: paris.1 + .random(in: -0.03...0.03, using: &rng),
                   radius: .random(in: 30...400, using: &rng), assuming: [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!)
        }
    }
}
