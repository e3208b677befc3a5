import Foundation
import Testing
@testable import Perimeter

/// A record the `Monitor` refuses still lets stream time run up to it; the events that fell due come
/// with the error, so a caller that takes events from `process` (not the stream) loses none.
@Suite struct MonitorRefusalTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    static func monitor() async throws -> Monitor {
        let monitor = Monitor(name: "refusals", streamsEvents: false)
        try await monitor.add(.beacon(BeaconIdentityCondition(uuid: uuid)), identifier: "b", assuming: .unsatisfied)
        _ = try await monitor.process(.sighting(BeaconSighting(time: T.at(0), identity: BeaconIdentity(uuid: uuid, major: 1, minor: 1), rssi: -60)))
        return monitor
    }

    @Test func aRefusedRecordCarriesTheExitsThatFellDueBeforeIt() async throws {
        let monitor = try await Self.monitor()
        // An answer with no prompt open is refused, after the exit due at 30 s has happened.
        do {
            _ = try await monitor.process(.answer(PromptAnswer(time: T.at(45), choice: .allowAlways)))
            Issue.record("the answer was not refused")
        } catch {
            #expect(error.problem.field == "choice" && error.problem.message.contains("none is open"))
            #expect(error.index == 0)
            #expect(error.events.map(\.state) == [.unsatisfied])
            #expect(error.events.first?.date == T.at(30))
            #expect(error.events.first?.cause == 2)
        }
        #expect(await monitor.record(for: "b")?.lastEvent?.date == T.at(30))
    }

    @Test func aRefusedRecordInABatchCarriesTheEventsBeforeIt() async throws {
        let monitor = try await Self.monitor()
        let batch: [Observation] = [
            .sighting(BeaconSighting(time: T.at(10), identity: BeaconIdentity(uuid: Self.uuid, major: 2, minor: 1), rssi: -60)),
            .fix(Fix(time: T.at(100), coordinate: Coordinate(latitude: 45, longitude: 5), horizontalAccuracy: 5)),
            .fix(Fix(time: T.at(50), coordinate: Coordinate(latitude: 45, longitude: 5), horizontalAccuracy: 5)),  // out of order
            .sighting(BeaconSighting(time: T.at(200), identity: BeaconIdentity(uuid: Self.uuid, major: 1, minor: 1), rssi: -60)),
        ]
        do {
            _ = try await monitor.process(batch)
            Issue.record("the batch was not refused")
        } catch {
            #expect(error.problem.field == "t")
            #expect(error.index == 2)
            // The exit due at 40 s (10 s + 30 s), fired by the fix at 100 s; nothing of the records after.
            #expect(error.events.map(\.state) == [.unsatisfied])
            #expect(error.events.first?.date == T.at(40))
        }
        #expect(await monitor.record(for: "b")?.state == .unsatisfied)
    }
}
