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
