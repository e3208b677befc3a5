import Foundation
import Testing
@testable import Perimeter

/// SPEC §3: the authorization state machine's transitions, its illegal sequences, and the verdicts.
@Suite struct AuthorizationTransitionTests {
    let grace = TimeSpan(seconds: 5)

    func fresh(foreground: Bool = true) -> DeviceAuthorization {
        var a = DeviceAuthorization(.notDetermined)
        if foreground { a.setAppState(.foreground, at: T.at(0)) }
        return a
    }

    func answer(_ choice: PromptAnswer.Choice, precise: Bool? = nil) -> PromptAnswer {
        PromptAnswer(time: T.at(1), choice: choice, precise: precise)
    }

    /// (request, answer, precise) → status, temporary, provisional, accuracy.
    static let firstPromptTable: [(AuthorizationRequest.Kind, PromptAnswer.Choice, Bool?, AuthorizationStatus, Bool, Bool, AccuracyAuthorization)] = [
        (.whenInUse, .allowOnce, nil, .whenInUse, true, false, .full),
        (.whenInUse, .allowWhileUsing, nil, .whenInUse, false, false, .full),
        (.whenInUse, .allowWhileUsing, false, .whenInUse, false, false, .reduced),
        (.whenInUse, .deny, nil, .denied, false, false, .full),
        (.always, .allowOnce, nil, .whenInUse, true, false, .full),  // Allow Once never enters provisional
        (.always, .allowOnce, false, .whenInUse, true, false, .reduced),
        (.always, .allowWhileUsing, nil, .always, false, true, .full),  // provisional always
        (.always, .deny, nil, .denied, false, false, .full),
    ]

    @Test(arguments: firstPromptTable.indices)
    func firstPromptTransitions(_ i: Int) throws {
        let (request, choice, precise, status, temporary, provisional, accuracy) = Self.firstPromptTable[i]
        var a = fresh()
        let r1 = a.request(request)
        #expect(r1 == .prompted)
        #expect(a.prompt == .first(alwaysIntent: request == .always))
        let r2 = try a.answer(answer(choice, precise: precise))
        #expect(r2 == nil)
        #expect(a.status == status)
        #expect(a.isTemporary == temporary)
        #expect(a.isProvisional == provisional)
        #expect(a.accuracy == accuracy)
        #expect(a.prompt == nil)
    }

    @Test func requestsRaiseNothingOutsideTheForeground() {
        for state in [AppState.background, .indicator, .terminated] {
            var a = fresh()
            a.setAppState(state, at: T.at(1))
            let r3 = a.request(.whenInUse)
            #expect(r3 == .insufficientlyInUse)
            #expect(a.prompt == nil)
        }
        // Nor in the grace period.
        var a = fresh()
        a.setAppState(.background, at: T.at(1))
        #expect(a.isInUse(at: T.at(3), grace: grace))
        let r4 = a.request(.always)
        #expect(r4 == .insufficientlyInUse)
    }

    @Test func alwaysFromPermanentWhenInUsePromptsAtOnceAndOnlyOnce() throws {
        var a = fresh()
        _ = a.request(.whenInUse)
        _ = try a.answer(answer(.allowWhileUsing))
        let r5 = a.request(.always)
        #expect(r5 == .prompted)
        #expect(a.prompt == .always(deferred: false))
        let r6 = try a.answer(answer(.keepWhileUsing))
        #expect(r6 == nil)
        #expect(a.status == .whenInUse)
        #expect(a.request(.always) == .noEffect)  // once per device
        #expect(a.prompt == nil)
    }

    @Test func alwaysFromTemporaryWhenInUseDoesNothing() throws {
        var a = fresh()
        _ = a.request(.whenInUse)
        _ = try a.answer(answer(.allowOnce))
        let r7 = a.request(.always)
        #expect(r7 == .noEffect)
    }

    @Test func whenInUseRequestOnlyFromNotDeterminedAndNotWhileAPromptIsOpen() throws {
        var a = fresh()
        let r8 = a.request(.whenInUse)
        #expect(r8 == .prompted)
        let r9 = a.request(.whenInUse)
        #expect(r9 == .noEffect)
        _ = try a.answer(answer(.deny))
        let r10 = a.request(.whenInUse)
        #expect(r10 == .noEffect)
    }

    @Test func provisionalAlwaysCanBeEnteredOnlyOnce() throws {
        var a = fresh()
        _ = a.request(.always)
        _ = try a.answer(answer(.allowWhileUsing))
        #expect(a.isProvisional && a.provisionalUsed)
        _ = a.apply(SettingsChange(time: T.at(2), status: .askNextTime))
        #expect(a.status == .notDetermined && !a.isProvisional)
        // A request for always has had its effect: nothing. When-in-use prompts, and Allow While Using
        // now grants plain when-in-use.
        let r11 = a.request(.always)
        #expect(r11 == .noEffect)
        let r12 = a.request(.whenInUse)
        #expect(r12 == .prompted)
        _ = try a.answer(answer(.allowWhileUsing))
        #expect(a.status == .whenInUse && !a.isProvisional)
    }

