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

/// The matcher's hash tables against scanning every condition with `matches`.
@Suite struct BeaconMatcherTests {
    /// With 3,000 conditions a known UUID matches dozens (the sort of many matches); with 300, a few
    /// (sorted in place).
    @Test(arguments: [3_000, 300])
    func matcherEqualsAScanOfEveryCondition(count: Int) throws {
        var rng = SplitMix64(seed: 5)
        let uuids = (0..<20).map { _ in UUID() }
        var engine = MonitoringEngine()
        var conditions: [BeaconIdentityCondition] = []
        for i in 0..<count {
            let uuid = uuids[Int.random(in: 0..<20, using: &rng)]
            let major = UInt16.random(in: 0..<30, using: &rng), minor = UInt16.random(in: 0..<5, using: &rng)
            let c: BeaconIdentityCondition = switch i % 3 {
            case 0: BeaconIdentityCondition(uuid: uuid)
            case 1: BeaconIdentityCondition(uuid: uuid, major: major)
            default: BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
            }
            conditions.append(c)
            try engine.add(.beacon(c), identifier: "b\(i)")
        }
        for i in stride(from: 0, to: count, by: 7) { engine.remove("b\(i)") }
        let query = engine.makeContainmentQuery()
        var found: [Int32] = []
        // (A count that is not a whole number of the batch's groups.)
        let identities = (0..<20_003).map { _ in
            BeaconIdentity(uuid: Int.random(in: 0..<25, using: &rng) < 20 ? uuids[Int.random(in: 0..<20, using: &rng)] : UUID(),
                           major: .random(in: 0..<32, using: &rng), minor: .random(in: 0..<6, using: &rng))
        }
        var batch: [Int32] = [], offsets: [Int] = []
        query.conditions(matching: identities, conditions: &batch, offsets: &offsets)
        #expect(offsets.count == identities.count + 1)
        var mismatches = 0, batchMismatches = 0, several = 0, matchCounts = Set<Int>()
        for (k, identity) in identities.enumerated() {
            found.removeAll()
            query.conditions(matching: identity, into: &found)
            let expected = conditions.indices.filter { $0 % 7 != 0 && conditions[$0].matches(identity) }.map(Int32.init)
            if found != expected { mismatches += 1 }
            if Array(batch[offsets[k]..<offsets[k + 1]]) != expected { batchMismatches += 1 }
            if expected.count > 1 { several += 1 }
            matchCounts.insert(expected.count)
        }
        #expect(mismatches == 0)
        #expect(batchMismatches == 0)
        #expect(several > 5_000)  // (the forms' answers merged in order, not just one each)
        #expect(matchCounts.contains { $0 > 32 } == (count == 3_000))
    }
}

extension BeaconMatcherTests {
    /// With no beacon condition (no room to write into), a batch matches nothing, and says so.
    @Test func batchWithoutBeaconConditionsMatchesNothing() throws {
        var engine = MonitoringEngine()
        try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 48.85, longitude: 2.35), radius: 100)),
                       identifier: "circle")
        let query = engine.makeContainmentQuery()
        let identities = (0..<40).map { BeaconIdentity(uuid: UUID(), major: UInt16($0), minor: 1) }
        var conditions: [Int32] = [], offsets: [Int] = []
        query.conditions(matching: identities, conditions: &conditions, offsets: &offsets)
        #expect(conditions.isEmpty)
        #expect(offsets == [Int](repeating: 0, count: identities.count + 1))
    }
}

/// The per-device exit queue against a sorted list: pushes and pops in any mix give the entries back
/// in (due, condition) order.
@Suite struct ExitQueueTests {
    /// Random steps against a sorted list — of every 100, `pushes` push `entry(&rng)` and `pops` pop —
    /// checking the first entry and the next due instant throughout, and the order when drained.
    private func exercise(seed: UInt64, steps: Int, pushes: Int, pops: Int,
                          entry: (inout SplitMix64) -> ExitQueue.Entry) {
        var rng = SplitMix64(seed: seed)
        var queue = ExitQueue(), list: [ExitQueue.Entry] = []
        for step in 0..<steps {
            switch Int.random(in: 0..<(pushes + pops), using: &rng) {
            case ..<pushes:
                let e = entry(&rng)
                queue.push(e)
                list.append(e)
            default:
                list.sort()
                #expect(queue.first == list.first)
                #expect(queue.popFirst() == (list.isEmpty ? nil : list.removeFirst()))
            }
            if step % 1000 == 0 { #expect(queue.count == list.count) }
            #expect(queue.nextDue == list.min()?.due ?? .distantFuture)
        }
        list.sort()
        var drained: [ExitQueue.Entry] = []
        while let e = queue.popFirst() { drained.append(e) }
        #expect(drained == list)
        #expect(queue.nextDue == .distantFuture)
    }

    /// Pushes in any order: the heap beside the sorted run.
    @Test func queueEqualsASortedList() {
        exercise(seed: 61, steps: 20_000, pushes: 60, pops: 40) { rng in
            ExitQueue.Entry(due: Timestamp(nanosecondsSinceEpoch: .random(in: 0...50, using: &rng) * 1_000_000_000),
                            condition: .random(in: 0..<40, using: &rng))
        }
    }

    /// A queue that never empties (a beacon seen every second) still lets go of what it popped.
    @Test func queueThatNeverEmptiesKeepsFewEntries() {
        var queue = ExitQueue()
        for second in 0..<10_000 {
            queue.push(.init(due: Timestamp(nanosecondsSinceEpoch: Int64(second + 30) * 1_000_000_000), condition: 0))
            if second >= 30 { _ = queue.popFirst() }
        }
        #expect(queue.count == 30)
        #expect(queue.storedCount <= 4 * 64)
    }

    /// As a device pushes them: dues that only advance, several conditions per instant (so ties come
    /// after larger conditions, near and far back), and now and then a range timer or an earlier due —
    /// the sorted run, its insertions, the heap beside it and the pops between them.
    @Test func queueInDueOrderEqualsASortedList() {
        var now: Int64 = 0
        exercise(seed: 62, steps: 50_000, pushes: 61, pops: 39) { rng in
            if Int.random(in: 0..<4, using: &rng) == 0 { now += .random(in: 0...3, using: &rng) }
            let isRange = Int.random(in: 0..<50, using: &rng) == 0
            let due = isRange || Int.random(in: 0..<50, using: &rng) == 0 ? now + .random(in: -5...40, using: &rng) : now
            let condition = Int32.random(in: 0..<(Int.random(in: 0..<3, using: &rng) == 0 ? 4 : 40), using: &rng)
            return ExitQueue.Entry(due: Timestamp(nanosecondsSinceEpoch: due * 1_000_000_000), condition: condition,
                                   rangeEnd: isRange ? condition + 5 : -1)
        }
    }
}
