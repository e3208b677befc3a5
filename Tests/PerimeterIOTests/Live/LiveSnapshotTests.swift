import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The state of live updates and of ranging persists: every scenario run in two parts, its state
/// encoded to JSON and decoded between them (as a process that stops and one that goes on), gives
/// the updates, results and events of one run.
@Suite struct LiveSnapshotTests {
    static func records(_ path: String) throws -> [ObservationRecord] {
        var reader = try ObservationReader(path: Fixture.path(path))
        var records: [ObservationRecord] = []
        while let next = reader.next() { records.append(try next.get()) }
        return records
    }

    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
    }

    @Test(arguments: LiveScenarioTests.names)
    func liveUpdatesGoOnFromASnapshot(_ name: String) throws {
        let folder = "live/\(name)"
        let (live, location, rest) = try LiveScenarioTests.settings(folder)
        let policy = try ScenarioTests.policy(rest)
        var engine = MonitoringEngine(policy: policy)
        if LiveScenarioTests.exists("\(folder)/conditions.geojson") {
            try engine.add(contentsOf: try ConditionsReader.read(contentsOf: Fixture.path("\(folder)/conditions.geojson")))
        }
        let records = try Self.records("\(folder)/observations.jsonl")
        func run(splitAt split: Int?) throws -> String {
            var updates = LiveUpdates(monitoring: engine, policy: live, approximateLocation: location)
            var events: [MonitorEvent] = [], produced: [LiveUpdate] = []
            for (k, record) in records.enumerated() {
                if k == split {
                    updates = try LiveUpdates(monitoringPolicy: policy, policy: live, approximateLocation: location,
                                              restoring: try Self.roundTrip(updates.snapshot()))
                }
                try updates.process(record.observation, device: record.device, cause: record.line, events: &events, updates: &produced)
            }
            updates.finish(events: &events, updates: &produced)
            return produced.map(LiveUpdateEncoding.jsonLine).joined() + events.map(EventEncoding.jsonLine).joined()
        }
        let whole = try run(splitAt: nil)
        #expect(whole.contains("\"device\""))
        for split in [1, records.count / 3, records.count / 2, records.count - 1] {
            #expect(try run(splitAt: split) == whole, "\(name), split before record \(split)")
        }
    }

    @Test(arguments: RangingScenarioTests.names)
    func rangingGoesOnFromASnapshot(_ name: String) throws {
        let (rangingPolicy, rest) = try RangingScenarioTests.ranging(try RangingScenarioTests.flags(name))
        let policy = try ScenarioTests.policy(rest)
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path("ranging/\(name)/conditions.geojson"))
        let constraints = definitions.rangingConstraints
        let records = try Self.records("ranging/\(name)/observations.jsonl")
        func run(splitAt split: Int?) throws -> String {
            var ranging = BeaconRanging(monitoring: MonitoringEngine(policy: policy), constraints: constraints, policy: rangingPolicy)
            var events: [MonitorEvent] = [], results: [RangingResult] = []
            for (k, record) in records.enumerated() {
                if k == split {
                    ranging = try BeaconRanging(monitoringPolicy: policy, constraints: constraints, policy: rangingPolicy,
                                                restoring: try Self.roundTrip(ranging.snapshot()))
                }
                try ranging.process(record.observation, device: record.device, cause: record.line, events: &events, results: &results)
            }
            ranging.finish(events: &events, results: &results)
            return results.map(RangingResultEncoding.jsonLine).joined()
        }
        let whole = try run(splitAt: nil)
        #expect(whole == (try Fixture.text("ranging/\(name)/expected-results.jsonl")))
        for split in [1, records.count / 3, records.count / 2, records.count - 1] {
            #expect(try run(splitAt: split) == whole, "\(name), split before record \(split)")
        }
    }

    /// A snapshot taken with more constraints than are given again is refused, not misread.
    @Test func aSnapshotWithOtherConstraintsIsRefused() throws {
        let museum = try #require(UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"))
        let rooms = (0..<3).map { RangingConstraint(identifier: "room-\($0)", identity: BeaconIdentityCondition(uuid: museum, major: UInt16($0))) }
        var ranging = BeaconRanging(monitoring: MonitoringEngine(), constraints: rooms)
        var events: [MonitorEvent] = [], results: [RangingResult] = []
        let sighting = BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: 0), identity: BeaconIdentity(uuid: museum, major: 2, minor: 1), rssi: -60)
        try ranging.process(.sighting(sighting), device: "ana", cause: 1, events: &events, results: &results)
        #expect(throws: SnapshotProblem.self) {
            _ = try BeaconRanging(monitoringPolicy: MonitoringPolicy(), constraints: Array(rooms.prefix(2)), restoring: ranging.snapshot())
        }
    }
}
