import Foundation
import PerimeterPropertySupport
import PerimeterTestSupport
import PropertyBased
import Testing
@testable import Perimeter

/// An engine restored from its snapshot goes on exactly as the engine it was taken of: the first
/// step of monitors that outlive their process (a store keeps the snapshot; see issue 35).
@Suite(.shrinking) struct SnapshotTests {
    /// Over random scenarios (conditions of every kind with `assuming`, fixes, sightings and
    /// authorization records, random policies), a snapshot taken after any record, encoded and decoded,
    /// and restored into a new engine gives the rest of the stream exactly the events, authorization
    /// changes and refusals of one pass — beacon timers, confirmations, held events and prompts
    /// included. Each part is fed one record at a time or through the batch paths.
    @Test func aRestoredEngineGoesOnAsTheFirstWould() async {
        await propertyCheck(count: PropertyRuns.of(400), input: ScenarioGen.scenario(), Gen.int(in: 0...60), Gen.int(in: 0...1),
                            Gen.int(in: 0...1)) { scenario, at, first, second in
            let expected = try ScenarioRun.whole(scenario)
            let records = ScenarioRun.numbered(scenario)
            let k = min(at, records.count)
            var run = try ScenarioRun(scenario)
            try run.feed(records[..<k], Feeding.allCases[first])
            let stored = try JSONEncoder().encode(run.engine.snapshot())
            let snapshot = try JSONDecoder().decode(MonitoringEngine.Snapshot.self, from: stored)
            run.engine = try MonitoringEngine(policy: run.engine.policy, restoring: snapshot)
            try run.feed(records[k...], Feeding.allCases[second])
            run.finish()
            let what = "restored after record \(k)"
            #expect(firstDifference(run.events, expected.events) == nil,
                    "\(what): events differ: \(firstDifference(run.events, expected.events) ?? "")")
            #expect(firstDifference(run.changes, expected.changes) == nil,
                    "\(what): authorization changes differ: \(firstDifference(run.changes, expected.changes) ?? "")")
            #expect(run.refused == expected.refused, "\(what): refused records differ")
        }
    }

    static let store = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    /// Conditions come back numbered as they were, removed ones and a beacon condition added to the
    /// running engine included: the same identifiers, conditions and per-device states, and a beacon
    /// exit that was pending at the snapshot fires when it would have.
    @Test func conditionsAndPendingExitsComeBack() throws {
        var engine = MonitoringEngine()
        let centre = Coordinate(latitude: 48.8606, longitude: 2.3376)
        try engine.add(.circle(CircularGeographicCondition(center: centre, radius: 200)), identifier: "louvre")
        try engine.add(.circle(CircularGeographicCondition(center: centre, radius: 900)), identifier: "gone")
        var events: [MonitorEvent] = []
        let t0 = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
        try engine.process(.fix(Fix(time: t0, coordinate: centre, horizontalAccuracy: 5)), device: "ana", cause: 1, into: &events)
        engine.remove("gone")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: Self.store, major: 1)), identifier: "floor-1", assuming: .unsatisfied)
        let seen = BeaconSighting(time: t0.adding(TimeSpan(seconds: 10)), identity: BeaconIdentity(uuid: Self.store, major: 1, minor: 7),
                                  rssi: -60)
        try engine.process(.sighting(seen), device: "ana", cause: 2, into: &events)

        let snapshot = try JSONDecoder().decode(MonitoringEngine.Snapshot.self, from: JSONEncoder().encode(engine.snapshot()))
        var restored = try MonitoringEngine(policy: engine.policy, restoring: snapshot)
        #expect(restored.identifiers == engine.identifiers)
        #expect(restored.identifiers == ["louvre", "floor-1"])
        #expect(restored.condition(for: "gone") == nil)
        #expect(restored.condition(for: "louvre") == engine.condition(for: "louvre"))
        #expect(restored.state(of: "floor-1", device: "ana") == .satisfied)
        #expect(restored.deviceNames == engine.deviceNames)

        // Both go on alike: the beacon's exit falls due 30 s after the sighting, at the next record.
        var expected: [MonitorEvent] = [], got: [MonitorEvent] = []
        let later = Fix(time: t0.adding(TimeSpan(seconds: 60)), coordinate: centre, horizontalAccuracy: 5)
        try engine.process(.fix(later), device: "ana", cause: 3, into: &expected)
        try restored.process(.fix(later), device: "ana", cause: 3, into: &got)
        engine.finish(into: &expected)
        restored.finish(into: &got)
        #expect(got == expected)
        #expect(got.map(\.identifier) == ["floor-1"])
        #expect(got.first?.date == seen.time.adding(TimeSpan(seconds: 30)))
    }

    /// An identifier removed and added again comes back as the new condition, the old one kept by
    /// number (removed), and both engines go on alike.
    @Test func anIdentifierAddedAgainAfterItsRemovalComesBack() throws {
        var engine = MonitoringEngine()
        let centre = Coordinate(latitude: 48.8606, longitude: 2.3376)
        try engine.add(.circle(CircularGeographicCondition(center: centre, radius: 200)), identifier: "zone")
        engine.remove("zone")
        try engine.add(.circle(CircularGeographicCondition(center: centre, radius: 900)), identifier: "zone")
        var restored = try MonitoringEngine(policy: engine.policy, restoring: engine.snapshot())
        #expect(restored.identifiers == ["zone"])
        #expect(restored.condition(for: "zone") == engine.condition(for: "zone"))
        #expect(restored.snapshot().conditions == engine.snapshot().conditions)
        var expected: [MonitorEvent] = [], got: [MonitorEvent] = []
        let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: 0), coordinate: Coordinate(latitude: 48.8650, longitude: 2.3376),
                      horizontalAccuracy: 5)
        try engine.process(.fix(fix), device: "ana", cause: 1, into: &expected)
        try restored.process(.fix(fix), device: "ana", cause: 1, into: &got)
        #expect(got == expected)
        #expect(got.map(\.state) == [.satisfied])
    }

    /// A snapshot that does not hold together is refused with a reason, never restored half.
    @Test func aSnapshotThatDoesNotHoldTogetherIsRefused() throws {
        var engine = MonitoringEngine()
        try engine.add(.beacon(BeaconIdentityCondition(uuid: Self.store)), identifier: "any")
        var events: [MonitorEvent] = []
        let seen = BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: 0), identity: BeaconIdentity(uuid: Self.store, major: 1, minor: 1),
                                  rssi: -60)
        try engine.process(.sighting(seen), device: "ana", cause: 1, into: &events)

        var later = engine.snapshot()
        later.version = MonitoringEngine.Snapshot.currentVersion + 1
        #expect(throws: SnapshotProblem.self) { try MonitoringEngine(policy: engine.policy, restoring: later) }

        var missing = engine.snapshot()
        missing.conditions.removeAll()
        #expect(throws: SnapshotProblem.self) { try MonitoringEngine(policy: engine.policy, restoring: missing) }

        var twice = engine.snapshot()
        twice.conditions.append(twice.conditions[0])
        #expect(throws: SnapshotProblem.self) { try MonitoringEngine(policy: engine.policy, restoring: twice) }

        // Conditions decode through their checks: a radius of 0 is no circle, a minor needs a major.
        let circle = try CircularGeographicCondition(center: Coordinate(latitude: 0, longitude: 0), radius: 50)
        let text = try #require(String(data: JSONEncoder().encode(Condition.circle(circle)), encoding: .utf8))
        #expect(try JSONDecoder().decode(Condition.self, from: Data(text.utf8)) == .circle(circle))
        #expect(throws: GeometryProblem.self) {
            try JSONDecoder().decode(Condition.self, from: Data(text.replacingOccurrences(of: "\"radius\":50", with: "\"radius\":0").utf8))
        }
        let minorAlone = #"{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","minor":3}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BeaconIdentityCondition.self, from: Data(minorAlone.utf8)) }
    }
}
