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
