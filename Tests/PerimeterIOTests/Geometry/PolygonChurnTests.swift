import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Polygons (small star-shaped ones, multipolygons, polygons with holes) and circles added, removed
/// and re-added under the same identifiers between batches and between single fixes, while devices
/// are inside them, near their boundaries and far away, with the cover grid rebuilt; against
/// `GeographicOracle` (GEOS's plain `covers` for the sign of d, a scan of every edge for its size, a
/// haversine for circles), run one call per fix and as batches on 1 and 3 threads. The three must
/// give identical events, which must agree with the oracle.
@Suite struct PolygonChurnTests {
    typealias X = GeographicOracle
    static let paris = (48.85, 2.35)

    // MARK: The scenario

    /// Hysteresis 0 and 30 m, confirmation 0 and 10 s; accuracy weight 1.
    @Test(arguments: [(0.0, 0.0), (0, 10), (30, 0), (30, 10)])
    func churnOfPolygonsAndCircles(hysteresis: Double, confirmation: Double) throws {
        var rng = SplitMix64(seed: 7100 + UInt64(hysteresis) * 3 + UInt64(confirmation))
        let policy = X.policy((hysteresis, 1, confirmation))
        let scenario = Self.scenario(rng: &rng, fixCount: 5000)
        let stats = try X.check(policy: policy, steps: scenario.steps, devices: scenario.devices, threads: 3)
        #expect(stats.fixes == 5000)
        #expect(stats.decided > 60_000, "\(stats)")
        #expect(stats.satisfiedEvents > 60, "\(stats)")
        #expect(stats.polygonEvents > 100, "\(stats)")
        #expect(stats.nearThreshold > 20, "some fixes near thresholds: \(stats)")
        #expect(stats.gridBuilds >= 2, "the cover grid is rebuilt after a large addition: \(stats)")
        #expect(stats.removedFromGridCells > 10, "conditions listed in grid cells are removed: \(stats)")
        #expect(stats.reAddedIdentifiers > 10, "\(stats)")
    }

    /// The `Monitor` actor, fed the same stream through its add/remove API, gives the engine's events
    /// (its causes counted from 1).
    @Test func monitorEqualsEngine() async throws {
        var rng = SplitMix64(seed: 7200)
        let policy = X.policy((30, 1, 10))
        let scenario = Self.scenario(rng: &rng, fixCount: 1800)
        let (engineEvents, _) = try X.run(.single, policy: policy, steps: scenario.steps, devices: scenario.devices)
        let monitor = Monitor(name: "churn", policy: policy, streamsEvents: false)
        var monitorEvents: [MonitorEvent] = []
        for step in scenario.steps {
            switch step {
            case .add(let conditions):
                for c in conditions { try await monitor.add(c.condition, identifier: c.id, assuming: c.assuming) }
            case .remove(let identifiers):
                for id in identifiers { await monitor.remove(id) }
            case .prepare: break
            case .fixes(let fixes):
                for f in fixes { monitorEvents += try await monitor.process(.fix(f.fix), device: "d\(f.device)") }
            }
        }
        let shifted = engineEvents.map { event in
            var e = event
            e.cause += 1
            return e
        }
        #expect(engineEvents.count > 100)
        #expect(firstDifference(monitorEvents, shifted) == nil)
        let identifiers = await monitor.identifiers
        #expect(Set(identifiers) == scenario.finallyMonitored)
    }

    // MARK: Conditions and steps

    /// A condition and the points the scenario aims fixes at.
    struct Churned: Sendable {
        var judged: any OracleCondition
        /// A point inside, and points on the boundary (the rings' vertices).
        var centre: (Double, Double)
        var boundary: [(Double, Double)]

        var id: String { judged.id }
    }

    struct Scenario {
        var steps: [X.Step]
        var devices: Int
        var finallyMonitored: Set<String>
    }

