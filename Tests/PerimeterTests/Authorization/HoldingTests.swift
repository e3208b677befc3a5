import Foundation
import Testing
@testable import Perimeter

/// The holding rules through the engine: held, displaced, expired, delivered on Allow Always.
@Suite struct HoldingTests {
    /// A notDetermined device in provisional always, in the background; returns the harness.
    func provisional(capacity: Int = 1, maximumAge: Double = 3600) throws -> Harness {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        policy.holdingCapacity = capacity
        policy.maximumHoldingAge = maximumAge
        var h = try Harness(policy: policy, [("a", try .circle(0, 0, radius: 100), .unsatisfied),
                                             ("b", try .circle(1, 1, radius: 100), .unsatisfied)])
        try h.feed(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try h.feed(.request(AuthorizationRequest(time: T.at(1), kind: .always)))
        try h.feed(.answer(PromptAnswer(time: T.at(2), choice: .allowWhileUsing)))
        try h.feed(.app(AppStateChange(time: T.at(3), state: .background)))
        return h
    }

    func verdicts(_ h: Harness) -> [String] {
        h.events.map { "\($0.identifier) \($0.delivery.verdict.rawValue) \($0.delivery.reason?.rawValue ?? "-") \($0.cause)" }
    }

    @Test func heldThenDeliveredOnAllowAlwaysWithTheOriginalDate() throws {
        var h = try provisional()
        try h.feed(T.fix(0, 0, at: 100))  // cause 5
        #expect(verdicts(h) == ["a held provisionalAlways 5"])
        try h.feed(.answer(PromptAnswer(time: T.at(200), choice: .allowAlways)))  // cause 6: the deferred prompt is open
        #expect(verdicts(h) == ["a held provisionalAlways 5", "a delivered - 6"])
        #expect(h.events[1].date == T.at(100))
    }

    @Test func anEventInTheGracePeriodIsDeliveredNotHeld() throws {
        var h = try provisional()
        try h.feed(T.fix(0, 0, at: 8))
        #expect(verdicts(h) == ["a delivered - 5"])
    }

    @Test func aNewHeldEventDisplacesTheOldestWhenFull() throws {
        var h = try provisional(capacity: 1)
        try h.feed(T.fix(0, 0, at: 100))
        try h.feed(T.fix(1, 1, at: 200))  // leaves a (held, displaces a's entry), enters b (held, displaces a's exit)
        let lines = h.events.map { "\($0.identifier) \($0.state.rawValue) \($0.delivery.verdict.rawValue) \($0.delivery.reason?.rawValue ?? "-") \($0.cause)" }
        #expect(lines == ["a satisfied held provisionalAlways 5",
                          "a unsatisfied held provisionalAlways 6", "a satisfied dropped displaced 6",
                          "b satisfied held provisionalAlways 6", "a unsatisfied dropped displaced 6"])
        try h.feed(.answer(PromptAnswer(time: T.at(300), choice: .keepWhileUsing)))
        #expect(verdicts(h).last == "b dropped alwaysAuthorizationDenied 7")
        #expect(h.engine.heldEventCount == 0)
    }

    @Test func aHeldEventOlderThanTheMaximumAgeExpires() throws {
        var h = try provisional(maximumAge: 600)
        try h.feed(T.fix(0, 0, at: 100))
        try h.feed(T.fix(0, 0, at: 700))  // exactly 600 s: not older yet
        #expect(verdicts(h).count == 1)
        try h.feed(T.fix(0, 0, at: 701))
        #expect(verdicts(h) == ["a held provisionalAlways 5", "a dropped expired 7"])
        // Nothing is left to deliver: the prompt's answer resolves nothing.
        try h.feed(.answer(PromptAnswer(time: T.at(800), choice: .allowAlways)))
        #expect(verdicts(h).count == 2)
    }

    /// An expiry goes before an exit at the same instant, also between exits of one instant: with a
    /// maximum age of 0, the first of two unknown beacons' exits expires before the second is held
    /// (it is not displaced by it).
    @Test func anExpiryGoesBeforeEachExitAtTheSameInstant() throws {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        policy.maximumHoldingAge = 0
        var h = try Harness(policy: policy, [("b1", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 1)), nil),
                                             ("b2", .beacon(BeaconIdentityCondition(uuid: T.uuid, major: 2)), nil)])
        try h.feed(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try h.feed(.request(AuthorizationRequest(time: T.at(1), kind: .always)))
        try h.feed(.answer(PromptAnswer(time: T.at(2), choice: .allowWhileUsing)))
        try h.feed(.app(AppStateChange(time: T.at(3), state: .background)))
        try h.feed(T.fix(0, 0, at: 40))  // both exits due at 30
        #expect(verdicts(h) == ["b1 held provisionalAlways 5", "b1 dropped expired 5",
                                "b2 held provisionalAlways 5", "b2 dropped expired 5"])
    }

    /// SPEC §3: the deferred always prompt opens when the first event is held. A temporary
    /// full-accuracy prompt left open when Settings turned precise on must not keep it shut.
    @Test func theDeferredPromptOpensAfterATemporaryFullAccuracyPromptLostItsQuestion() throws {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        var h = try Harness(policy: policy, [("a", try .circle(0, 0, radius: 100), .unsatisfied)])
        try h.feed(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try h.feed(.request(AuthorizationRequest(time: T.at(1), kind: .always)))
        try h.feed(.answer(PromptAnswer(time: T.at(2), choice: .allowWhileUsing, precise: false)))
        try h.feed(.request(AuthorizationRequest(time: T.at(3), kind: .temporaryFullAccuracy)))
        try h.feed(.settings(SettingsChange(time: T.at(4), precise: true)))
        try h.feed(.app(AppStateChange(time: T.at(5), state: .background)))
        try h.feed(T.fix(0, 0, at: 20))  // cause 7
        try h.feed(.answer(PromptAnswer(time: T.at(30), choice: .allowAlways)))  // cause 8
        #expect(verdicts(h) == ["a held provisionalAlways 7", "a delivered - 8"])
    }

    /// 004: an event the app does not get comes "with a Diagnostic Property set to indicate why
    /// not" — the final line of a dropped held event too: its reason's own diagnostic, or, for one
    /// displaced or expired while waiting, the held line's `insufficientlyInUse`.
    @Test func droppedHeldEventsCarryTheDiagnosticOfTheirReason() throws {
        func finalLine(_ h: Harness) -> String {
            guard let e = h.events.last else { return "none" }
            return "\(e.delivery.reason?.rawValue ?? "-") \(e.delivery.diagnostics.names)"
        }
        var displaced = try provisional()
        try displaced.feed(T.fix(0, 0, at: 100))
        try displaced.feed(T.fix(1, 1, at: 200))
        #expect(finalLine(displaced) == "displaced [\"insufficientlyInUse\"]")
        var expired = try provisional(maximumAge: 10)
        try expired.feed(T.fix(0, 0, at: 100))
        try expired.feed(.app(AppStateChange(time: T.at(200), state: .background)))
        #expect(finalLine(expired) == "expired [\"insufficientlyInUse\"]")
        var kept = try provisional()
        try kept.feed(T.fix(0, 0, at: 100))
        try kept.feed(.answer(PromptAnswer(time: T.at(200), choice: .keepWhileUsing)))
        #expect(finalLine(kept) == "alwaysAuthorizationDenied [\"alwaysAuthorizationDenied\"]")
        var never = try provisional()
        try never.feed(T.fix(0, 0, at: 100))
        try never.feed(.settings(SettingsChange(time: T.at(200), status: .never)))
        #expect(finalLine(never) == "authorizationDenied [\"authorizationDenied\"]")
        var allowed = try provisional()
        try allowed.feed(T.fix(0, 0, at: 100))
        try allowed.feed(.answer(PromptAnswer(time: T.at(200), choice: .allowAlways)))
        #expect(finalLine(allowed) == "- []")
    }

    @Test func anAlwaysAnswerBeforeAnythingWasHeldIsRefused() throws {
        var h = try provisional()
        #expect(throws: ObservationProblem.self) { try h.feed(.answer(PromptAnswer(time: T.at(50), choice: .allowAlways))) }
    }

    @Test func recordsStillShowTheTrueStateWhenDeliveryIsWithheld() throws {
        var h = try provisional()
        try h.feed(T.fix(0, 0, at: 100))
        #expect(h.engine.state(of: "a", device: "d") == .satisfied)
    }

    /// A notDetermined `Monitor` in provisional always, in the background, with the conditions of
    /// `provisional(capacity:maximumAge:)`.
    func provisionalMonitor(capacity: Int = 1) async throws -> Monitor {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        policy.holdingCapacity = capacity
        let monitor = Monitor(name: "holding", policy: policy)
        try await monitor.add(try .circle(0, 0, radius: 100), identifier: "a", assuming: .unsatisfied)
        try await monitor.add(try .circle(1, 1, radius: 100), identifier: "b", assuming: .unsatisfied)
        try await monitor.process(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try await monitor.process(.request(AuthorizationRequest(time: T.at(1), kind: .always)))
        try await monitor.process(.answer(PromptAnswer(time: T.at(2), choice: .allowWhileUsing)))
        try await monitor.process(.app(AppStateChange(time: T.at(3), state: .background)))
        return monitor
    }

    func lastEvent(_ monitor: Monitor, _ identifier: String = "a") async -> String {
        guard let e = await monitor.record(for: identifier)?.lastEvent else { return "none" }
        return "\(e.state.rawValue) @\(e.date.span(since: T.at(0)).seconds) \(e.delivery.verdict.rawValue) \(e.delivery.reason?.rawValue ?? "-")"
    }

    /// SPEC §3: the record shows the true state. A displaced event's final line comes out after the
    /// event that displaced it; it must not become the record's last event.
    @Test func aDisplacedEventsFinalLineLeavesTheNewerEventInTheRecord() async throws {
        let monitor = try await provisionalMonitor()
        try await monitor.process(T.fix(0, 0, at: 100))
        #expect(await lastEvent(monitor) == "satisfied @100.0 held provisionalAlways")
        let lines = try await monitor.process(T.fix(5, 5, at: 200))
        #expect(lines.map(\.isFinalVerdict) == [false, true])  // the new held event, then the displaced one
        #expect(await monitor.record(for: "a")?.state == .unsatisfied)
        #expect(await lastEvent(monitor) == "unsatisfied @200.0 held provisionalAlways")
        // The newer event's own final line does update it.
        try await monitor.process(.answer(PromptAnswer(time: T.at(300), choice: .allowAlways)))
        #expect(await lastEvent(monitor) == "unsatisfied @200.0 delivered -")
    }

    /// The final line must be matched to the very event it resolves: at one instant, satisfied,
    /// unsatisfied, satisfied again — the third, still held, displaces the first, whose final line
    /// looks like the third (same state, date, refinement) but must not replace it in the record.
    @Test func aDisplacedEventsFinalLineLeavesAnEqualLookingNewerEventInTheRecord() async throws {
        let monitor = try await provisionalMonitor(capacity: 2)
        try await monitor.process(T.fix(0, 0, at: 100))
        try await monitor.process(T.fix(5, 5, at: 100))
        let lines = try await monitor.process(T.fix(0, 0, at: 100))
        #expect(lines.map(\.isFinalVerdict) == [false, true])  // the third held, then the first displaced
        #expect(lines.map(\.state) == [.satisfied, .satisfied])
        #expect(await monitor.heldEventCount == 2)
        #expect(await monitor.record(for: "a")?.lastEvent == lines.first)
        #expect(await lastEvent(monitor) == "satisfied @100.0 held provisionalAlways")
        // Allow Always delivers the second, then the third: the third's final line is the last event.
        try await monitor.process(.answer(PromptAnswer(time: T.at(300), choice: .allowAlways)))
        #expect(await lastEvent(monitor) == "satisfied @100.0 delivered -")
    }

    @Test func allowAlwaysDeliveringOlderHeldEventsLeavesTheLatestInTheRecord() async throws {
        // Both held, delivered oldest first: the record ends with the later one.
        let two = try await provisionalMonitor(capacity: 2)
        try await two.process(T.fix(0, 0, at: 100))
        try await two.process(T.fix(5, 5, at: 200))
        try await two.process(.answer(PromptAnswer(time: T.at(300), choice: .allowAlways)))
        #expect(await lastEvent(two) == "unsatisfied @200.0 delivered -")
        // Held, then a newer event delivered in use: the held one's later delivery does not hide it.
        let monitor = try await provisionalMonitor()
        try await monitor.process(T.fix(0, 0, at: 100))
        try await monitor.process(.app(AppStateChange(time: T.at(150), state: .foreground)))
        try await monitor.process(T.fix(5, 5, at: 160))
        try await monitor.process(.answer(PromptAnswer(time: T.at(170), choice: .allowAlways)))
        #expect(await monitor.record(for: "a")?.state == .unsatisfied)
        #expect(await lastEvent(monitor) == "unsatisfied @160.0 delivered -")
    }

    @Test func authorizationChangesAreReportedWithTheLapseDatedAtTheEndOfUse() throws {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        var h = try Harness(policy: policy, [])
        try h.feed(.app(AppStateChange(time: T.at(0), state: .foreground)))
        try h.feed(.request(AuthorizationRequest(time: T.at(1), kind: .whenInUse)))
        try h.feed(.answer(PromptAnswer(time: T.at(2), choice: .allowOnce)))
        try h.feed(.app(AppStateChange(time: T.at(10), state: .background)))
        try h.feed(T.fix(0, 0, at: 60))
        var changes: [AuthorizationChange] = []
        h.engine.takeAuthorizationChanges(into: &changes)
        let summary = changes.map { "\($0.status.rawValue) temp=\($0.isTemporary) use=\($0.isInUse) @\($0.date.span(since: T.at(0)).seconds)" }
        #expect(summary == ["notDetermined temp=false use=false @0.0",
                            "notDetermined temp=false use=true @0.0",
                            "whenInUse temp=true use=true @2.0",
                            "notDetermined temp=false use=false @15.0"])
        #expect(h.engine.requestOutcomes == [.prompted: 1])
    }
}
