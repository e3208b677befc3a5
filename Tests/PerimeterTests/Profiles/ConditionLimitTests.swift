import Foundation
import Testing
@testable import Perimeter

/// What the scenario fixtures cannot show, since the tool adds its conditions once, before any
/// record: conditions added and removed while devices run under a limit (docs/profiles.md), and the
/// profile as a store keeps it.
@Suite struct ConditionLimitTests {
    static let origin = Coordinate(latitude: 48.8566, longitude: 2.3522)
    /// A point `metres` east of the origin.
    static func east(_ metres: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude, longitude: origin.longitude + metres / (111_320 * cos(origin.latitude * .pi / 180)))
    }
    static func circle(east metres: Double) -> Condition {
        .circle(try! CircularGeographicCondition(center: east(metres), radius: 50))
    }
    static func fix(_ seconds: Int, east metres: Double) -> Observation {
        .fix(Fix(time: Timestamp(nanosecondsSinceEpoch: Int64(seconds) * 1_000_000_000), coordinate: east(metres), horizontalAccuracy: 5))
    }

    static func engine(_ profile: PlatformProfile) -> MonitoringEngine {
        var policy = MonitoringPolicy()
        policy.profile = profile
        policy.defaultAssumption = .unsatisfied
        return MonitoringEngine(policy: policy)
    }

    static func lines(_ events: [MonitorEvent]) -> [String] {
        events.map { "\($0.device) \($0.identifier) \($0.state.rawValue) \($0.delivery.diagnostics.names.joined(separator: ","))" }
    }

    /// Removing a monitored condition gives its place to the earliest one waiting for its type, which
    /// is evaluated from the device's next record on; removing a waiting one forgets it, and a device
    /// that starts later is not told of it.
    @Test func aRemovalGivesItsPlaceToTheEarliestWaiting() throws {
        var engine = Self.engine(PlatformProfile.ios17.withConditionLimit(2))
        for (k, name) in ["a", "b", "c", "d"].enumerated() { try engine.add(Self.circle(east: Double(k) * 1000), identifier: name) }
        #expect(engine.identifiers == ["a", "b", "c", "d"] && engine.unmonitoredIdentifiers(for: "ana") == ["c", "d"])
        var events: [MonitorEvent] = []
        // Inside c, which is not monitored: told of c and d, nothing else.
        try engine.process(Self.fix(0, east: 2000), device: "ana", cause: 1, into: &events)
        #expect(Self.lines(events) == ["ana c unmonitored conditionLimitExceeded", "ana d unmonitored conditionLimitExceeded"])
        #expect(engine.state(of: "c", device: "ana") == .unmonitored)
        events = []
        let removedA = engine.remove("a")
        #expect(removedA)
        #expect(engine.identifiers == ["b", "c", "d"] && engine.unmonitoredIdentifiers(for: "ana") == ["d"])
        try engine.process(Self.fix(10, east: 2000), device: "ana", cause: 2, into: &events)
        #expect(Self.lines(events) == ["ana c satisfied "])
        events = []
        let removedD = engine.remove("d")
        #expect(removedD)
        #expect(engine.state(of: "d", device: "ana") == nil)
        try engine.process(Self.fix(20, east: 2000), device: "ben", cause: 3, into: &events)
        #expect(Self.lines(events) == ["ben c satisfied "], "ben is told of nothing: d was removed before his first record")
    }

    /// A condition added past the limit while devices run is told to each at its next record, once.
    @Test func aConditionAddedPastTheLimitIsToldAtEachDevicesNextRecord() throws {
        var engine = Self.engine(PlatformProfile.ios17.withConditionLimit(1))
        try engine.add(Self.circle(east: 0), identifier: "a")
        var events: [MonitorEvent] = []
        try engine.process(Self.fix(0, east: 0), device: "ana", cause: 1, into: &events)
        try engine.process(Self.fix(0, east: 5000), device: "ben", cause: 2, into: &events)
        #expect(Self.lines(events) == ["ana a satisfied "])
        events = []
        try engine.add(Self.circle(east: 5000), identifier: "late")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: UUID())), identifier: "beacon")
        try engine.process(Self.fix(10, east: 5000), device: "ben", cause: 3, into: &events)
        try engine.process(Self.fix(20, east: 5000), device: "ben", cause: 4, into: &events)
        try engine.process(Self.fix(20, east: 0), device: "ana", cause: 5, into: &events)
        #expect(Self.lines(events) == ["ben late unmonitored conditionLimitExceeded", "ana late unmonitored conditionLimitExceeded"],
                "the beacon condition has a place of its own")
    }

    func expectRefused(_ expected: ConditionCatalogError, _ body: () throws(ConditionCatalogError) -> Void,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("not refused: expected \(expected)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
    }

    /// Identifiers are one namespace, monitored or not, and no condition starts unmonitored or dwelling.
    @Test func identifiersAndStartingStatesAreCheckedAsForAnyCondition() throws {
        var engine = Self.engine(PlatformProfile.android.withConditionLimit(1))
        try engine.add(Self.circle(east: 0), identifier: "a")
        try engine.add(Self.circle(east: 100), identifier: "b")
        expectRefused(ConditionCatalogError.duplicateIdentifier("a")) { () throws(ConditionCatalogError) in try engine.add(Self.circle(east: 9), identifier: "a") }
        expectRefused(ConditionCatalogError.duplicateIdentifier("b")) { () throws(ConditionCatalogError) in try engine.add(Self.circle(east: 9), identifier: "b") }
        expectRefused(ConditionCatalogError.duplicateIdentifier("b")) { () throws(ConditionCatalogError) in
            try engine.add(contentsOf: [(Self.circle(east: 9), "x", nil), (Self.circle(east: 9), "b", nil)])
        }
        #expect(engine.unmonitoredIdentifiers(for: "ana") == ["b", "x"], "the conditions before the duplicate are added")
        expectRefused(ConditionCatalogError.notAStartingState(.dwelling)) { () throws(ConditionCatalogError) in
            try engine.add(Self.circle(east: 9), identifier: "y", assuming: .dwelling)
        }
        var standard = Self.engine(.standard)
        expectRefused(ConditionCatalogError.notAStartingState(.unmonitored)) { () throws(ConditionCatalogError) in
            try standard.add(Self.circle(east: 9), identifier: "z", assuming: .unmonitored)
        }
    }

    /// A profile with its platform's values is kept as its name (as stores written before limits
    /// hold it); one with values of its own keeps them.
    @Test func aProfileAsAStoreKeepsIt() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(PlatformProfile.ios17), as: UTF8.self) == #""ios17""#)
        #expect(try JSONDecoder().decode(PlatformProfile.self, from: Data(#""android""#.utf8)) == .android)
        let own = PlatformProfile.android.withConditionLimit(5).withLoiteringDelay(12.5)
        let text = String(decoding: try encoder.encode(own), as: UTF8.self)
        #expect(text == #"{"conditionLimit":5,"loiteringDelay":12.5,"name":"android"}"#)
        #expect(try JSONDecoder().decode(PlatformProfile.self, from: Data(text.utf8)) == own)
        var policy = MonitoringPolicy()
        policy.profile = own
        let decoded = try JSONDecoder().decode(MonitoringPolicy.self, from: try encoder.encode(policy))
        #expect(decoded == policy)
        #expect(decoded.spans.loiteringDelay == TimeSpan(seconds: 12.5))
        policy.profile = PlatformProfile.ios17.withConditionLimit(-1)
        #expect(policy.problem() == "condition limit must be ≥ 0, got -1")
    }
}