    @Test func deferredAlwaysPromptResolvesHeldEvents() throws {
        for (choice, status, resolution) in [(PromptAnswer.Choice.allowAlways, AuthorizationStatus.always, "deliver"),
                                             (.keepWhileUsing, .whenInUse, "drop alwaysAuthorizationDenied")] {
            var a = fresh()
            _ = a.request(.always)
            _ = try a.answer(answer(.allowWhileUsing))
            a.prompt = .always(deferred: true)  // as the engine opens it when it first holds an event
            let result = try a.answer(answer(choice))
            #expect(a.status == status && !a.isProvisional)
            switch result {
            case .deliver?: #expect(resolution == "deliver")
            case .drop(let reason)?: #expect(resolution == "drop \(reason.rawValue)")
            case nil: Issue.record("expected a resolution")
            }
        }
    }

    @Test(arguments: [(SettingsChange.Status.never, AuthorizationStatus.denied, "drop authorizationDenied"),
                      (.always, .always, "deliver"),
                      (.whenInUse, .whenInUse, "drop alwaysAuthorizationDenied"),
                      (.askNextTime, .notDetermined, "drop alwaysAuthorizationDenied")])
    func settingsStatusEndsProvisionalAndClosesItsPrompt(_ setting: SettingsChange.Status, _ status: AuthorizationStatus, _ expected: String) throws {
        var a = fresh()
        _ = a.request(.always)
        _ = try a.answer(answer(.allowWhileUsing))
        a.prompt = .always(deferred: true)
        let result = a.apply(SettingsChange(time: T.at(3), status: setting))
        #expect(a.status == status && !a.isProvisional && a.prompt == nil)
        switch result {
        case .deliver?: #expect(expected == "deliver")
        case .drop(let reason)?: #expect(expected == "drop \(reason.rawValue)")
        case nil: Issue.record("expected a resolution")
        }
    }

    @Test func settingsPreciseAndLocationServices() {
        var a = DeviceAuthorization(.always)
        _ = a.apply(SettingsChange(time: T.at(1), precise: false, locationServices: false))
        #expect(a.accuracy == .reduced && !a.locationServices && a.status == .always)
        _ = a.apply(SettingsChange(time: T.at(2), precise: true, locationServices: true))
        #expect(a.accuracy == .full && a.locationServices)
    }

    /// Precise turned on in Settings leaves the temporary full-accuracy prompt nothing to ask: it closes.
    @Test func fullAccuracyInSettingsClosesTheTemporaryFullAccuracyPrompt() throws {
        var a = DeviceAuthorization(.always)
        _ = a.apply(SettingsChange(time: T.at(1), precise: false))
        _ = a.request(.temporaryFullAccuracy)
        _ = a.apply(SettingsChange(time: T.at(2), locationServices: true))
        #expect(a.prompt == .temporaryFullAccuracy)  // other settings leave it open
        _ = a.apply(SettingsChange(time: T.at(3), precise: true))
        #expect(a.prompt == nil)
        #expect(throws: ObservationProblem.self) { try a.answer(answer(.allowOnce)) }
    }

    @Test func temporaryFullAccuracyPromptsOnlyUnderReducedAccuracyInTheForeground() throws {
        var a = DeviceAuthorization(.always)
        #expect(a.request(.temporaryFullAccuracy) == .noEffect)  // already full
        _ = a.apply(SettingsChange(time: T.at(1), precise: false))
        let r13 = a.request(.temporaryFullAccuracy)
        #expect(r13 == .prompted)
        _ = try a.answer(answer(.allowOnce))
        #expect(a.temporaryFullAccuracy)
        #expect(a.request(.temporaryFullAccuracy) == .noEffect)  // already granted
        a.setAppState(.terminated, at: T.at(2))
        let r14 = a.settle(at: T.at(2), grace: grace)
        #expect(r14)
        #expect(!a.temporaryFullAccuracy)
        var b = fresh()
        #expect(b.request(.temporaryFullAccuracy) == .noEffect)  // not authorized at all
    }

