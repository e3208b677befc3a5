import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
/// Per-device state follows what a device is near, never the number of conditions.
@Suite struct DeviceMemoryTests {
    @Test(arguments: [ConditionState.unsatisfied, .unknown])
    func devicesKeepEntriesOnlyForConditionsTheyAreInOrNear(_ assumption: ConditionState) throws {
        var policy = MonitoringPolicy()
        policy.defaultAssumption = assumption
        var engine = MonitoringEngine(policy: policy)
        // 20,000 circles of 100 m on a 200 × 100 grid, 1 km apart.
        for i in 0..<20_000 {
            let c = Coordinate(latitude: 48 + Double(i / 200) * 0.009, longitude: 2 + Double(i % 200) * 0.0135)
            try engine.add(.circle(CircularGeographicCondition(center: c, radius: 100)), identifier: "c\(i)")
        }
        var events: [MonitorEvent] = []
        let device = engine.deviceID("walker")
        // A walk through 400 circle centres.
        for step in 0..<400 {
            let c = Coordinate(latitude: 48 + Double(step / 20) * 0.009, longitude: 2 + Double(step % 20) * 0.0135)
            try engine.process(.fix(Fix(time: T.at(Double(step)), coordinate: c, horizontalAccuracy: 10)), device: device, cause: step, into: &events)
            // In one circle at a time: at most a few explicit entries, whatever the catalogue's size.
            #expect(engine.devicesForTesting[Int(device.index)].geographicEntries.count <= 2)
        }
        #expect(engine.devicesForTesting[Int(device.index)].geographicSettled == 20_000)
    }

    /// With a confirmation time, the conditions a device's first fix finds far away wait together,
    /// not as a pair each: a walk through circles keeps few entries while 20,000 unknown pairs wait,
    /// then every untouched one changes on the fix that completes the wait, in condition order, and
    /// the circles the walk met change as their own pairs say. Conditions added during the wait
    /// wait from the fix that meets them.
    @Test func waitingPairsTakeNoEntryEach() throws {
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unknown
        policy.confirmation = 10
        var engine = MonitoringEngine(policy: policy)
        func centre(_ i: Int) -> Coordinate {
            Coordinate(latitude: 48 + Double(i / 200) * 0.009, longitude: 2 + Double(i % 200) * 0.0135)
        }
        for i in 0..<20_000 {
            try engine.add(.circle(CircularGeographicCondition(center: centre(i), radius: 100)), identifier: "c\(i)")
        }
        var events: [MonitorEvent] = []
        let device = engine.deviceID("walker")
        func fix(_ step: Int, at c: Coordinate) throws {
            try engine.process(.fix(Fix(time: T.at(Double(step)), coordinate: c, horizontalAccuracy: 10)), device: device,
                               cause: step, into: &events)
        }
        // Seconds 0–5 in circles 0–5 (one each), then between circles until second 12.
        for step in 0..<6 {
            try fix(step, at: centre(step))
            #expect(engine.devicesForTesting[Int(device.index)].geographicEntries.count <= 6)
        }
        try engine.add(.circle(CircularGeographicCondition(center: centre(0), radius: 100)), identifier: "late")
        let between = Coordinate(latitude: 48.0045, longitude: 2.1)
        for step in 6..<13 { try fix(step, at: between) }
        let state = engine.devicesForTesting[Int(device.index)]
        #expect(state.geographicEntries.count <= 6)
        #expect(state.geographicSettled == 20_000)  // the first run completed at second 10
        #expect(state.geographicWaiting.count == 1)  // "late", met at second 6, waits until 16
        // The untouched 19,994 at second 10, in condition order; circle k (left at second k + 1)
        // at second k + 11.
        #expect(events.count == 19_996)
        #expect(events.allSatisfy { $0.state == .unsatisfied })
        #expect(events.first?.identifier == "c6" && events.first?.cause == 10)
        #expect(events.first { $0.identifier == "c100" }?.cause == 10)
        #expect(events.suffix(2).map { "\($0.identifier) \($0.cause)" } == ["c0 11", "c1 12"])
        for step in 13..<17 { try fix(step, at: between) }
        #expect(events.suffix(5).map { "\($0.identifier) \($0.cause)" } == ["c2 13", "c3 14", "c4 15", "c5 16", "late 16"])
        #expect(events.count == 20_001)
        #expect(engine.devicesForTesting[Int(device.index)].geographicSettled == 20_001)
        #expect(engine.devicesForTesting[Int(device.index)].geographicWaiting.isEmpty)
    }

    /// Conditions that start unsatisfied have nothing to wait for: with a confirmation time, the
    /// first fix settles them, and its anchor answers the fixes after it.
    @Test func unsatisfiedConditionsDoNotWait() throws {
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unsatisfied
        policy.confirmation = 10
        var engine = MonitoringEngine(policy: policy)
        for i in 0..<100 {
            try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 48 + Double(i) * 0.01, longitude: 2),
                                                               radius: 100)), identifier: "c\(i)")
        }
        var events: [MonitorEvent] = []
        let device = engine.deviceID("d")
        for step in 0..<5 {
            try engine.process(.fix(Fix(time: T.at(Double(step)), coordinate: Coordinate(latitude: 48.005, longitude: 2),
                                        horizontalAccuracy: 10)), device: device, cause: step, into: &events)
            #expect(engine.devicesForTesting[Int(device.index)].geographicWaiting.isEmpty)
        }
        #expect(engine.devicesForTesting[Int(device.index)].geographicSettled == 100)
        #expect(engine.fixesAnsweredByAnchor == 4)
        #expect(events.isEmpty)
    }

    /// A condition removed while its pair waits gets no event when the wait completes; one added
    /// again under the same identifier waits from the fix that meets it.
    @Test func removedWaitingConditionsStaySilent() throws {
        var policy = MonitoringPolicy()
        policy.confirmation = 10
        var engine = MonitoringEngine(policy: policy)
        let far = Coordinate(latitude: 10, longitude: 10)
        for i in 0..<50 {
            try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 48 + Double(i) * 0.01, longitude: 2),
                                                               radius: 100)), identifier: "c\(i)")
        }
        var events: [MonitorEvent] = []
        for step in 0..<12 {
            if step == 5 {
                let removed = engine.remove("c7")
                #expect(removed)
                try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 48, longitude: 2), radius: 100)),
                               identifier: "c7")
            }
            try engine.process(.fix(Fix(time: T.at(Double(step)), coordinate: far, horizontalAccuracy: 10)), device: "d",
                               cause: step, into: &events)
        }
        // 49 at second 10 (c7's first pair removed), the new c7 at second 15.
        #expect(events.count == 49)
        #expect(!events.contains { $0.identifier == "c7" })
        for step in 12..<16 {
            try engine.process(.fix(Fix(time: T.at(Double(step)), coordinate: far, horizontalAccuracy: 10)), device: "d",
                               cause: step, into: &events)
        }
        #expect(events.count == 50)
        #expect(events.last.map { "\($0.identifier) \($0.cause)" } == "c7 15")
    }
}
