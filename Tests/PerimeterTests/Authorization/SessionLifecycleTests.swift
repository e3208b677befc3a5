import Foundation
import Testing
@testable import Perimeter

/// docs/sessions.md (SPEC §5.5): the implicit session of an app iterating its events, sessions
/// remembered across termination and lost after the relaunch window, the indicator's start and
/// rejoin rules, and the Info.plist keys an `appConfig` record carries.
@Suite struct SessionLifecycleTests {
    func harness(initial: InitialAuthorization = .always, profile: PlatformProfile = .ios18) throws -> Harness {
        var policy = MonitoringPolicy()
        policy.profile = profile
        policy.initialAuthorization = initial
        return try Harness(policy: policy, [("a", try .circle(0, 0, radius: 100), .unsatisfied)])
    }

    func session(_ action: ServiceSessionRecord.Action, _ id: String, _ goal: ServiceSessionRecord.Goal = .always, at t: Double) -> Observation {
        .session(ServiceSessionRecord(time: T.at(t), action: action, id: id, goal: goal))
    }

    func app(_ state: AppState, at t: Double) -> Observation { .app(AppStateChange(time: T.at(t), state: state)) }

    func plist(at t: Double, explicit: Bool? = nil, background: Bool? = nil, reduced: Bool? = nil, purposes: [String]? = nil) -> Observation {
        .appConfig(AppConfiguration(time: T.at(t), explicitSessionsRequired: explicit, backgroundLocation: background,
                                    reducedAccuracyByDefault: reduced, fullAccuracyPurposes: purposes))
    }

    /// An event inside and one outside the circle, alternately, so that each fix makes one.
    func event(_ h: inout Harness, at t: Double) throws -> String {
        let inside = h.engine.state(of: "a", device: "d") != .satisfied
        try h.feed(inside ? T.fix(0, 0, at: t) : T.fix(0.01, 0, at: t))
        guard let e = h.events.last, e.date == T.at(t) else { return "none" }
        return "\(e.delivery.verdict.rawValue) \(e.delivery.reason?.rawValue ?? "-")"
    }

    @Test func theImplicitSessionAsksForWhenInUseWhenTheAppComesToTheForeground() throws {
        var h = try harness(initial: .notDetermined)
        try h.feed(app(.foreground, at: 1))
        #expect(h.engine.requestOutcomes == [.prompted: 1])
        #expect(try event(&h, at: 2) == "dropped notDetermined")
        try h.feed(.answer(PromptAnswer(time: T.at(3), choice: .allowWhileUsing)))
        try h.feed(app(.background, at: 4))
        #expect(try event(&h, at: 100) == "dropped insufficientlyInUse", "when-in-use, not provisional always")
        // With explicit sessions required, nothing is asked.
        var explicit = try harness(initial: .notDetermined)
        try explicit.feed(plist(at: 0, explicit: true))
        try explicit.feed(app(.foreground, at: 1))
        #expect(explicit.engine.requestOutcomes.isEmpty)
    }

    /// Entering the foreground, an explicit always session asks before the implicit one, so that the
    /// first prompt carries the always intent (the strongest goal held).
    @Test func anAlwaysSessionAsksBeforeTheImplicitOne() throws {
        var h = try harness(initial: .notDetermined)
        try h.feed(session(.start, "s", at: 1))  // in the background: counted insufficientlyInUse
        try h.feed(app(.foreground, at: 2))
        #expect(h.engine.requestOutcomes == [.insufficientlyInUse: 1, .prompted: 1, .noEffect: 1])
        try h.feed(.answer(PromptAnswer(time: T.at(3), choice: .allowWhileUsing)))
        #expect(h.engine.devices[0].authorization.isProvisional)
    }

    /// The implicit session, in effect since the app was in the foreground, lets an always session
    /// taken in the background count; after a relaunch in the background it is not in effect.
    @Test func theImplicitSessionInEffectLetsABackgroundSessionCount() throws {
        var h = try harness()
        try h.feed(app(.background, at: 1))
        try h.feed(session(.start, "late", at: 10))
        #expect(try event(&h, at: 20) == "delivered -")
        var relaunched = try harness()
        try relaunched.feed(app(.terminated, at: 1))
        try relaunched.feed(app(.background, at: 5))
        try relaunched.feed(session(.start, "late", at: 10))
        #expect(try event(&relaunched, at: 20) == "dropped serviceSessionRequired")
    }

