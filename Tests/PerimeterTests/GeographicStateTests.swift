import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// SPEC §2, geographic conditions: one test per rule.
@Suite struct GeographicStateTests {
    let centre = Coordinate(latitude: 48.8566, longitude: 2.3522)

    @Test func firstConfidentFixSetsStateFromUnknownAndRepeatsAreSilent() throws {
        var h = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 0)) == ["c:satisfied"])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 1)) == [])
        let far = T.north(of: centre, metres: 500)
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 2)) == ["c:unsatisfied"])
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 3)) == [])
    }

    @Test func assumingSuppressesTheFirstEventWhenTheStateAlreadyHolds() throws {
        var h = try Harness([("in", try .circle(centre.latitude, centre.longitude, radius: 100), .satisfied),
                             ("out", try .circle(centre.latitude, centre.longitude, radius: 100), .unsatisfied)])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 0)) == ["out:satisfied"])
    }

    @Test func policyDefaultAssumptionAppliesToConditionsWithoutTheirOwn() throws {
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unsatisfied
        var h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        let far = T.north(of: centre, metres: 500)
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 0)) == [])
        #expect(h.engine.state(of: "c", device: "d") == .unsatisfied)
    }

    @Test func exactlyOnTheCircleBoundaryWithZeroAccuracyIsInside() throws {
        let fix = T.north(of: centre, metres: 100)
        let radius = Geodesy.distance(centre, fix)  // d == 0 exactly
        var h = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: radius), nil)])
        #expect(try h.feed(T.fix(fix.latitude, fix.longitude, at: 0)) == ["c:satisfied"])
    }

    @Test func insideNeedsDistanceAtLeastTheMarginAndOutsideMoreThanIt() throws {
        let fix = T.north(of: centre, metres: 100)
        let distance = Geodesy.distance(centre, fix)
        // d = −m exactly: confidently inside (d ≤ −m).
        var inside = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: distance + 20), nil)])
        #expect(try inside.feed(T.fix(fix.latitude, fix.longitude, accuracy: 20, at: 0)) == ["c:satisfied"])
        // d = +m exactly: not confidently outside (needs d > m), so nothing happens.
        var edge = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: distance - 20), nil)])
        #expect(try edge.feed(T.fix(fix.latitude, fix.longitude, accuracy: 20, at: 0)) == [])
        #expect(edge.engine.state(of: "c", device: "d") == .unknown)
        #expect(try edge.feed(T.fix(fix.latitude, fix.longitude, accuracy: 19.9, at: 1)) == ["c:unsatisfied"])
    }

    @Test func accuracyStraddlingTheBoundaryChangesNothing() throws {
        var h = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 0)) == ["c:satisfied"])
        let justOutside = T.north(of: centre, metres: 105)
        #expect(try h.feed(T.fix(justOutside.latitude, justOutside.longitude, accuracy: 40, at: 1)) == [])
        let justInside = T.north(of: centre, metres: 95)
        #expect(try h.feed(T.fix(justInside.latitude, justInside.longitude, accuracy: 40, at: 2)) == [])
        #expect(try h.feed(T.fix(justOutside.latitude, justOutside.longitude, accuracy: 4, at: 3)) == ["c:unsatisfied"])
    }

    @Test func hysteresisAndAccuracyWeightSetTheMargin() throws {
        var policy = MonitoringPolicy()
        policy.hysteresis = 30
        var h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        let p120 = T.north(of: centre, metres: 120), p140 = T.north(of: centre, metres: 140)
        #expect(try h.feed(T.fix(p120.latitude, p120.longitude, accuracy: 0, at: 0)) == [])  // 20 m < H
        #expect(try h.feed(T.fix(p140.latitude, p140.longitude, accuracy: 0, at: 1)) == ["c:unsatisfied"])

        policy = MonitoringPolicy()
        policy.accuracyWeight = 2
        h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        #expect(try h.feed(T.fix(p140.latitude, p140.longitude, accuracy: 25, at: 0)) == [])  // 40 m < 2 × 25
        #expect(try h.feed(T.fix(p140.latitude, p140.longitude, accuracy: 15, at: 1)) == ["c:unsatisfied"])
    }

    @Test func negativeAccuracyIsNoFixAndChangesNothing() throws {
        var h = try Harness([("c", try .circle(centre.latitude, centre.longitude, radius: 100), nil)])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, accuracy: -1, at: 0)) == [])
        // Even a nonsense position is accepted when the fix says it has none.
        #expect(try h.feed(T.fix(0, 999, accuracy: -1, at: 1)) == [])
        #expect(h.engine.state(of: "c", device: "d") == .unknown)
    }

    @Test func confirmationCompletesOnTheFixThatHoldsLongEnough() throws {
        var policy = MonitoringPolicy()
        policy.confirmation = 10
        var h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), .unsatisfied)])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 0)) == [])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 9.5)) == [])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 10)) == ["c:satisfied"])
        #expect(h.events.last?.date == T.at(10))
    }

    @Test func confirmationIsCancelledByAFixOnTheOldSideButNotByAnUncertainOne() throws {
        var policy = MonitoringPolicy()
        policy.confirmation = 10
        var h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), .unsatisfied)])
        let far = T.north(of: centre, metres: 500), edge = T.north(of: centre, metres: 100)
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 0)) == [])
        #expect(try h.feed(T.fix(edge.latitude, edge.longitude, accuracy: 50, at: 5)) == [])  // uncertain: pending stays
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 10)) == ["c:satisfied"])
        // Now leave, come back before 10 s: cancelled; the leave has to start again.
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 20)) == [])
        #expect(try h.feed(T.fix(centre.latitude, centre.longitude, at: 25)) == [])
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 31)) == [])
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 40)) == [])
        #expect(try h.feed(T.fix(far.latitude, far.longitude, at: 41)) == ["c:unsatisfied"])
    }

    @Test func confirmationFromFarAwayCountsForConditionsTheIndexSkips() throws {
        var policy = MonitoringPolicy()
        policy.confirmation = 10
        var h = try Harness(policy: policy, [("c", try .circle(centre.latitude, centre.longitude, radius: 100), .satisfied)])
        #expect(try h.feed(T.fix(10, 10, at: 0)) == [])
        #expect(try h.feed(T.fix(10, 10, at: 10)) == ["c:unsatisfied"])
    }

    @Test func polygonHoleIsOutsideAndVertexAndEdgeAreInside() throws {
        // 0.01° square with a hole in the middle.
        let park = try Condition.rectangle(48.84, 2.33, 48.85, 2.34, hole: (48.844, 2.334, 48.846, 2.336))
        var h = try Harness([("park", park, nil)])
        #expect(try h.feed(T.fix(48.842, 2.332, at: 0)) == ["park:satisfied"])
        #expect(try h.feed(T.fix(48.845, 2.335, at: 1)) == ["park:unsatisfied"])  // in the pond
        #expect(try h.feed(T.fix(48.85, 2.34, at: 2)) == ["park:satisfied"])  // exactly on a vertex
        #expect(try h.feed(T.fix(48.845, 2.336, at: 3)) == [])  // exactly on the hole's edge: still inside
        #expect(try h.feed(T.fix(48.8455, 2.3355, at: 4)) == ["park:unsatisfied"])
    }

    @Test func polygonMarginUsesTheDistanceToTheNearestBoundaryIncludingHoles() throws {
        let park = try Condition.rectangle(48.84, 2.33, 48.85, 2.34, hole: (48.844, 2.334, 48.846, 2.336))
        var h = try Harness([("park", park, nil)])
        // 0.0005° of latitude south of the hole ≈ 55.6 m from its edge.
        #expect(try h.feed(T.fix(48.8435, 2.335, accuracy: 60, at: 0)) == [])
        #expect(try h.feed(T.fix(48.8435, 2.335, accuracy: 50, at: 1)) == ["park:satisfied"])
    }

    @Test func multiPolygonCoversEachPart() throws {
        func square(_ lat: Double, _ lon: Double) -> GeoPolygon {
            GeoPolygon(exterior: [Coordinate(latitude: lat, longitude: lon), Coordinate(latitude: lat, longitude: lon + 0.001),
                                  Coordinate(latitude: lat + 0.001, longitude: lon + 0.001), Coordinate(latitude: lat + 0.001, longitude: lon),
                                  Coordinate(latitude: lat, longitude: lon)])
        }
        let campus = Condition.polygon(try PolygonalGeographicCondition(polygons: [square(48.84, 2.35), square(48.85, 2.36)]))
        var h = try Harness([("campus", campus, nil)])
        #expect(try h.feed(T.fix(48.8505, 2.3605, at: 0)) == ["campus:satisfied"])
        #expect(try h.feed(T.fix(48.845, 2.355, at: 1)) == ["campus:unsatisfied"])
        #expect(try h.feed(T.fix(48.8405, 2.3505, at: 2)) == ["campus:satisfied"])
    }

    @Test func eventsOfOneFixComeInConditionOrderWithTheFixDateAndCause() throws {
        var h = try Harness([("b", try .circle(1, 1, radius: 100), nil), ("a", try .circle(2, 2, radius: 100), nil),
                             ("here", try .circle(0, 0, radius: 100), nil)])
        #expect(try h.feed(T.fix(0, 0, at: 3)) == ["b:unsatisfied", "a:unsatisfied", "here:satisfied"])
        #expect(h.events.allSatisfy { $0.date == T.at(3) && $0.cause == 1 && $0.device == "d" })
    }

    @Test func devicesAreIndependent() throws {
        var h = try Harness([("c", try .circle(0, 0, radius: 100), nil)])
        #expect(try h.feed(T.fix(0, 0, at: 0), device: "x") == ["c:satisfied"])
        #expect(try h.feed(T.fix(1, 1, at: 0), device: "y") == ["c:unsatisfied"])
        #expect(h.engine.state(of: "c", device: "x") == .satisfied)
        #expect(h.engine.state(of: "c", device: "y") == .unsatisfied)
    }

    /// Device names get their numbers in order of first appearance, whether a name repeats the last
    /// one (answered without the dictionary), returns after others, or is new.
    @Test func deviceNamesNumberInOrderOfFirstAppearance() {
        var engine = MonitoringEngine()
        var oracle: [String: Int32] = [:]
        var rng = SplitMix64(seed: 5)
        for _ in 0..<2_000 {
            let name = "phone-\(Int.random(in: 0..<40, using: &rng))"
            let expected = oracle[name] ?? Int32(oracle.count)
            oracle[name] = expected
            // Often the same name several times in a row, as one device's run of records.
            for _ in 0..<Int.random(in: 1...3, using: &rng) { #expect(engine.deviceID(name).index == expected) }
        }
        #expect(oracle.count == 40)
    }

    @Test func outOfOrderRecordIsRefusedAndChangesNothing() throws {
        var h = try Harness([("c", try .circle(0, 0, radius: 100), nil)])
        try h.feed(T.fix(1, 1, at: 10))
        #expect(throws: ObservationProblem.self) { try h.feed(T.fix(0, 0, at: 9)) }
        #expect(h.engine.state(of: "c", device: "d") == .unsatisfied)
        #expect(try h.feed(T.fix(0, 0, at: 10)) == ["c:satisfied"])  // equal times are in order
    }

    @Test func invalidCoordinatesAreRefusedWithTheField() throws {
        var h = try Harness([("c", try .circle(0, 0, radius: 100), nil)])
        do {
            try h.feed(T.fix(91, 0, at: 0))
            Issue.record("expected a problem")
        } catch let problem as ObservationProblem {
            #expect(problem.field == "lat")
        }
    }

    @Test func addingAndRemovingConditionsWhileRunning() throws {
        var h = try Harness([("a", try .circle(0, 0, radius: 100), nil)])
        #expect(try h.feed(T.fix(0, 0, at: 0)) == ["a:satisfied"])
        try h.engine.add(try .circle(0, 0, radius: 200), identifier: "b")
        #expect(try h.feed(T.fix(0, 0, at: 1)) == ["b:satisfied"])
        let removed = h.engine.remove("a")
        #expect(removed)
        #expect(try h.feed(T.fix(5, 5, at: 2)) == ["b:unsatisfied"])
        #expect(h.engine.identifiers == ["b"])
        #expect(throws: ConditionCatalogError.duplicateIdentifier("b")) { try h.engine.add(try .circle(0, 0, radius: 1), identifier: "b") }
    }

    /// Conditions removed after the cover grid was built stay in its cells: every path that reads
    /// the cells must pass them by. The engine that had them must then answer as one that never did.
    @Test func removedConditionsAreSkippedInTheGridsCells() throws {
        var rng = SplitMix64(seed: 7)
        let circles = try (0..<2_000).map { k in
            ("c\(k)", try Condition.circle(48.85 + .random(in: -0.05...0.05, using: &rng), 2.35 + .random(in: -0.07...0.07, using: &rng),
                                         radius: .random(in: 50...400, using: &rng)))
        }
        var withRemovals = MonitoringEngine(), without = MonitoringEngine()
        for (id, c) in circles { try withRemovals.add(c, identifier: id) }
        withRemovals.prepare()
        for (k, (id, c)) in circles.enumerated() {
            if k % 3 == 0 {
                let removed = withRemovals.remove(id)
                #expect(removed)
            } else {
                try without.add(c, identifier: id)
            }
        }
        without.prepare()
        var a: [MonitorEvent] = [], b: [MonitorEvent] = []
        var queryA = withRemovals.makeContainmentQuery(), queryB = without.makeContainmentQuery()
        #expect(!queryA.isUsingConditionIndexOnly)
        let idsA = withRemovals.geographicIdentifiers, idsB = without.geographicIdentifiers
        var inA: [Int32] = [], inB: [Int32] = []
        for step in 0..<3_000 {
            let fix = Fix(time: T.at(Double(step)), coordinate: Coordinate(latitude: 48.85 + .random(in: -0.05...0.05, using: &rng),
                                                                          longitude: 2.35 + .random(in: -0.07...0.07, using: &rng)),
                          horizontalAccuracy: .random(in: 0...60, using: &rng))
            let device = "d\(step % 5)"
            try withRemovals.process(.fix(fix), device: device, cause: step, into: &a)
            try without.process(.fix(fix), device: device, cause: step, into: &b)
            inA.removeAll(); inB.removeAll()
            queryA.conditions(containing: fix.coordinate, into: &inA)
            queryB.conditions(containing: fix.coordinate, into: &inB)
            #expect(Set(inA.map { idsA[Int($0)] }) == Set(inB.map { idsB[Int($0)] }), "fix \(step)")
        }
        #expect(a.count > 100)
        #expect(firstDifference(a.map { "\($0.device) \($0.identifier) \($0.state)" },
                                b.map { "\($0.device) \($0.identifier) \($0.state)" }) == nil)
    }

    @Test func circleAcrossTheAntimeridianIsFoundFromBothSides() throws {
        var h = try Harness([("dateline", try .circle(0, 179.9999, radius: 1000), nil)])
        #expect(try h.feed(T.fix(0, -179.9995, at: 0)) == ["dateline:satisfied"])
        #expect(try h.feed(T.fix(0, -179.98, at: 1)) == ["dateline:unsatisfied"])
    }
}

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
