import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// `AuthorizationOracleTests`' comparison of the engine with the oracle: one record (or the end of
/// input) through both, the same records through the `Monitor` and the batch paths, and shrinking a
/// disagreement to its smallest sequence.
extension AuthorizationOracleTests {
    // MARK: Comparison

    struct Mismatch: CustomStringConvertible {
        var index: Int
        var what: String
        var description: String { "record \(index + 1): \(what)" }
    }

    /// Runs one device's records through a fresh engine and the oracle; the first disagreement.
    static func compare(_ settings: Settings, _ recs: [Rec]) throws -> Mismatch? {
        var engine = try settings.engine()
        var oracle = Oracle(settings)
        var events: [MonitorEvent] = []
        for (i, rec) in recs.enumerated() {
            if let m = step(&engine, &oracle, &events, rec, device: "d", cause: i + 1, outcomes: \.outcomes) {
                return Mismatch(index: i, what: m)
            }
        }
        if let m = finish(&engine, &oracle, device: "d") { return Mismatch(index: recs.count, what: m) }
        return nil
    }

    /// The end of the input through both (one device); a description of the disagreement, if any.
    static func finish(_ engine: inout MonitoringEngine, _ oracle: inout Oracle, device: String) -> String? {
        var tail: [MonitorEvent] = []
        engine.finish(into: &tail)
        var expected: [Line] = []
        oracle.finish(into: &expected)
        var reported: [AuthorizationChange] = []
        engine.takeAuthorizationChanges(into: &reported)
        var out: [String] = []
        if tail.contains(where: { $0.device != device }) { out.append("an event of another device") }
        if tail.map(Line.init) != expected { out.append("finish wrote \(tail.map(Line.init)) expected \(expected)") }
        if !reported.isEmpty { out.append("authorization changes at the end \(reported.map(Change.init))") }
        return out.isEmpty ? nil : "end of input: " + out.joined(separator: "; ")
    }

    /// One record through both; a description of the disagreement, if any.
    static func step(_ engine: inout MonitoringEngine, _ oracle: inout Oracle, _ events: inout [MonitorEvent], _ rec: Rec,
                     device: String, cause: Int, outcomes expectedOutcomes: (Oracle) -> [RequestOutcome: Int]) -> String? {
        let before = events.count
        var problem: ObservationProblem?
        do {
            try engine.process(rec.observation, device: device, cause: cause, into: &events)
        } catch {
            problem = error
        }
        var expected: [Line] = []
        let accepted = oracle.apply(rec, cause: cause, into: &expected)
        var out: [String] = []
        let got = events[before...].map(Line.init)
        var reported: [AuthorizationChange] = []
        engine.takeAuthorizationChanges(into: &reported)
        if reported.contains(where: { $0.device != device }) { out.append("authorization change of another device") }
        let changes = reported.map(Change.init)
        if changes != oracle.changes {
            out.append("authorization changes \(changes) expected \(oracle.changes)")
        }
        if events[before...].contains(where: { $0.device != device }) { out.append("wrong device") }
        if got != expected { out.append("events \(got) expected \(expected)") }
        if accepted != (problem == nil) {
            out.append(accepted ? "refused (\(problem!)) but the oracle accepts it" : "accepted but the oracle refuses it")
        }
        let outcomes = expectedOutcomes(oracle)
        if engine.requestOutcomes != outcomes { out.append("request outcomes \(engine.requestOutcomes) expected \(outcomes)") }
        return out.isEmpty ? nil : "\(rec): " + out.joined(separator: "; ")
    }