    @Test func aSessionHeldAtTerminationMustBeTakenAgainWithinTheWindow() throws {
        for (retake, window, expected) in [(8.0, nil as Double?, "delivered -"), (12, nil, "dropped serviceSessionRequired"),
                                           (12, 15, "delivered -")] {
            var h = try harness(profile: window.map { PlatformProfile.ios18.withRelaunchWindow($0) } ?? .ios18)
            try h.feed(plist(at: 0, explicit: true))
            try h.feed(session(.start, "workout", at: 0))
            try h.feed(app(.terminated, at: 1))
            #expect(try event(&h, at: 50) == "delivered -", "while terminated, the remembered session counts")
            try h.feed(app(.background, at: 100))  // the launch
            #expect(try event(&h, at: 105) == "delivered -", "within the window")
            try h.feed(session(.start, "workout", at: 100 + retake))
            #expect(try event(&h, at: 200) == expected, "taken again \(retake) s after the launch, window \(window ?? 10)")
        }
        // Taken again with another goal: a bad record.
        var h = try harness()
        try h.feed(session(.start, "workout", at: 0))
        try h.feed(app(.terminated, at: 1))
        try h.feed(app(.background, at: 2))
        #expect(throws: ObservationProblem.self) { try h.feed(session(.start, "workout", .whenInUse, at: 3)) }
    }

    @Test func theIndicatorStartsInTheForegroundAndIsRejoinedAfterARelaunch() throws {
        var h = try harness()
        try h.feed(.settings(SettingsChange(time: T.at(0), status: .whenInUse)))
        try h.feed(app(.background, at: 1))
        try h.feed(app(.indicator, at: 10))
        #expect(h.engine.devices[0].authorization.appState == .background, "not from the background")
        try h.feed(app(.foreground, at: 20))
        try h.feed(app(.indicator, at: 21))
        #expect(try event(&h, at: 30) == "delivered -")
        try h.feed(app(.terminated, at: 40))
        try h.feed(app(.background, at: 100))
        try h.feed(app(.indicator, at: 105))
        #expect(try event(&h, at: 106) == "delivered -", "rejoined within the window")
        try h.feed(app(.terminated, at: 200))
        try h.feed(app(.background, at: 300))
        try h.feed(app(.indicator, at: 311))
        #expect(try event(&h, at: 312) == "dropped insufficientlyInUse", "too late to rejoin")
    }

    @Test func theInfoPlistKeysApplyUnderEveryProfile() throws {
        for profile in [PlatformProfile.standard, .ios17, .ios18] {
            var h = try harness(initial: .notDetermined, profile: profile)
            try h.feed(plist(at: 0, explicit: true, background: false, reduced: true, purposes: ["Nav"]))
            try h.feed(app(.foreground, at: 1))
            try h.feed(.request(AuthorizationRequest(time: T.at(2), kind: .whenInUse)))
            #expect(throws: ObservationProblem.self) { try h.feed(.answer(PromptAnswer(time: T.at(3), choice: .allowWhileUsing, precise: false))) }
            try h.feed(.answer(PromptAnswer(time: T.at(4), choice: .allowWhileUsing)))
            #expect(h.engine.devices[0].authorization.accuracy == .reduced)
            try h.feed(.request(AuthorizationRequest(time: T.at(5), kind: .temporaryFullAccuracy, purpose: "Other")))
            try h.feed(.request(AuthorizationRequest(time: T.at(6), kind: .temporaryFullAccuracy, purpose: "Nav")))
            #expect(h.engine.requestOutcomes == [.prompted: 2, .noEffect: 1], "\(profile.name)")
            try h.feed(app(.indicator, at: 7))
            #expect(h.engine.devices[0].authorization.appState == .background, "no location background mode")
        }
    }
}
