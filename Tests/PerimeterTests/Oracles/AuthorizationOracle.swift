import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

// The oracle of `AuthorizationOracleTests`, SPEC §3 for one device, in three files: its state and
// verdicts (here), stream time running to a record (`AuthorizationOracle+Time.swift`), and each
// record's effect (`AuthorizationOracle+Records.swift`).
extension AuthorizationOracleTests {
    /// SPEC §3 for one device, written as it reads.
    struct Oracle {
        // (The suite's names, for this type's extensions in other files, which do not see them.)
        typealias Line = AuthorizationOracleTests.Line
        typealias Rec = AuthorizationOracleTests.Rec

        enum Prompt: Equatable {
            case first(alwaysIntent: Bool), always(deferred: Bool), fullAccuracy

            func offers(_ c: PromptAnswer.Choice) -> Bool {
                switch self {
                case .first: [.allowOnce, .allowWhileUsing, .deny].contains(c)
                case .always: [.allowAlways, .keepWhileUsing].contains(c)
                case .fullAccuracy: [.allowOnce, .deny].contains(c)
                }
            }
        }
        struct Held { var identifier: String; var state: ConditionState; var date: Int64; var refinement: BeaconIdentity? }
        /// `remembered`: held at a termination and not taken again since (docs/sessions.md).
        struct Session { var id: String; var goal: ServiceSessionRecord.Goal; var purpose: Bool; var counts: Bool; var remembered = false }

        let settings: Settings
        var status: AuthorizationStatus
        /// when-in-use from Allow Once.
        var temporary = false
        var provisional = false
        /// A request for always has had its effect (SPEC: "has effect once per device").
        var alwaysAsked = false
        var reduced = false
        var temporaryFull = false
        var services = true
        var app: AppState
        /// End of the grace period after foreground → background (inclusive).
        var graceUntil: Int64?
        /// For coverage only: the end of the grace of the latest foreground → background, and whether
        /// the app has been in the background again since, within that grace.
        var lastGraceEnd: Int64?
        var backgroundAgainInGrace = false
        var prompt: Prompt?
        var held: [Held] = []
        var sessions: [Session] = []
        /// ios18 (docs/sessions.md): the app has been in the foreground since its launch (its implicit
        /// session is in effect), when it was last launched after a termination, and whether it had the
        /// indicator when terminated.
        var foregroundSinceLaunch: Bool
        /// The Info.plist requires explicit sessions: no implicit one.
        var explicitSessionsRequired = false
        var launchedAt: Int64?
        var indicatorAtTermination = false
        /// The relaunch window, 10 s by default.
        let relaunchWindow: Int64 = 10 * second
        var condition = ConditionState.unsatisfied
        /// The beacon condition "b": its state and when its exit is due (nil: none).
        var beacon: ConditionState
        var beaconDue: Int64?
        /// The device's last record (accepted or not: stream time advanced to it), for the end of input.
        var lastTime: Int64?
        var lastCause = 0
        var lastRefused = false
        /// The authorization last reported (nil before the device's first record) and the changes
        /// reported for the current record.
        var reported: Change?
        var changes: [Change] = []
        var outcomes: [RequestOutcome: Int] = [:]
        /// Situations reached, so that the test can insist the generator reaches the edges.
        var coverage: [String: Int] = [:]

        init(_ settings: Settings) {
            self.settings = settings
            beacon = settings.assuming
            switch settings.initial {
            case .always: status = .always; app = .foreground
            case .notDetermined: status = .notDetermined; app = .background
            case .restricted: status = .restricted; app = .background
            }
            foregroundSinceLaunch = app == .foreground
        }

        /// A remembered session not taken again by the end of the window after the launch.
        func lost(_ s: Session, at t: Int64) -> Bool {
            guard s.remembered, let launchedAt else { return false }
            return t > launchedAt + relaunchWindow
        }

        func inUse(at t: Int64) -> Bool {
            switch app {
            case .foreground, .indicator: true
            case .background: graceUntil.map { t <= $0 } ?? false
            case .terminated: false
            }
        }

        /// Temporary grants lapse when the app stops being in use.
        mutating func lapse(at t: Int64) {
            guard !inUse(at: t) else { return }
            if temporary && status == .whenInUse { coverage["Allow Once lapsed", default: 0] += 1 }
            if (temporary || temporaryFull) && prompt != nil {
                coverage["temporary grant lapsed with a prompt open", default: 0] += 1
            }
            if temporaryFull { coverage["temporary full accuracy lapsed", default: 0] += 1 }
            if temporary && status == .whenInUse { status = .notDetermined }
            temporary = false
            temporaryFull = false
        }

        /// Rules 1–5 at time t.
        func verdict(at t: Int64) -> Delivery {
            if !services {
                return Delivery(verdict: .dropped, reason: .authorizationDenied, diagnostics: [.authorizationDenied, .authorizationDeniedGlobally])
            }
            switch status {
            case .denied: return Delivery(verdict: .dropped, reason: .authorizationDenied, diagnostics: .authorizationDenied)
            case .restricted: return Delivery(verdict: .dropped, reason: .authorizationRestricted, diagnostics: .authorizationRestricted)
            case .notDetermined:
                return Delivery(verdict: .dropped, reason: .notDetermined,
                                diagnostics: prompt != nil ? .authorizationRequestInProgress : .insufficientlyInUse)
            case .whenInUse, .always: break
            }
            if reduced && !temporaryFull { return Delivery(verdict: .dropped, reason: .accuracyLimited, diagnostics: .accuracyLimited) }
            if inUse(at: t) { return .delivered }
            if status == .whenInUse { return Delivery(verdict: .dropped, reason: .insufficientlyInUse, diagnostics: .insufficientlyInUse) }
            // always, not in use.
            if settings.ios18 && !sessions.contains(where: { $0.counts && $0.goal == .always && !lost($0, at: t) }) {
                return Delivery(verdict: .dropped, reason: .serviceSessionRequired, diagnostics: .serviceSessionRequired)
            }
            if provisional { return Delivery(verdict: .held, reason: .provisionalAlways, diagnostics: .insufficientlyInUse) }
            return .delivered
        }

        func snapshot(at t: Int64, cause: Int) -> Change {
            Change(status: status, temporary: temporary, provisional: provisional, accuracy: reduced ? .reduced : .full,
                   temporaryFull: temporaryFull, services: services, inUse: inUse(at: t), date: t, cause: cause)
        }

        /// Reports the authorization at t if any part of it changed, dated `date`.
        mutating func report(at t: Int64, dated date: Int64, cause: Int) {
            var now = snapshot(at: t, cause: cause)
            now.date = date
            if let r = reported, r.same(as: now) { return }
            reported = now
            changes.append(now)
        }
    }
}