    /// The same records through the `Monitor` actor: its events must be the engine's (its causes count
    /// records from 1, as the run's do), and each pair's record must end at its latest event — a held
    /// event's final line only while that held event is still the latest (docs/authorization.md, "Holding").
    /// A device's held events are resolved oldest first (displaced, expired, or all at an answer or a
    /// setting), so each final line resolves the oldest held line of its device not yet resolved.
    static func checkMonitor(_ settings: Settings, _ sequence: [(device: Int, rec: Rec, cause: Int)], names: [String],
                             engineEvents: [MonitorEvent], run: Int) async throws {
        let monitor = Monitor(name: "oracle", policy: settings.policy, streamsEvents: false)
        try await monitor.add(.circle(CircularGeographicCondition(center: centre, radius: 100)), identifier: "c", assuming: .unsatisfied)
        try await monitor.add(settings.beaconCondition, identifier: "b", assuming: settings.assuming)
        var events: [MonitorEvent] = []
        for (d, rec, _) in sequence {
            // A refused record still lets stream time run up to it: its events come with the error.
            do throws(RefusedRecord) {
                events += try await monitor.process(rec.observation, device: names[d])
            } catch {
                events += error.events
            }
        }
        events += await monitor.finish()
        #expect(firstDifference(events, engineEvents) == nil, "run \(run): the Monitor's events")
        var unresolved: [String: [Int]] = [:]
        var latest: [String: Int] = [:]
        for (k, e) in events.enumerated() {
            let key = "\(e.device) \(e.identifier)"
            if e.isFinalVerdict {
                guard let held = unresolved[e.device]?.first else {
                    Issue.record("run \(run): a final line with nothing held: \(e)")
                    continue
                }
                unresolved[e.device]!.removeFirst()
                #expect(events[held].identifier == e.identifier && events[held].date == e.date, "run \(run): \(e) resolves \(events[held])")
                if latest[key] == held { latest[key] = k }
            } else {
                latest[key] = k
                if e.delivery.verdict == .held { unresolved[e.device, default: []].append(k) }
            }
        }
        for name in names {
            for id in ["c", "b"] {
                let record = await monitor.record(for: id, device: name)
                #expect(record?.lastEvent == latest["\(name) \(id)"].map { events[$0] }, "run \(run): \(name) \(id)'s last event")
            }
        }
    }

    /// Interleaved records through a fresh engine: one at a time (`batchThreads` nil), or with each run
    /// of consecutive fixes (of any devices) as one batch on `batchThreads` threads, and each run of
    /// consecutive sightings likewise. Its events, and its
    /// authorization changes in record order.
    static func replay(_ settings: Settings, _ sequence: [(device: Int, rec: Rec, cause: Int)],
                       batchThreads: Int?) throws -> (events: [MonitorEvent], changes: [AuthorizationChange]) {
        var engine = try settings.engine()
        engine.batchThreads = batchThreads ?? 1
        // Devices named in the order they first appear, as one record at a time names them (the end of
        // input goes through them in that order).
        var ids: [Int: DeviceID] = [:]
        for (d, _, _) in sequence where ids[d] == nil { ids[d] = engine.deviceID("dev\(d)") }
        var events: [MonitorEvent] = [], changes: [AuthorizationChange] = []
        var fixes: [FixRecord] = [], sightings: [SightingRecord] = []
        func flush(_ engine: inout MonitoringEngine) throws {
            if !fixes.isEmpty { try engine.process(fixes, into: &events) }
            if !sightings.isEmpty { try engine.process(sightings, into: &events) }
            fixes.removeAll()
            sightings.removeAll()
        }
        for (d, rec, cause) in sequence {
            if batchThreads != nil {
                switch rec.observation {
                case .fix(let fix):
                    if !sightings.isEmpty { try flush(&engine) }
                    fixes.append(FixRecord(device: ids[d]!, fix: fix, cause: cause))
                    continue
                case .sighting(let sighting):
                    if !fixes.isEmpty { try flush(&engine) }
                    sightings.append(SightingRecord(device: ids[d]!, sighting: sighting, cause: cause))
                    continue
                default: break
                }
            }
            try flush(&engine)
            // (A refused record changes nothing; the oracle comparison checks which are refused.)
            try? engine.process(rec.observation, device: ids[d]!, cause: cause, into: &events)
        }
        try flush(&engine)
        engine.finish(into: &events)
        engine.takeAuthorizationChanges(into: &changes)
        // (A batch gathers its devices' changes after it; within a record they keep their order.)
        let ordered = changes.enumerated().sorted { ($0.element.cause, $0.offset) < ($1.element.cause, $1.offset) }.map(\.element)
        return (events, ordered)
    }

    /// The smallest sequence (removing one record at a time) that still disagrees; nil if the device's
    /// records alone, on an engine of their own, agree (then other devices' records mattered).
    static func shrink(_ settings: Settings, _ recs: [Rec]) throws -> ([Rec], Mismatch)? {
        var recs = recs
        guard var mismatch = try compare(settings, recs) else { return nil }
        recs = Array(recs[...min(mismatch.index, recs.count - 1)])
        var i = 0
        while i < recs.count {
            var candidate = recs
            candidate.remove(at: i)
            if let m = try compare(settings, candidate) {
                recs = candidate
                mismatch = m
            } else {
                i += 1
            }
        }
        return (recs, mismatch)
    }
}
