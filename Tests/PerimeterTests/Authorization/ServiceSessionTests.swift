import Foundation
import Testing
@testable import Perimeter

/// SPEC §3's 2024 model (profile ios18): `always` reaches the background only through a session with
/// goal always that was started in the foreground or while another session was in effect (004).
@Suite struct ServiceSessionTests {
    /// An ios18 device; `explicitOnly` (the Info.plist's `NSLocationRequireExplicitServiceSession`)
    /// leaves out the implicit session, so that only the records' sessions count
    /// (`ImplicitSessionTests` has the implicit one).
    func harness(initial: InitialAuthorization = .always, explicitOnly: Bool = true) throws -> Harness {
        var policy = MonitoringPolicy()
        policy.profile = .ios18
        policy.initialAuthorization = initial
        var h = try Harness(policy: policy, [("a", try .circle(0, 0, radius: 100), .unsatisfied)])
        if explicitOnly { try h.feed(.appConfig(AppConfiguration(time: T.at(0), explicitSessionsRequired: true))) }
        return h
    }

    func session(_ action: ServiceSessionRecord.Action, _ id: String, _ goal: ServiceSessionRecord.Goal = .always,
                 at t: Double, purpose: String? = nil) -> Observation {
        .session(ServiceSessionRecord(time: T.at(t), action: action, id: id, goal: goal, fullAccuracyPurpose: purpose))
    }

    func app(_ state: AppState, at t: Double) -> Observation { .app(AppStateChange(time: T.at(t), state: state)) }

    func lastVerdict(_ h: Harness) -> String {
        guard let e = h.events.last else { return "none" }
        return "\(e.delivery.verdict.rawValue) \(e.delivery.reason?.rawValue ?? "-") \(e.delivery.diagnostics.names)"
    }

    @Test func alwaysWithoutASessionIsDroppedInTheBackgroundButDeliveredInUse() throws {
        var h = try harness()
        try h.feed(T.fix(0, 0, at: 1))
        #expect(lastVerdict(h) == "delivered - []")
        try h.feed(app(.background, at: 2))
        try h.feed(T.fix(5, 5, at: 100))
        #expect(lastVerdict(h) == "dropped serviceSessionRequired [\"serviceSessionRequired\"]")
    }

    @Test func aSessionStartedInTheForegroundCarriesAlwaysIntoTheBackgroundUntilItEnds() throws {
        var h = try harness()
        try h.feed(session(.start, "workout", at: 0))
        try h.feed(app(.background, at: 1))
        try h.feed(T.fix(0, 0, at: 100))
        #expect(lastVerdict(h) == "delivered - []")
        try h.feed(session(.end, "workout", at: 101))
        try h.feed(T.fix(5, 5, at: 200))
        #expect(lastVerdict(h) == "dropped serviceSessionRequired [\"serviceSessionRequired\"]")
    }

    @Test func aSessionStartedInTheBackgroundCountsOnlyWhileAnotherIsInEffect() throws {
        var h = try harness()
        try h.feed(app(.background, at: 0))
        try h.feed(session(.start, "late", at: 10))
        try h.feed(T.fix(0, 0, at: 20))
        #expect(lastVerdict(h).hasPrefix("dropped serviceSessionRequired"))
        var nested = try harness()
        try nested.feed(session(.start, "feature", .whenInUse, at: 0))
        try nested.feed(app(.background, at: 1))
        try nested.feed(session(.start, "nested", .always, at: 10))
        try nested.feed(T.fix(0, 0, at: 20))
        #expect(lastVerdict(nested) == "delivered - []")
    }

    /// 004: "you can only start holding one when your app is in the foreground". Coming to the
    /// foreground later does not make a session started in the background count.
    @Test func aSessionStartedInTheBackgroundDoesNotCountAfterTheAppComesToTheForeground() throws {
        var h = try harness()
        try h.feed(app(.background, at: 1))
        try h.feed(session(.start, "late", at: 101))
        try h.feed(app(.foreground, at: 201))
        try h.feed(app(.background, at: 202))
        try h.feed(T.fix(0, 0, at: 300))
        #expect(lastVerdict(h) == "dropped serviceSessionRequired [\"serviceSessionRequired\"]")
        // Started anew in the foreground, it counts.
        try h.feed(session(.end, "late", at: 301))
        try h.feed(app(.foreground, at: 302))
        try h.feed(session(.start, "late", at: 303))
        try h.feed(app(.background, at: 304))
        try h.feed(T.fix(5, 5, at: 400))
        #expect(lastVerdict(h) == "delivered - []")
    }

    @Test func comingToTheForegroundAsksAgainForTheHeldSessionsGoals() throws {
        var h = try harness(initial: .notDetermined)
        try h.feed(session(.start, "nav", .whenInUse, at: 0))  // in the background: nothing can be asked
        #expect(h.engine.requestOutcomes == [.insufficientlyInUse: 1])
        try h.feed(app(.foreground, at: 5))
        #expect(h.engine.requestOutcomes == [.insufficientlyInUse: 1, .prompted: 1])
        try h.feed(.answer(PromptAnswer(time: T.at(6), choice: .allowWhileUsing)))
        try h.feed(T.fix(0, 0, at: 7))
        #expect(lastVerdict(h) == "delivered - []")
    }

    @Test func badSessionSequencesAreRefused() throws {
        var h = try harness()
        try h.feed(session(.start, "s", at: 0))
        #expect(throws: ObservationProblem.self) { try h.feed(session(.start, "s", at: 1)) }
        #expect(throws: ObservationProblem.self) { try h.feed(session(.end, "other", at: 2)) }
        var standard = try Harness([])
        #expect(throws: ObservationProblem.self) { try standard.feed(session(.start, "s", at: 0)) }
    }
}