    /// A circle of 30–400 m, or a star-shaped polygon (as `BatchPathTests.parisEngine`), a
    /// multipolygon of two or three stars, or a star with a hole, round `centre`.
    static func makeCondition(_ id: String, kind: Int, centre: (Double, Double), assuming: ConditionState,
                              rng: inout SplitMix64) -> Churned {
        let c = Coordinate(latitude: centre.0, longitude: centre.1)
        func star(_ at: Coordinate, hole: Bool) -> GeoPolygon {
            PolygonLocatorTests.spiky(Int.random(in: 8...30, using: &rng), centre: at, radius: .random(in: 0.0005...0.004, using: &rng),
                                      rng: &rng, hole: hole)
        }
        let polygons: [GeoPolygon]
        switch kind % 4 {
        case 0:
            let radius = Double.random(in: 30...400, using: &rng)
            let boundary = (0..<8).map { k in X.destination(centre, metres: radius, bearing: Double(k) * 45) }
            return Churned(judged: X.Circle(id: id, lat: centre.0, lon: centre.1, radius: radius, assuming: assuming), centre: centre,
                           boundary: boundary)
        case 1: polygons = [star(c, hole: false)]
        case 2:  // parts 0.009° apart in longitude: each reaches at most 0.004° from its centre
            polygons = (0..<Int.random(in: 2...3, using: &rng)).map { k in
                star(Coordinate(latitude: c.latitude, longitude: c.longitude + 0.009 * Double(k)), hole: k == 1)
            }
        default: polygons = [star(c, hole: true)]
        }
        // A point inside: beside the centre, off the hole (a square of 5 % of the radius each way).
        let inside = polygons[0].holes.isEmpty ? centre : (centre.0, centre.1 + (polygons[0].exterior.map { hypot($0.latitude - c.latitude, $0.longitude - c.longitude) }.min()! * 0.6))
        let boundary = polygons.flatMap { $0.rings.flatMap { $0.map { ($0.latitude, $0.longitude) } } }
        return Churned(judged: X.Polygon(id: id, polygons: polygons, assuming: assuming), centre: inside, boundary: boundary)
    }

