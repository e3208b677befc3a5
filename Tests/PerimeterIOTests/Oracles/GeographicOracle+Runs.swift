import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The three runs of the steps (one call per fix, batches on one thread and on several) and the
/// judging of their events against the state machine.
extension GeographicOracle {
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