    @Test func inUseFollowsForegroundIndicatorAndGrace() {
        var a = DeviceAuthorization(.notDetermined)
        #expect(!a.isInUse(at: T.at(0), grace: grace))
        a.setAppState(.foreground, at: T.at(0))
        a.setAppState(.background, at: T.at(10))
        #expect(a.isInUse(at: T.at(15), grace: grace))  // 5 s grace, inclusive
        #expect(!a.isInUse(at: T.at(15.001), grace: grace))
        a.setAppState(.indicator, at: T.at(20))
        #expect(a.isInUse(at: T.at(1000), grace: grace))
        a.setAppState(.background, at: T.at(1000))  // the indicator ending: no grace
        #expect(!a.isInUse(at: T.at(1000), grace: grace))
        a.setAppState(.foreground, at: T.at(1001))
        a.setAppState(.terminated, at: T.at(1002))
        #expect(!a.isInUse(at: T.at(1002), grace: grace))
    }

    @Test func allowOnceLapsesWhenTheAppStopsBeingInUse() throws {
        var a = fresh()
        _ = a.request(.whenInUse)
        _ = try a.answer(answer(.allowOnce))
        a.setAppState(.background, at: T.at(10))
        let stillInGrace = a.settle(at: T.at(14), grace: grace)
        #expect(!stillInGrace)
        #expect(a.status == .whenInUse)
        let r15 = a.settle(at: T.at(16), grace: grace)
        #expect(r15)
        #expect(a.status == .notDetermined && !a.isTemporary)
    }

    /// Every illegal sequence is a refused record naming its field, never a crash.
    @Test func illegalAnswersAreRefusedWithTheirField() throws {
        func refused(_ a: inout DeviceAuthorization, _ answer: PromptAnswer) -> ObservationProblem? {
            do {
                _ = try a.answer(answer)
                return nil
            } catch {
                return error
            }
        }
        var a = fresh()
        #expect(refused(&a, answer(.allowWhileUsing))?.message.contains("none is open") == true)
        #expect(refused(&a, answer(.allowAlways))?.field == "choice")  // an always answer before anything was held
        _ = a.request(.whenInUse)
        #expect(refused(&a, answer(.allowAlways))?.message.contains("offers allowOnce, allowWhileUsing, deny") == true)
        #expect(a.prompt == .first(alwaysIntent: false))  // a refused answer leaves the prompt open
        _ = try a.answer(answer(.allowWhileUsing))
        _ = a.request(.always)
        #expect(refused(&a, answer(.allowAlways, precise: false))?.field == "precise")
        #expect(refused(&a, answer(.deny))?.field == "choice")
        var b = DeviceAuthorization(.always)
        _ = b.apply(SettingsChange(time: T.at(1), precise: false))
        _ = b.request(.temporaryFullAccuracy)
        #expect(refused(&b, answer(.allowWhileUsing))?.field == "choice")
    }

    static let verdictTable: [(String, @Sendable (inout DeviceAuthorization) -> Void, Delivery.Verdict, Delivery.Reason?, Diagnostics)] = [
        ("services off", { $0.locationServices = false }, .dropped, .authorizationDenied, [.authorizationDenied, .authorizationDeniedGlobally]),
        ("denied", { $0.status = .denied }, .dropped, .authorizationDenied, [.authorizationDenied]),
        ("restricted", { $0.status = .restricted }, .dropped, .authorizationRestricted, [.authorizationRestricted]),
        ("not determined", { $0.status = .notDetermined }, .dropped, .notDetermined, [.insufficientlyInUse]),
        ("not determined, prompt open", { $0.status = .notDetermined; $0.prompt = .first(alwaysIntent: false) },
         .dropped, .notDetermined, [.authorizationRequestInProgress]),
        ("reduced", { $0.accuracy = .reduced }, .dropped, .accuracyLimited, [.accuracyLimited]),
        ("reduced with temporary full", { $0.accuracy = .reduced; $0.temporaryFullAccuracy = true }, .delivered, nil, []),
        ("always in background", { $0.setAppState(.terminated, at: T.at(0)) }, .delivered, nil, []),
        ("when in use, in use", { $0.status = .whenInUse }, .delivered, nil, []),
        ("when in use, background", { $0.status = .whenInUse; $0.setAppState(.terminated, at: T.at(0)) },
         .dropped, .insufficientlyInUse, [.insufficientlyInUse]),
        ("provisional, in use", { $0.isProvisional = true }, .delivered, nil, []),
        ("provisional, background", { $0.isProvisional = true; $0.setAppState(.terminated, at: T.at(0)) },
         .held, .provisionalAlways, [.insufficientlyInUse]),
    ]

    @Test(arguments: verdictTable.indices)
    func verdictRulesInOrder(_ i: Int) {
        let (name, setup, verdict, reason, diagnostics) = Self.verdictTable[i]
        var a = DeviceAuthorization(.always)
        setup(&a)
        let delivery = a.verdict(at: T.at(100), grace: grace)
        #expect(delivery == Delivery(verdict: verdict, reason: reason, diagnostics: diagnostics), "\(name)")
    }
}

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
