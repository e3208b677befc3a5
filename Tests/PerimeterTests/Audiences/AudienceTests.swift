import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// Conditions per device (SPEC §5.6, docs/audiences.md) through the engine: a device is never
/// evaluated against a condition it does not watch.
@Suite struct AudienceTests {
    static let centre = Coordinate(latitude: 45.7578, longitude: 4.832)

    static func circle(_ metres: Double, around c: Coordinate = centre) -> Condition {
        .circle(try! CircularGeographicCondition(center: c, radius: metres))
    }

    static func process(_ engine: inout MonitoringEngine, _ device: String, _ observation: Observation, cause: Int = 1) throws -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        try engine.process(observation, device: device, cause: cause, into: &events)
        return events
    }

    /// Each device's events from an engine over every condition with its audience equal those of an
    /// engine over only the conditions it watches: over random conditions (private, for groups, for
    /// every device; circles and beacons; starting in any state) and random walks of four devices,
    /// with groups set from the start; under no limit, and under limits that leave a few or many
    /// conditions out (a device's short list of shared conditions, or the shared index filtered).
    @Test(arguments: [nil, 1, 5, 70] as [Int?])
    func eachDeviceSeesOnlyWhatItWatches(limit: Int?) throws {
        var random = SplitMix64(seed: 56 + UInt64(limit ?? 0))
        let devices = ["ana", "ben", "cleo", "dan"]
        let groups = ["red": ["ana", "ben"], "blue": ["ben", "cleo"]]
        for round in 0..<40 {
            var conditions: [(condition: Condition, identifier: String, assuming: ConditionState?, audience: ConditionAudience)] = []
            for k in 0..<(limit == 70 ? Int.random(in: 200...300, using: &random) : Int.random(in: 1...30, using: &random)) {
                let audience: ConditionAudience = switch Int.random(in: 0..<4, using: &random) {
                case 0: .everyone
                case 1: ConditionAudience(devices: [devices.randomElement(using: &random)!])
                case 2: ConditionAudience(groups: [["red", "blue", "green"].randomElement(using: &random)!])
                default: ConditionAudience(devices: [devices.randomElement(using: &random)!], groups: ["blue"])
                }
                let condition: Condition = Bool.random(using: &random)
                    ? Self.circle(Double.random(in: 20...400, using: &random),
                                  around: T.north(of: Self.centre, metres: Double.random(in: -600...600, using: &random)))
                    : .beacon(BeaconIdentityCondition(uuid: T.uuid, major: UInt16.random(in: 1...3, using: &random)))
                conditions.append((condition, "c\(k)", [ConditionState.unknown, .satisfied, .unsatisfied].randomElement(using: &random)!, audience))
            }
            var records: [(String, Observation)] = []
            for t in 0..<60 {
                let device = devices.randomElement(using: &random)!
                records.append((device, Bool.random(using: &random)
                    ? .fix(Fix(time: T.at(Double(t * 10)), coordinate: T.north(of: Self.centre, metres: Double.random(in: -700...700, using: &random)),
                               horizontalAccuracy: Double.random(in: 0...30, using: &random)))
                    : T.sighting(UInt16.random(in: 1...3, using: &random), 1, at: Double(t * 10))))
            }
            var policy = MonitoringPolicy()
            policy.confirmation = [0, 15].randomElement(using: &random)!
            if let limit { policy.profile = PlatformProfile.ios17.withConditionLimit(limit) }
            var all = MonitoringEngine(policy: policy)
            try all.add(contentsOf: conditions)
            all.setGroups(groups)
            var together: [MonitorEvent] = []
            for (k, (device, observation)) in records.enumerated() { try all.process(observation, device: device, cause: k + 1, into: &together) }
            all.finish(into: &together)
            for device in devices {
                let theirGroups = Set(groups.filter { $0.value.contains(device) }.keys)
                var alone = MonitoringEngine(policy: policy)
                try alone.add(contentsOf: conditions.filter { c in
                    c.audience.isEveryone || c.audience.devices.contains(device) || !theirGroups.isDisjoint(with: c.audience.groups)
                }.map { ($0.condition, $0.identifier, $0.assuming) })
                var own: [MonitorEvent] = []
                for (k, (d, observation)) in records.enumerated() where d == device { try alone.process(observation, device: d, cause: k + 1, into: &own) }
                alone.finish(into: &own)
                #expect(together.filter { $0.device == device } == own, "round \(round), \(device)")
            }
        }
    }

    @Test func aConditionADeviceDoesNotWatchHasNoStateForIt() throws {
        var engine = MonitoringEngine()
        try engine.add(Self.circle(100), identifier: "ana-home", audience: ConditionAudience(devices: ["ana"]))
        try engine.add(Self.circle(100), identifier: "crew", audience: ConditionAudience(groups: ["crew"]))
        let inside = T.fix(Self.centre.latitude, Self.centre.longitude, at: 0)
        #expect(try Self.process(&engine, "ben", inside).isEmpty)
        #expect(engine.state(of: "ana-home", device: "ben") == nil)
        #expect(engine.state(of: "crew", device: "ben") == nil)
        #expect(try Self.process(&engine, "ana", inside).map(\.identifier) == ["ana-home"])
        #expect(engine.state(of: "ana-home", device: "ana") == .satisfied)
        #expect(engine.audience(of: "crew") == ConditionAudience(groups: ["crew"]))
    }

    /// Joining a group takes effect at the device's next record; leaving one drops its pairs, so
    /// that no event of that condition follows.
    @Test func groupsChangeAtTheNextRecord() throws {
        var engine = MonitoringEngine()
        try engine.add(Self.circle(100), identifier: "crew", audience: ConditionAudience(groups: ["crew"]))
        let inside = T.fix(Self.centre.latitude, Self.centre.longitude, at: 0)
        #expect(try Self.process(&engine, "ben", inside).isEmpty)
        engine.setGroups(["crew": ["ben"]])
        #expect(engine.groups(of: "ben") == ["crew"])
        let again = T.fix(Self.centre.latitude, Self.centre.longitude, at: 10)
        #expect(try Self.process(&engine, "ben", again).map { "\($0.identifier) \($0.state)" } == ["crew satisfied"])
        engine.setGroups([:])
        let away = T.fix(Self.centre.latitude + 0.01, Self.centre.longitude, at: 20)
        #expect(try Self.process(&engine, "ben", away).isEmpty)
        #expect(engine.state(of: "crew", device: "ben") == nil)
    }

    /// Under a limit counted per device, a place freed by a removal goes to the next condition the
    /// device watches, which starts afresh: from its starting state, settled by the next fix.
    @Test func aFreedPlaceGoesToTheDevicesNextCondition() throws {
        var policy = MonitoringPolicy()
        policy.profile = PlatformProfile.ios17.withConditionLimit(1)
        var engine = MonitoringEngine(policy: policy)
        try engine.add(Self.circle(100), identifier: "ana-home", assuming: .unsatisfied, audience: ConditionAudience(devices: ["ana"]))
        try engine.add(Self.circle(300), identifier: "shared", assuming: .unknown)
        let inside = T.fix(Self.centre.latitude, Self.centre.longitude, at: 0)
        #expect(try Self.process(&engine, "ana", inside).map { "\($0.identifier) \($0.state)" } == ["shared unmonitored", "ana-home satisfied"])
        #expect(try Self.process(&engine, "ben", inside).map { "\($0.identifier) \($0.state)" } == ["shared satisfied"])
        #expect(engine.state(of: "shared", device: "ana") == .unmonitored)
        #expect(engine.state(of: "shared", device: "ben") == .satisfied)
        engine.remove("ana-home")
        let again = T.fix(Self.centre.latitude, Self.centre.longitude, at: 10)
        #expect(try Self.process(&engine, "ana", again).map { "\($0.identifier) \($0.state)" } == ["shared satisfied"])
        #expect(try Self.process(&engine, "ben", again).isEmpty)
    }

    /// A snapshot keeps each condition's audience and the groups.
    @Test func aSnapshotKeepsAudiencesAndGroups() throws {
        var engine = MonitoringEngine()
        try engine.add(Self.circle(100), identifier: "ana-home", audience: ConditionAudience(devices: ["ana"]))
        try engine.add(Self.circle(100), identifier: "crew", audience: ConditionAudience(groups: ["crew"]))
        engine.setGroups(["crew": ["ben"]])
        let data = try JSONEncoder().encode(engine.snapshot())
        var restored = try MonitoringEngine(policy: MonitoringPolicy(), restoring: JSONDecoder().decode(MonitoringEngine.Snapshot.self, from: data))
        let inside = T.fix(Self.centre.latitude, Self.centre.longitude, at: 0)
        #expect(try Self.process(&restored, "ben", inside).map(\.identifier) == ["crew"])
        #expect(try Self.process(&restored, "ana", inside).map(\.identifier) == ["ana-home"])
        #expect(try Self.process(&restored, "cleo", inside).isEmpty)
    }
}
