import Testing
@testable import Perimeter

/// SPEC's policy values: their ranges, and durations as stream-time spans.
@Suite struct PolicyTests {
    /// Beyond 64-bit nanoseconds (about 292 years) a duration is the largest span — never, in
    /// practice — rather than overflowing to zero.
    @Test func durationsBeyondTheRepresentableRangeBecomeTheLargestSpan() {
        #expect(TimeSpan(seconds: 1e300).nanoseconds == .max)
        #expect(TimeSpan(seconds: 1e10).nanoseconds == .max)
        #expect(TimeSpan(seconds: .infinity).nanoseconds == .max)
        #expect(TimeSpan(seconds: 9_223_372_036).nanoseconds == 9_223_372_036_000_000_000)
        #expect(TimeSpan(seconds: 1.5).nanoseconds == 1_500_000_000)
        #expect(TimeSpan(seconds: -1).nanoseconds == 0)
        #expect(TimeSpan(seconds: .nan).nanoseconds == 0)
    }

    @Test func aHugeDurationIsAcceptedAndNaNNegativeAndInfiniteOnesAreNot() {
        var policy = MonitoringPolicy()
        policy.confirmation = 1e300
        policy.beaconExitTimeout = 1e300
        policy.gracePeriod = 1e300
        policy.maximumHoldingAge = 1e300
        #expect(policy.problem() == nil)
        #expect(policy.spans.beaconExitTimeout.nanoseconds == .max)
        #expect(policy.spans.maximumHoldingAge.nanoseconds == .max)
        for bad in [Double.nan, -1, .infinity] {
            var p = MonitoringPolicy()
            p.maximumHoldingAge = bad
            #expect(p.problem() != nil, "\(bad)")
            p = MonitoringPolicy()
            p.beaconExitTimeout = bad
            #expect(p.problem() != nil, "\(bad)")
        }
    }

    @Test func aHugeBeaconExitTimeoutNeverFiresAndKeepsTheQueueSmall() throws {
        var policy = MonitoringPolicy()
        policy.beaconExitTimeout = 1e300
        var h = try Harness(policy: policy, [("any", .beacon(BeaconIdentityCondition(uuid: T.uuid)), .unsatisfied)])
        #expect(try h.feed(T.sighting(1, 1, at: 0)) == ["any:satisfied"])
        for i in 1..<2_000 { try h.feed(T.sighting(1, 1, at: Double(i))) }
        #expect(try h.feed(T.fix(0, 0, at: 1e9)) == [])
        #expect(h.finish() == [])
        #expect(h.engine.state(of: "any", device: "d") == .satisfied)
        #expect(h.engine.devicesForTesting[0].exits.count < 100)
    }

    @Test func aHugeMaximumHoldingAgeNeverExpiresAHeldEvent() throws {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        policy.maximumHoldingAge = 1e300
        var h = try Harness(policy: policy, [("a", try .circle(0, 0, radius: 100), .unsatisfied)])
        try h.feed(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try h.feed(.request(AuthorizationRequest(time: T.at(1), kind: .always)))
        try h.feed(.answer(PromptAnswer(time: T.at(2), choice: .allowWhileUsing)))
        try h.feed(.app(AppStateChange(time: T.at(3), state: .background)))
        try h.feed(T.fix(0, 0, at: 100))
        try h.feed(T.fix(0, 0, at: 1e9))
        #expect(h.events.map(\.delivery.verdict) == [.held])
        #expect(h.engine.heldEventCount == 1)
    }
}
