import PerimeterPropertySupport
import PerimeterTestSupport
import PropertyBased
import Testing
@testable import Perimeter

/// What-if replay (SPEC §5.7): delivery replayed under another policy over one geometry pass gives
/// exactly the full run under that policy — events with their verdicts, held events and final lines,
/// authorization changes, request outcomes.
@Suite(.shrinking) struct DeliveryReplayTests {
    /// The authorization values a what-if varies: initial authorization, holding capacity and age,
    /// grace period, and (where the scenario's profile is standard) the ios18 session model.
    static var variations: Generator<[Int], some SendableSequenceType> {
        Gen.int(in: 0...2).array(of: 5...5)
    }

    static func vary(_ policy: MonitoringPolicy, _ k: [Int]) -> MonitoringPolicy {
        var p = policy
        p.initialAuthorization = [.always, .notDetermined, .restricted][k[0]]
        p.holdingCapacity = [1, 0, 2][k[1]]
        p.maximumHoldingAge = [3600, 30, 0][k[2]]
        p.gracePeriod = [5, 0, 15][k[3]]
        if p.profile == .standard && k[4] == 1 { p.profile = .ios18 }
        return p
    }

    @Test func aReplayEqualsAFullRunUnderItsPolicy() async {
        await propertyCheck(count: PropertyRuns.of(500), input: ScenarioGen.scenario(), Self.variations) { scenario, k in
            var other = scenario
            other.policy.engine = Self.vary(scenario.policy.engine, k)
            #expect(other.policy.engine.hasSameGeometry(as: scenario.policy.engine, conditionCount: scenario.conditions.count))
            let expected = try ScenarioRun.whole(other)

            // The geometry pass, under the scenario's own policy: each record's events.
            let records = ScenarioRun.numbered(scenario)
            var pass = try ScenarioRun(scenario)
            var slices: [Int: (start: Int, end: Int)] = [:]
            var taken: Set<Int> = []
            try pass.feed(records, .single) { cause, start, run in
                slices[cause] = (start, run.events.count)
                let device = run.engine.deviceID(scenario.records[cause].device)
                if run.engine.clock(of: device) != nil && run.engine.lastCause(of: device) == cause { taken.insert(cause) }
            }
            let endStart = pass.events.count
            pass.finish()

            var replay = DeliveryReplay(policy: other.policy.engine)
            var events: [MonitorEvent] = [], changes: [AuthorizationChange] = [], refused: [Int] = []
            for n in records where taken.contains(n.cause) {
                let slice = slices[n.cause]!
                do {
                    try replay.process(n.record.observation, device: n.record.device, cause: n.cause,
                                       events: pass.events[slice.start..<slice.end].filter { !$0.isFinalVerdict }, into: &events)
                } catch {
                    refused.append(n.cause)
                }
                replay.takeAuthorizationChanges(into: &changes)
            }
            replay.finish(events: pass.events[endStart...].filter { !$0.isFinalVerdict }, into: &events)
            replay.takeAuthorizationChanges(into: &changes)
            #expect(firstDifference(events, expected.events) == nil, "events differ: \(firstDifference(events, expected.events) ?? "")")
            #expect(firstDifference(changes, expected.changes) == nil,
                    "authorization changes differ: \(firstDifference(changes, expected.changes) ?? "")")
            #expect(refused == expected.refused.filter { taken.contains($0) })
            #expect(replay.requestOutcomes == expected.engine.requestOutcomes)
        }
    }
}
