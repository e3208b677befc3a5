import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// SPEC §2, beacon conditions.
@Suite struct BeaconStateTests {
    static let conditions: [(String, Condition, ConditionState?)] = [
        ("any", .beacon(BeaconIdentityCondition(uuid: T.uuid)), nil),
        ("major1", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 1)), nil),
        ("exact", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 1, minor: 2)), nil),
    ]

    @Test func wildcardsMatchAndRefineToTheSatisfyingBeacon() throws {
        var h = try Harness(Self.conditions)
        #expect(try h.feed(T.sighting(7, 7, at: 0)) == ["any:satisfied"])
        #expect(h.events[0].refinement == BeaconIdentity(uuid: T.uuid, major: 7, minor: 7))
        #expect(try h.feed(T.sighting(1, 9, at: 1)) == ["major1:satisfied"])
        #expect(h.events[1].refinement == BeaconIdentity(uuid: T.uuid, major: 1, minor: 9))
        #expect(try h.feed(T.sighting(1, 2, at: 2)) == ["exact:satisfied"])
        // Other matching beacons while satisfied: no event.
        #expect(try h.feed(T.sighting(1, 3, at: 3)) == [])
        #expect(try h.feed(T.sighting(5, 5, uuid: T.otherUUID, at: 4)) == [])
    }

    @Test func exitFiresAtTheTimeoutWithTheDueInstantAsDate() throws {
        var h = try Harness([Self.conditions[2]])
        #expect(try h.feed(T.sighting(1, 2, at: 0)) == ["exact:satisfied"])
        #expect(try h.feed(T.fix(0, 0, at: 29.5)) == [])
        #expect(try h.feed(T.fix(0, 0, at: 45)) == ["exact:unsatisfied"])
        #expect(h.events.last?.date == T.at(30))
        #expect(h.events.last?.cause == 3)
        #expect(h.events.last?.refinement == nil)
    }

    @Test func aMatchingSightingExactlyAtTheDueInstantCancelsTheExit() throws {
        var h = try Harness([Self.conditions[2]])
        try h.feed(T.sighting(1, 2, at: 0))
        #expect(try h.feed(T.sighting(1, 2, at: 30)) == [])
        #expect(try h.feed(T.fix(0, 0, at: 59.999)) == [])
        #expect(try h.feed(T.fix(0, 0, at: 60.001)) == ["exact:unsatisfied"])
    }

    @Test func anotherRecordExactlyAtTheDueInstantDoesNotFireIt() throws {
        var h = try Harness([Self.conditions[2]])
        try h.feed(T.sighting(1, 2, at: 0))
        #expect(try h.feed(T.fix(0, 0, at: 30)) == [])  // due at 30 is not strictly before 30
        #expect(h.finish() == ["exact:unsatisfied"])  // at the end, due ≤ last record time fires
    }

    @Test func endOfInputDoesNotInventLaterExits() throws {
        var h = try Harness([Self.conditions[2]])
        try h.feed(T.sighting(1, 2, at: 0))
        try h.feed(T.fix(0, 0, at: 29))
        #expect(h.finish() == [])
        #expect(h.engine.state(of: "exact", device: "d") == .satisfied)
    }

    @Test func unknownConditionsTimeOutFromTheDevicesFirstRecord() throws {
        var h = try Harness(Self.conditions)
        try h.feed(T.fix(0, 0, at: 100))
        #expect(try h.feed(T.fix(0, 0, at: 131)) == ["any:unsatisfied", "major1:unsatisfied", "exact:unsatisfied"])
        #expect(h.events.allSatisfy { $0.date == T.at(130) })
    }

    @Test func assumedStatesTimeOutOrStayAsTheyShould() throws {
        var h = try Harness([("sat", .beacon(BeaconIdentityCondition(uuid: T.uuid)), .satisfied),
                             ("unsat", .beacon(BeaconIdentityCondition(uuid: T.otherUUID)), .unsatisfied)])
        #expect(try h.feed(T.sighting(1, 1, at: 10)) == [])  // already satisfied: refreshed, no event
        #expect(try h.feed(T.fix(0, 0, at: 41)) == ["sat:unsatisfied"])
        #expect(h.events.last?.date == T.at(40))
    }

    @Test func conditionAddedLaterCountsFromItsAddition() throws {
        var h = try Harness([])
        try h.feed(T.fix(0, 0, at: 0))
        try h.feed(T.fix(0, 0, at: 100))
        try h.engine.add(.beacon(BeaconIdentityCondition(uuid: T.uuid)), identifier: "late")
        #expect(try h.feed(T.fix(0, 0, at: 129)) == [])
        #expect(try h.feed(T.fix(0, 0, at: 131)) == ["late:unsatisfied"])
        #expect(h.events.last?.date == T.at(130))
    }

    @Test func exitsFireInDueOrderBeforeTheRecordsOwnEvents() throws {
        var h = try Harness([("a", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 1)), .unsatisfied),
                             ("b", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 2)), .unsatisfied),
                             ("c", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 3)), .unsatisfied)])
        try h.feed(T.sighting(2, 0, at: 0))
        try h.feed(T.sighting(1, 0, at: 5))
        #expect(try h.feed(T.sighting(3, 0, at: 60)) == ["b:unsatisfied", "a:unsatisfied", "c:satisfied"])
    }

    /// The first timer of still-unknown conditions is shared by a range filed under its first
    /// condition; exits of touched pairs due at the same instant still come out in condition order,
    /// one record at a time and in a batch of sightings alike.
    @Test func exitsDueAtTheSameInstantFireInConditionOrder() throws {
        var h = try Harness([("any", .beacon(BeaconIdentityCondition(uuid: T.uuid)), nil),
                             ("m1", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 1)), nil)])
        #expect(try h.feed(T.sighting(2, 0, at: 0)) == ["any:satisfied"])
        #expect(try h.feed(T.fix(0, 0, at: 40)) == ["any:unsatisfied", "m1:unsatisfied"])
        #expect(h.events.suffix(2).allSatisfy { $0.date == T.at(30) })

        // Untouched conditions (a range) and touched ones (their own exits), interleaved.
        let five = (0..<5).map { ("c\($0)", Condition.beacon(BeaconIdentityCondition(uuid: T.uuid, major: UInt16($0))), ConditionState?.none) }
        let sightings = [T.sighting(1, 0, at: 0), T.sighting(3, 0, at: 0), T.sighting(0, 0, uuid: T.otherUUID, at: 40)]
        let order = ["c1:satisfied", "c3:satisfied", "c0:unsatisfied", "c1:unsatisfied", "c2:unsatisfied", "c3:unsatisfied", "c4:unsatisfied"]
        var one = try Harness(five)
        for sighting in sightings { try one.feed(sighting) }
        #expect(one.events.map { "\($0.identifier):\($0.state.rawValue)" } == order)
        var batch = try Harness(five)
        let device = batch.engine.deviceID("d")
        let records = sightings.enumerated().map { k, observation in
            guard case .sighting(let sighting) = observation else { fatalError("sightings only") }
            return SightingRecord(device: device, sighting: sighting, cause: k + 1)
        }
        try batch.engine.process(records, into: &batch.events)
        #expect(batch.events == one.events)
    }

    @Test func beaconTimeoutIsAPolicyValue() throws {
        var policy = MonitoringPolicy()
        policy.beaconExitTimeout = 5
        var h = try Harness(policy: policy, [Self.conditions[0]])
        try h.feed(T.sighting(1, 1, at: 0))
        #expect(try h.feed(T.fix(0, 0, at: 6)) == ["any:unsatisfied"])
    }

    @Test func frequentSightingsKeepTheExitQueueSmall() throws {
        var h = try Harness([Self.conditions[0]])
        for i in 0..<10_000 {
            try h.feed(T.sighting(1, 1, at: Double(i)))
            // One entry for the pair (sightings move its exit without queueing another), and the range
            // timer until it fires.
            #expect(h.engine.devicesForTesting[0].exits.count <= 2)
        }
        #expect(h.events.count == 1)
        #expect(try h.feed(T.fix(0, 0, at: 10_029.5)) == ["any:unsatisfied"])
    }
}
