import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// A geographic condition a differential test adds to the engine, with a plain evaluation of its own.
protocol OracleCondition: Sendable {
    var id: String { get }
    var assuming: ConditionState { get }
    /// The condition as the engine takes it.
    var condition: Condition { get }
    var isPolygon: Bool { get }
    /// Its plain evaluation (for a polygon, a GEOS geometry and a scan of every edge), built once.
    func plain(in context: GEOSContext) -> GeographicOracle.Plain
}

/// The oracle the differential tests of geographic monitoring share (`CircleExtremesTests`,
/// `PolygonChurnTests`): steps of conditions added and removed and fixes, run one call per fix and as
/// batches on one and several threads, which must give identical events; those events are checked
/// against a state machine of the test's own (SPEC §2) fed by each condition's plain evaluation.
///
/// A plain evaluation may leave a fix's side undecided near a threshold (within its tolerance). The
/// oracle then keeps every pair state the allowed sides lead to and keeps those the engine's observed
/// state agrees with, so a pair is never compared against a state the engine may legitimately not be
/// in. After a discrepancy the pair is compared no more.
enum GeographicOracle {
    static let earthRadius = 6_371_008.8
    static let start = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)

    struct FixSpec: Sendable {
        var device: Int
        var lat: Double
        var lon: Double
        var accuracy: Double
        var seconds: Double

        var fix: Fix {
            Fix(time: GeographicOracle.start.adding(TimeSpan(seconds: seconds)), coordinate: Coordinate(latitude: lat, longitude: lon),
                horizontalAccuracy: accuracy)
        }
    }

    enum Step {
        case add([any OracleCondition])
        case remove([String])
        case prepare
        case fixes([FixSpec])
    }

    /// One condition's plain evaluation: the sides a fix may take of it for a margin, and the
    /// distances behind that, for a report.
    struct Plain {
        var describe: String
        var sides: (FixSpec, _ margin: Double) -> Sides
        var explain: (FixSpec) -> String
    }

    static func policy(_ values: (hysteresis: Double, weight: Double, confirmation: Double)) -> MonitoringPolicy {
        var policy = MonitoringPolicy()
        policy.hysteresis = values.hysteresis
        policy.accuracyWeight = values.weight
        policy.confirmation = values.confirmation
        return policy
    }

    // MARK: The conditions

    struct Circle: OracleCondition {
        var id: String
        var lat: Double
        var lon: Double
        var radius: Double
        var assuming: ConditionState = .unknown

        var condition: Condition {
            .circle(try! CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
        }

        var isPolygon: Bool { false }

        /// The haversine distance to the centre less the radius, decided within `tolerance` of a threshold.
        func plain(in context: GEOSContext) -> Plain {
            Plain(describe: "circle \(id) centre (\(lat), \(lon)) radius \(radius) assuming \(assuming)",
                  sides: { [self] f, margin in
                      GeographicOracle.sides(distance: haversine(lat, lon, f.lat, f.lon), radius: radius, margin: margin)
                  },
                  explain: { [self] f in
                      let distance = haversine(lat, lon, f.lat, f.lon)
                      return "distance \(distance) m, d = \(distance - radius) m"
                  })
        }
    }

    /// A polygon or multipolygon: the sign of d by GEOS's plain `covers`, its size by the plain measure
    /// over every edge that counts as boundary (`SeamTests.boundaryDistance`: seam and pole edges do
    /// not), which is good to 0.5 % (SPEC §2), so
    /// a side is decided only where |d| is more than 1 % from the margin; with a margin of 0 the sign
    /// alone decides, exactly.
    struct Polygon: OracleCondition {
        var id: String
        var polygons: [GeoPolygon]
        var assuming: ConditionState = .unknown

        var condition: Condition { .polygon(try! PolygonalGeographicCondition(polygons: polygons)) }
        var isPolygon: Bool { true }

        func plain(in context: GEOSContext) -> Plain {
            let geometry = PolygonGeometry.make(polygons, in: context)
            let vertices = polygons.flatMap { $0.rings.flatMap { $0 } }
            let minLat = vertices.map(\.latitude).min()!, maxLat = vertices.map(\.latitude).max()!
            let minLon = vertices.map(\.longitude).min()!, maxLon = vertices.map(\.longitude).max()!
            func covers(_ f: FixSpec) -> Bool {
                geometry.covers(GEOSGeometryHandle.point(Coordinate(latitude: f.lat, longitude: f.lon), in: context))
            }
            return Plain(
                describe: "polygon \(id) (\(polygons.count) parts, \(polygons.map(\.holes.count).reduce(0, +)) holes, first vertex "
                    + "\(polygons[0].exterior[0])) assuming \(assuming)",
                sides: { f, margin in
                    precondition(margin < 500)
                    // More than 0.01° (over 700 m at these latitudes) outside the box: outside by far.
                    if f.lat < minLat - 0.01 || f.lat > maxLat + 0.01 || f.lon < minLon - 0.01 || f.lon > maxLon + 0.01 {
                        return .outside
                    }
                    let inside = covers(f)
                    if margin == 0 { return inside ? .inside : .outside }
                    let distance = SeamTests.boundaryDistance(from: Coordinate(latitude: f.lat, longitude: f.lon), polygons)
                    if abs(distance - margin) <= 0.01 * max(distance, margin) { return [inside ? .inside : .outside, .between] }
                    return distance >= margin ? (inside ? .inside : .outside) : .between
                },
                explain: { f in
                    "covered \(covers(f)), distance to the boundary \(SeamTests.boundaryDistance(from: Coordinate(latitude: f.lat, longitude: f.lon), polygons)) m"
                })
        }
    }

    // MARK: Geometry of the test's own

    /// Great-circle distance by the haversine formula on the mean Earth radius (SPEC §2), the
    /// longitude difference taken the short way round.
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        var dLon = (lon2 - lon1).truncatingRemainder(dividingBy: 360)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let phi1 = lat1 * toRadians, phi2 = lat2 * toRadians
        let a = sin((phi2 - phi1) / 2), b = sin(dLon * toRadians / 2)
        let h = a * a + cos(phi1) * cos(phi2) * b * b
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// The point `metres` from `p` along the great circle leaving it at `bearing` degrees.
    static func destination(_ p: (Double, Double), metres: Double, bearing: Double) -> (Double, Double) {
        let r = Double.pi / 180
        let delta = metres / earthRadius, theta = bearing * r, phi1 = p.0 * r
        let sinPhi2 = max(-1, min(1, sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)))
        let lambda = atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sinPhi2)
        return (max(-90, min(90, asin(sinPhi2) / r)), normalised(p.1 + lambda / r))
    }

    static func bearing(_ from: (Double, Double), _ to: (Double, Double)) -> Double {
        let r = Double.pi / 180
        let phi1 = from.0 * r, phi2 = to.0 * r, dLambda = (to.1 - from.1) * r
        return atan2(sin(dLambda) * cos(phi2), cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)) / r
    }

    static func normalised(_ lon: Double) -> Double {
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l > 180 { l -= 360 } else if l < -180 { l += 360 }
        return l
    }

    static func logUniform(_ low: Double, _ high: Double, _ rng: inout SplitMix64) -> Double {
        exp(Double.random(in: log(low)...log(high), using: &rng))
    }

    // MARK: Sides and the state machine

    /// How near a circle's threshold the oracle leaves the side undecided.
    static func tolerance(distance: Double, radius: Double, margin: Double) -> Double {
        1e-6 * max(distance, radius, margin) + 0.001
    }

    struct Sides: OptionSet, Hashable {
        let rawValue: UInt8
        static let inside = Sides(rawValue: 1)
        static let between = Sides(rawValue: 2)
        static let outside = Sides(rawValue: 4)
        var isDecided: Bool { rawValue.nonzeroBitCount == 1 }
    }

    /// Where a fix `distance` from a circle's centre is, with margin `margin` (SPEC §2): confidently
    /// inside when d ≤ −m, confidently outside when d > m, else between; every answer within the
    /// tolerance of d.
    static func sides(distance: Double, radius: Double, margin: Double) -> Sides {
        let tolerance = tolerance(distance: distance, radius: radius, margin: margin)
        let d = distance - radius
        func side(_ x: Double) -> Sides { x <= -margin ? .inside : (x > margin ? .outside : .between) }
        var sides = side(d - tolerance).union(side(d + tolerance))
        if sides.contains(.inside) && sides.contains(.outside) && margin > 0 { sides.insert(.between) }
        return sides
    }

    /// A pair's state (SPEC §2): a change needs confident fixes on the new side for `confirmation`
    /// seconds; a confident fix on the current side cancels a pending change.
    struct Pair: Hashable {
        var state: ConditionState
        var pendingInside: Bool?
        var since: Int64 = 0

        func observing(_ sides: Sides, at t: Int64, confirmation: Int64) -> Pair {
            guard sides != .between else { return self }
            let inside = sides == .inside
            let target: ConditionState = inside ? .satisfied : .unsatisfied
            var next = self
            if state == target {
                next.pendingInside = nil
                return next
            }
            if pendingInside != inside {
                next.pendingInside = inside
                next.since = t
            }
            if t - next.since >= confirmation {
                next.state = target
                next.pendingInside = nil
            }
            return next
        }
    }

    // MARK: The three runs

    struct Stats: CustomStringConvertible {
        var fixes = 0
        /// Pair checks where the fix's side and the pair's state were both certain.
        var decided = 0
        /// Pair checks where the fix lay within the tolerance of a threshold.
        var nearThreshold = 0
        var satisfiedEvents = 0
        var polygonEvents = 0
        var anchorAnswered = 0
        var eventsByIdentifier: [String: Int] = [:]
        /// Identifiers added again after their removal.
        var reAddedIdentifiers = 0
        /// How often the cover grid was built, and how many removed conditions its cells listed.
        var gridBuilds = 0
        var removedFromGridCells = 0

        func eventCount(_ ids: [String]) -> Int { ids.reduce(0) { $0 + (eventsByIdentifier[$1] ?? 0) } }

        var description: String {
            "fixes \(fixes), decided \(decided), near a threshold \(nearThreshold), satisfied events \(satisfiedEvents), "
                + "polygon events \(polygonEvents), answered by anchors \(anchorAnswered), re-added \(reAddedIdentifiers), "
                + "grid builds \(gridBuilds), removed from grid cells \(removedFromGridCells)"
        }
    }

    enum Path: CustomStringConvertible {
        case single
        case batch(threads: Int)

        var description: String {
            switch self {
            case .single: "one call per fix"
            case .batch(let threads): "batch on \(threads) thread\(threads == 1 ? "" : "s")"
            }
        }
    }

    /// An engine holding the conditions `steps` add.
    static func engine(_ policy: MonitoringPolicy, _ steps: [Step], threads: Int = 1) throws -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = threads
        for step in steps {
            if case .add(let conditions) = step { try add(conditions, to: &engine) }
        }
        return engine
    }

    /// Adds `conditions` one by one, or all at once (on the engine's threads) when it has several.
    static func add(_ conditions: [any OracleCondition], to engine: inout MonitoringEngine) throws {
        if engine.batchThreads > 1 {
            try engine.add(contentsOf: conditions.map { ($0.condition, $0.id, $0.assuming) })
        } else {
            for c in conditions { try engine.add(c.condition, identifier: c.id, assuming: c.assuming) }
        }
    }

    /// The events of `steps` along `path`, how many fixes the anchors answered, how often the cover
    /// grid was built and how many removed conditions were listed in its cells.
    static func run(_ path: Path, policy: MonitoringPolicy, steps: [Step], devices: Int) throws -> ([MonitorEvent], Stats) {
        var engine = MonitoringEngine(policy: policy)
        if case .batch(let threads) = path { engine.batchThreads = threads }
        var stats = Stats()
        let ids = (0..<devices).map { engine.deviceID("d\($0)") }
        var events: [MonitorEvent] = []
        var cause = 0
        var builtThrough: Int32 = 0
        func noteGrid() {
            let grid = engine.catalog.coverGrid
            if grid.builtThrough != builtThrough {
                builtThrough = grid.builtThrough
                stats.gridBuilds += 1
            }
        }
        for step in steps {
            switch step {
            case .add(let conditions): try add(conditions, to: &engine)
            case .remove(let identifiers):
                let grid = engine.catalog.coverGrid
                let names = engine.catalog.geographicIdentifiers
                for id in identifiers {
                    if let i = names.lastIndex(of: id), Int32(i) < grid.builtThrough, !grid.excluded.contains(Int32(i)), grid.hasCells {
                        stats.removedFromGridCells += 1
                    }
                    let removed = engine.remove(id)
                    #expect(removed, "remove \(id)")
                }
            case .prepare:
                engine.prepare()
                noteGrid()
            case .fixes(let fixes):
                switch path {
                case .single:
                    for f in fixes {
                        try engine.process(.fix(f.fix), device: ids[f.device], cause: cause, into: &events)
                        cause += 1
                    }
                case .batch:
                    let records = fixes.enumerated().map { FixRecord(device: ids[$0.element.device], fix: $0.element.fix, cause: cause + $0.offset) }
                    cause += fixes.count
                    try engine.process(records, into: &events)
                }
                noteGrid()
            }
        }
        stats.anchorAnswered = engine.fixesAnsweredByAnchor
        return (events, stats)
    }

    /// The side each fix takes of each condition monitored at its time (in addition order), and those
    /// conditions' numbers among all ever added.
    struct Judgements {
        var conditions: [any OracleCondition] = []
        var plain: [Plain] = []
        /// Per fix: for each condition monitored then, its number and the fix's possible sides (empty
        /// for a fix with a negative accuracy).
        var perFix: [[(condition: Int, sides: Sides)]] = []
    }

    static func judge(policy: MonitoringPolicy, steps: [Step]) -> Judgements {
        let context = GEOSContext()
        var j = Judgements()
        var monitored: [Int] = []
        for step in steps {
            switch step {
            case .add(let conditions):
                for c in conditions {
                    monitored.append(j.conditions.count)
                    j.conditions.append(c)
                    j.plain.append(c.plain(in: context))
                }
            case .remove(let identifiers):
                monitored.removeAll { identifiers.contains(j.conditions[$0].id) }
            case .prepare: break
            case .fixes(let fixes):
                for f in fixes {
                    guard f.accuracy >= 0 else {
                        j.perFix.append(monitored.map { ($0, Sides()) })
                        continue
                    }
                    let margin = max(policy.hysteresis, policy.accuracyWeight * f.accuracy)
                    j.perFix.append(monitored.map { ($0, j.plain[$0].sides(f, margin)) })
                }
            }
        }
        return j
    }

    /// Every way `events` (of `path`) disagree with the oracle.
    static func discrepancies(_ events: [MonitorEvent], path: Path, policy: MonitoringPolicy, steps: [Step], devices: Int,
                              judgements j: Judgements, stats: inout Stats) -> [String] {
        var problems: [String] = []
        let confirmation = TimeSpan(seconds: policy.confirmation).nanoseconds
        // Per pair (condition k, device d) at k × devices + d: the states the oracle allows (`alternatives`
        // when more than one), the engine's state as its events tell it, and whether the pair is still compared.
        var possible: [Pair] = []
        var alternatives: [Int: [Pair]] = [:]
        var engineState: [ConditionState] = []
        var abandoned: [Bool] = []
        var monitoredByID: [String: Int] = [:]
        var everAdded = Set<String>()
        var e = 0, cause = 0, next = 0
        func report(_ text: String) { problems.append("\(path): " + text) }
        for step in steps {
            switch step {
            case .add(let conditions):
                for c in conditions {
                    if !everAdded.insert(c.id).inserted { stats.reAddedIdentifiers += 1 }
                    monitoredByID[c.id] = next
                    next += 1
                    possible += repeatElement(Pair(state: c.assuming), count: devices)
                    engineState += repeatElement(c.assuming, count: devices)
                    abandoned += repeatElement(false, count: devices)
                }
            case .remove(let identifiers):
                for id in identifiers { monitoredByID[id] = nil }
            case .prepare: break
            case .fixes(let fixes):
                for f in fixes {
                    defer { cause += 1 }
                    let d = f.device, t = f.fix.time, ns = t.nanosecondsSinceEpoch
                    var changed: Set<Int> = []
                    while e < events.count && events[e].cause <= cause {
                        let event = events[e]
                        e += 1
                        guard event.cause == cause else {
                            report("event out of record order: \(event)")
                            continue
                        }
                        guard event.device == "d\(d)", let k = monitoredByID[event.identifier] else {
                            report("event for a device or condition the fix cannot change: \(event)")
                            continue
                        }
                        let x = k * devices + d
                        if event.state == .satisfied { stats.satisfiedEvents += 1 }
                        if j.conditions[k].isPolygon { stats.polygonEvents += 1 }
                        stats.eventsByIdentifier[event.identifier, default: 0] += 1
                        if !changed.insert(k).inserted { report("two events of one pair for one fix: \(event)") }
                        if event.state == engineState[x] { report("an event without a change: \(event)") }
                        if event.date != t { report("event dated \(event.date), fix at \(t): \(event)") }
                        engineState[x] = event.state
                    }
                    if f.accuracy < 0 {
                        if !changed.isEmpty { report("a fix with accuracy \(f.accuracy) changed \(changed.count) pairs (cause \(cause))") }
                        continue
                    }
                    for (k, sides) in j.perFix[cause] {
                        let x = k * devices + d
                        guard !abandoned[x] else { continue }
                        let before = alternatives[x] ?? [possible[x]]
                        if sides.isDecided && before.count == 1 {
                            stats.decided += 1
                            let next = possible[x].observing(sides, at: ns, confirmation: confirmation)
                            if next.state == engineState[x] {
                                possible[x] = next
                                continue
                            }
                        } else {
                            if !sides.isDecided { stats.nearThreshold += 1 }
                            var next: [Pair] = []
                            for pair in before {
                                for side in [Sides.inside, .between, .outside] where sides.contains(side) {
                                    let q = pair.observing(side, at: ns, confirmation: confirmation)
                                    if !next.contains(q) { next.append(q) }
                                }
                            }
                            let agreeing = next.filter { $0.state == engineState[x] }
                            if !agreeing.isEmpty {
                                possible[x] = agreeing[0]
                                alternatives[x] = agreeing.count > 1 ? agreeing : nil
                                continue
                            }
                        }
                        // A discrepancy: report it with what led to it, and compare the pair no more.
                        let margin = max(policy.hysteresis, policy.accuracyWeight * f.accuracy)
                        let expected = Set(before.flatMap { pair in
                            [Sides.inside, .between, .outside].filter { sides.contains($0) }
                                .map { pair.observing($0, at: ns, confirmation: confirmation).state }
                        })
                        let history = before.map { "\($0.state)\($0.pendingInside.map { $0 ? " pending inside" : " pending outside" } ?? "")" }
                        report("""
                            \(j.plain[k].describe); device d\(d) fix #\(cause) at (\(f.lat), \(f.lon)) accuracy \(f.accuracy) \
                            t=\(f.seconds)s; policy H=\(policy.hysteresis) k=\(policy.accuracyWeight) confirmation=\(policy.confirmation)s; \
                            \(j.plain[k].explain(f)), margin \(margin) m, sides \(sides.rawValue) (1 inside, 2 between, 4 outside); \
                            pair before: \(history); expected \(expected.map(\.rawValue).sorted()), engine \(engineState[x].rawValue)
                            """)
                        abandoned[x] = true
                    }
                }
            }
        }
        if e < events.count { report("\(events.count - e) events after the last fix, the first \(events[e])") }
        return problems
    }

    /// Runs `steps` one call per fix and as batches on 1 and `threads` threads: the three must give
    /// identical events (and answer as many fixes by anchors), which must agree with the oracle.
    /// Returns the oracle's statistics and the single run's.
    @discardableResult
    static func check(policy: MonitoringPolicy, steps: [Step], devices: Int, threads: Int = 4,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> Stats {
        let judgements = judge(policy: policy, steps: steps)
        let (single, singleStats) = try run(.single, policy: policy, steps: steps, devices: devices)
        var stats = singleStats
        stats.fixes = judgements.perFix.count
        func expectAgreement(_ problems: [String]) {
            #expect(problems.isEmpty, "\(problems.count) discrepancies, the first:\n\(problems.prefix(12).joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
        }
        expectAgreement(discrepancies(single, path: .single, policy: policy, steps: steps, devices: devices, judgements: judgements, stats: &stats))
        for path in [Path.batch(threads: 1), .batch(threads: threads)] {
            let (events, runStats) = try run(path, policy: policy, steps: steps, devices: devices)
            let difference = firstDifference(events, single)
            #expect(difference == nil, "\(path) against one call per fix: \(difference ?? "")", sourceLocation: sourceLocation)
            #expect(runStats.anchorAnswered == stats.anchorAnswered, "\(path): fixes answered by anchors", sourceLocation: sourceLocation)
            if difference != nil {
                var ignored = Stats()
                expectAgreement(discrepancies(events, path: path, policy: policy, steps: steps, devices: devices, judgements: judgements,
                                              stats: &ignored))
            }
        }
        return stats
    }
}