    /// Devices walking round Paris by small steps, jumping into conditions, onto and beside their
    /// boundaries, and far away; conditions added, removed and re-added under the same identifiers
    /// between batches and between single fixes; once 40 at a time (the cover grid is rebuilt).
    static func scenario(rng: inout SplitMix64, fixCount: Int) -> Scenario {
        let devices = 12
        let assumptions: [ConditionState] = [.unknown, .satisfied, .unsatisfied]
        var live: [Churned] = []
        var removedIDs: [String] = []
        var fresh = 0
        func cluster() -> (Double, Double) {
            (paris.0 + .random(in: -0.02...0.02, using: &rng), paris.1 + .random(in: -0.03...0.03, using: &rng))
        }
        func newCondition(id: String? = nil, at: (Double, Double)? = nil) -> Churned {
            fresh += 1
            return makeCondition(id ?? "n\(fresh)", kind: Int.random(in: 0..<4, using: &rng), centre: at ?? cluster(),
                                 assuming: assumptions.randomElement(using: &rng)!, rng: &rng)
        }
        var steps: [X.Step] = []
        let initial = (0..<40).map { _ in newCondition() }
        live = initial
        steps.append(.add(initial.map(\.judged)))
        var positions = (0..<devices).map { d in live[d].centre }
        var t = [Double](repeating: 0, count: devices)
        var emitted = 0
        let accuracies = [0.0, 0, 5, 30, 65, -1]

        func fix(_ d: Int) -> X.FixSpec {
            var p = positions[d]
            let accuracy = accuracies.randomElement(using: &rng)!
            switch Int.random(in: 0..<18, using: &rng) {
            case 16, 17:  // about a margin (the accuracy's, or a hysteresis of 30 m) from a boundary point
                if let c = live.randomElement(using: &rng) {
                    let m = [max(0, accuracy), 30].randomElement(using: &rng)! * [0.98, 0.995, 1, 1.005, 1.02].randomElement(using: &rng)!
                    p = X.destination(c.boundary.randomElement(using: &rng)!, metres: m, bearing: .random(in: 0..<360, using: &rng))
                }
            case 0, 1:  // into a condition
                if let c = live.randomElement(using: &rng) { p = c.centre }
            case 2, 3, 4:  // onto a boundary point, or a few metres to 100 m beside it
                if let c = live.randomElement(using: &rng) {
                    let b = c.boundary.randomElement(using: &rng)!
                    p = Int.random(in: 0..<3, using: &rng) == 0 ? b
                        : X.destination(b, metres: X.logUniform(0.01, 100, &rng), bearing: .random(in: 0..<360, using: &rng))
                }
            case 5:  // far away
                p = X.destination(paris, metres: X.logUniform(50_000, 500_000, &rng), bearing: .random(in: 0..<360, using: &rng))
            case 6:  // back to the cluster
                p = cluster()
            default:  // a walk of 1 cm to 30 m
                p = X.destination(p, metres: X.logUniform(0.01, 30, &rng), bearing: .random(in: 0..<360, using: &rng))
            }
            positions[d] = p
            let spec = X.FixSpec(device: d, lat: p.0, lon: p.1, accuracy: accuracy, seconds: t[d])
            t[d] += [0, 1, 2, 5, 11].randomElement(using: &rng)!
            emitted += 1
            return spec
        }
        func batch(_ n: Int) -> X.Step { .fixes((0..<n).map { _ in fix(Int.random(in: 0..<devices, using: &rng)) }) }
        func remove(_ ids: [String]) {
            steps.append(.remove(ids))
            live.removeAll { ids.contains($0.id) }
            removedIDs += ids
        }
        func reAdd(_ count: Int, nearDevices: Bool) -> [Churned] {
            var back: [Churned] = []
            for k in 0..<count {
                guard !removedIDs.isEmpty else { break }
                let id = removedIDs.remove(at: Int.random(in: 0..<removedIDs.count, using: &rng))
                let at = nearDevices ? positions[k % devices] : cluster()
                back.append(newCondition(id: id, at: at))
            }
            return back
        }

        steps.append(batch(600))
        var round = 0
        while emitted < fixCount {
            round += 1
            switch round % 4 {
            case 1:
                // Between batches: remove some devices are inside or near (listed in grid cells), re-add
                // removed identifiers round devices, add new ones.
                let near = live.filter { c in positions.contains { X.haversine($0.0, $0.1, c.centre.0, c.centre.1) < 600 } }
                remove(Array(near.prefix(6).map(\.id)) + live.filter { c in !near.contains { $0.id == c.id } }.prefix(4).map(\.id))
                let added = reAdd(5, nearDevices: true) + (0..<3).map { d in newCondition(at: positions[d]) }
                live += added
                steps.append(.add(added.map(\.judged)))
                steps.append(batch(Int.random(in: 200...700, using: &rng)))
            case 2:
                // Between single fixes: remove one, fix, re-add it at once round a device, fix, …
                for _ in 0..<12 where emitted < fixCount {
                    let d = Int.random(in: 0..<devices, using: &rng)
                    if let c = live.randomElement(using: &rng), Bool.random(using: &rng) {
                        remove([c.id])
                        steps.append(.fixes([fix(d)]))
                        let back = newCondition(id: c.id, at: Bool.random(using: &rng) ? positions[d] : cluster())
                        removedIDs.removeAll { $0 == c.id }
                        live.append(back)
                        steps.append(.add([back.judged]))
                    } else {
                        let added = [newCondition(at: positions[d])]
                        live += added
                        steps.append(.add(added.map(\.judged)))
                    }
                    steps.append(.fixes([fix(d), fix(Int.random(in: 0..<devices, using: &rng))]))
                }
            case 3:
                // 40 at once (the grid is rebuilt), some of them old identifiers round devices.
                let added = reAdd(10, nearDevices: true) + (0..<(40 - min(10, removedIDs.count))).map { _ in newCondition() }
                live += added
                steps.append(.add(added.map(\.judged)))
                if Bool.random(using: &rng) { steps.append(.prepare) }
                steps.append(batch(Int.random(in: 300...900, using: &rng)))
            default:
                // Half removed; a few re-added.
                let gone = live.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.id)
                remove(gone)
                steps.append(batch(Int.random(in: 1...5, using: &rng)))
                let back = reAdd(6, nearDevices: false)
                live += back
                steps.append(.add(back.map(\.judged)))
                steps.append(batch(Int.random(in: 100...400, using: &rng)))
            }
        }
        // Trim to exactly `fixCount` fixes.
        var total = 0
        var trimmed: [X.Step] = []
        for step in steps {
            if case .fixes(let fixes) = step {
                guard total < fixCount else { continue }
                let take = Array(fixes.prefix(fixCount - total))
                total += take.count
                trimmed.append(.fixes(take))
            } else {
                trimmed.append(step)
            }
        }
        var monitored = Set<String>()
        for step in trimmed {
            switch step {
            case .add(let conditions): for c in conditions { monitored.insert(c.id) }
            case .remove(let ids): monitored.subtract(ids)
            default: break
            }
        }
        return Scenario(steps: trimmed, devices: devices, finallyMonitored: monitored)
    }
}
