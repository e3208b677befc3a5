import Foundation
import PerimeterPropertySupport
import PropertyBased
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Monitors opened by name from a SQLite store: what was added, removed and processed comes back in
/// another `Monitor` (as after a relaunch), and it goes on exactly as the first would have.
@Suite(.shrinking) struct MonitorStoreTests {
    static let shop = Coordinate(latitude: 48.8606, longitude: 2.3376)
    static let t0 = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)

    static func fix(_ seconds: Int, metresNorth: Double) -> Observation {
        let at = Coordinate(latitude: shop.latitude + metresNorth / Geodesy.metresPerDegree, longitude: shop.longitude)
        return .fix(Fix(time: t0.adding(TimeSpan(seconds: Double(seconds))), coordinate: at, horizontalAccuracy: 5))
    }

    @Test func aMonitorReopenedByNameHasItsConditionsAndRecords() async throws {
        let path = Fixture.temporaryPath("reopen.sqlite")
        do {
            let store = try SQLiteStore(path: path)
            let monitor = try Monitor(name: "stores", store: store)
            try await monitor.add(.circle(CircularGeographicCondition(center: Self.shop, radius: 100)), identifier: "shop",
                                  assuming: .unsatisfied)
            try await monitor.process(Self.fix(0, metresNorth: 0), device: "ana")
            try await monitor.process(Self.fix(10, metresNorth: 500), device: "ana")
            try await monitor.checkpoint()
            try store.close()
        }
        let again = try Monitor(name: "stores", store: SQLiteStore(path: path))
        #expect(await again.identifiers == ["shop"])
        #expect(await again.recordCount == 2)
        let record = try #require(await again.record(for: "shop", device: "ana"))
        #expect(record.state == .unsatisfied)
        #expect(record.lastEvent?.state == .unsatisfied)
        #expect(record.lastEvent?.cause == 2)
        // It goes on: the next entry is the third record.
        let events = try await again.process(Self.fix(20, metresNorth: 0), device: "ana")
        #expect(events.map(\.state) == [.satisfied])
        #expect(events.map(\.cause) == [3])
        // Another name in the same store is another monitor.
        let other = try Monitor(name: "other", store: SQLiteStore(path: Fixture.temporaryPath("other.sqlite")))
        #expect(await other.identifiers.isEmpty)
    }

    @Test func addsAndRemovesPersistWithoutACheckpointCall() async throws {
        let path = Fixture.temporaryPath("adds.sqlite")
        let circle = Condition.circle(try CircularGeographicCondition(center: Self.shop, radius: 100))
        do {
            let store = try SQLiteStore(path: path)
            let monitor = try Monitor(name: "m", store: store)
            try await monitor.add(circle, identifier: "a")
            try await monitor.add(circle, identifier: "b", assuming: .satisfied)
            try store.close()
        }
        do {
            let store = try SQLiteStore(path: path)
            let monitor = try Monitor(name: "m", store: store)
            #expect(await monitor.identifiers == ["a", "b"])
            #expect(await monitor.record(for: "b")?.state == .satisfied)
            await monitor.remove("a")
            try store.close()
        }
        do {
            let store = try SQLiteStore(path: path)
            let monitor = try Monitor(name: "m", store: store)
            #expect(await monitor.identifiers == ["b"])
            // Re-added after its removal: a new condition, starting afresh.
            try await monitor.add(circle, identifier: "a", assuming: .unsatisfied)
            try store.close()
        }
        let store = try SQLiteStore(path: path)
        let monitor = try Monitor(name: "m", store: store)
        #expect(await monitor.identifiers == ["b", "a"])
        #expect(await monitor.record(for: "a")?.state == .unsatisfied)
        #expect(try store.monitorNames() == ["m"])
    }

    /// Processed records are saved at the default cadence: after 10,000 records, without a call.
    @Test func recordsAreSavedAtTheDefaultCadence() async throws {
        let path = Fixture.temporaryPath("cadence.sqlite")
        do {
            let store = try SQLiteStore(path: path)
            let monitor = try Monitor(name: "m", store: store, streamsEvents: false)
            try await monitor.add(.circle(CircularGeographicCondition(center: Self.shop, radius: 100)), identifier: "shop")
            for k in 0..<10_001 { try await monitor.process(Self.fix(k, metresNorth: Double(k % 2) * 1000), device: "ana") }
            try store.close()
        }
        let monitor = try Monitor(name: "m", store: SQLiteStore(path: path))
        #expect(await monitor.recordCount == 10_000)
        #expect(await monitor.record(for: "shop", device: "ana")?.lastEvent?.cause == 10_000)
    }

    @Test func aSavedMonitorKeepsItsPolicy() async throws {
        let path = Fixture.temporaryPath("policy.sqlite")
        var policy = MonitoringPolicy()
        policy.hysteresis = 30
        policy.confirmation = 12
        policy.initialAuthorization = .notDetermined
        do {
            let store = try SQLiteStore(path: path)
            _ = try Monitor(name: "m", store: store, policy: policy)
            try store.close()
        }
        let store = try SQLiteStore(path: path)
        #expect(await (try Monitor(name: "m", store: store)).policy == policy)
        #expect(await (try Monitor(name: "m", store: store, policy: policy)).policy == policy)
        #expect(throws: MonitorStoreError.self) { try Monitor(name: "m", store: store, policy: MonitoringPolicy()) }
    }

    /// Over random scenarios (every condition kind, authorization records, random policies), a monitor
    /// saved after any record and reopened from the file gives the rest of the stream exactly the
    /// events, causes and records of a monitor that was never closed.
    @Test func aReopenedMonitorGoesOnAsTheFirstWould() async {
        await propertyCheck(count: 60, input: ScenarioGen.scenario(), Gen.int(in: 0...60)) { scenario, at in
            let records = ScenarioRun.numbered(scenario).map(\.record)
            let k = min(at, records.count)
            let whole = Monitor(name: "m", engine: try scenario.engine(), store: nil, cadence: .manual, streamsEvents: false)
            var expected: [MonitorEvent] = []
            for record in records { expected += (try? await whole.process(record.observation, device: record.device)) ?? [] }
            expected += await whole.finish()

            let path = Fixture.temporaryPath("property.sqlite")
            var events: [MonitorEvent] = []
            do {
                let store = try SQLiteStore(path: path)
                let first = Monitor(name: "m", engine: try scenario.engine(), store: store, cadence: .manual, streamsEvents: false)
                for record in records[..<k] { events += (try? await first.process(record.observation, device: record.device)) ?? [] }
                try await first.checkpoint()
                try store.close()
            }
            let store = try SQLiteStore(path: path)
            defer { try? store.close() }
            let second = try Monitor(name: "m", store: store, streamsEvents: false)
            for record in records[k...] { events += (try? await second.process(record.observation, device: record.device)) ?? [] }
            events += await second.finish()
            #expect(events == expected, "reopened after record \(k)")
            for device in scenario.devices {
                for identifier in scenario.identifiers {
                    #expect(await second.record(for: identifier, device: device) == whole.record(for: identifier, device: device),
                            "record of \(identifier) for \(device), reopened after record \(k)")
                }
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
