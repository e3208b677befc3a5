import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// What `AuthorizationOracleTests` and its oracle speak of: the records one device sends, the lines
/// and authorization changes compared, and the settings of one run. (Kept in the suite's namespace:
/// short names such as `Line` and `Settings` are the oracle's alone.)
extension AuthorizationOracleTests {
    static let base: Int64 = 1_772_352_000_000_000_000  // 2026-03-01T08:00:00Z
    static let second: Int64 = 1_000_000_000
    static let centre = Coordinate(latitude: 45, longitude: 5)
    static let away = Coordinate(latitude: 45 + 1000 / Geodesy.metresPerDegree, longitude: 5)
    static let beaconUUID = UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5")!
    static let otherUUID = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    // MARK: Records

    enum Side: String { case inside, outside, invalid }

    /// A sighted beacon: the condition's UUID (or another), a major and a minor.
    struct Beacon: Equatable {
        var otherUUID: Bool
        var major: UInt16
        var minor: UInt16

        var identity: BeaconIdentity {
            BeaconIdentity(uuid: otherUUID ? AuthorizationOracleTests.otherUUID : AuthorizationOracleTests.beaconUUID,
                           major: major, minor: minor)
        }
    }

    /// One generated record; times are nanoseconds after `base`.
    enum Rec: CustomStringConvertible {
        case fix(Int64, Side)
        case sighting(Int64, Beacon)
        case app(Int64, AppState)
        case request(Int64, AuthorizationRequest.Kind)
        case answer(Int64, PromptAnswer.Choice, Bool?)
        case settings(Int64, SettingsChange.Status?, Bool?, Bool?)
        case session(Int64, ServiceSessionRecord.Action, String, ServiceSessionRecord.Goal, Bool)
        /// The Info.plist's `NSLocationRequireExplicitServiceSession` (docs/sessions.md).
        case explicitSessions(Int64, Bool)

        var time: Int64 {
            switch self {
            case .fix(let t, _), .sighting(let t, _), .app(let t, _), .request(let t, _), .answer(let t, _, _),
                 .settings(let t, _, _, _), .session(let t, _, _, _, _), .explicitSessions(let t, _): t
            }
        }

        /// The same record at another time.
        func at(_ t: Int64) -> Rec {
            switch self {
            case .fix(_, let x): .fix(t, x)
            case .sighting(_, let x): .sighting(t, x)
            case .app(_, let x): .app(t, x)
            case .request(_, let x): .request(t, x)
            case .answer(_, let x, let y): .answer(t, x, y)
            case .settings(_, let x, let y, let z): .settings(t, x, y, z)
            case .session(_, let a, let b, let c, let d): .session(t, a, b, c, d)
            case .explicitSessions(_, let x): .explicitSessions(t, x)
            }
        }

        var observation: Observation {
            let ts = Timestamp(nanosecondsSinceEpoch: base + time)
            switch self {
            case .fix(_, let side):
                return .fix(Fix(time: ts, coordinate: side == .outside ? away : centre,
                                horizontalAccuracy: side == .invalid ? -1 : 0))
            case .sighting(_, let b): return .sighting(BeaconSighting(time: ts, identity: b.identity, rssi: -60))
            case .app(_, let state): return .app(AppStateChange(time: ts, state: state))
            case .request(_, let kind):
                return .request(AuthorizationRequest(time: ts, kind: kind, purpose: kind == .temporaryFullAccuracy ? "nav" : nil))
            case .answer(_, let choice, let precise): return .answer(PromptAnswer(time: ts, choice: choice, precise: precise))
            case .settings(_, let s, let p, let l):
                return .settings(SettingsChange(time: ts, status: s, precise: p, locationServices: l))
            case .session(_, let action, let id, let goal, let purpose):
                return .session(ServiceSessionRecord(time: ts, action: action, id: id, goal: goal,
                                                     fullAccuracyPurpose: purpose ? "nav" : nil))
            case .explicitSessions(_, let required):
                return .appConfig(AppConfiguration(time: ts, explicitSessionsRequired: required))
            }
        }

        var description: String {
            let t = String(format: "t=%.9f", Double(time) / 1e9)
            switch self {
            case .fix(_, let side): return "\(t) fix \(side.rawValue)"
            case .sighting(_, let b): return "\(t) sighting\(b.otherUUID ? " otherUUID" : "") major=\(b.major) minor=\(b.minor)"
            case .app(_, let s): return "\(t) app \(s.rawValue)"
            case .request(_, let k): return "\(t) request \(k.rawValue)"
            case .answer(_, let c, let p): return "\(t) answer \(c.rawValue)\(p.map { " precise=\($0)" } ?? "")"
            case .settings(_, let s, let p, let l):
                return "\(t) settings" + (s.map { " status=\($0.rawValue)" } ?? "") + (p.map { " precise=\($0)" } ?? "")
                    + (l.map { " locationServices=\($0)" } ?? "")
            case .session(_, let a, let id, let g, let p):
                return "\(t) session \(a.rawValue) \(id) goal=\(g.rawValue)\(p ? " fullAccuracyPurpose" : "")"
            case .explicitSessions(_, let required): return "\(t) appConfig explicitSessionsRequired=\(required)"
            }
        }
    }

    /// One output line, as compared.
    struct Line: Equatable, CustomStringConvertible {
        var identifier: String
        var state: ConditionState
        var date: Int64
        var verdict: Delivery.Verdict
        var reason: Delivery.Reason?
        var diagnostics: Diagnostics
        var refinement: BeaconIdentity?
        var cause: Int
        var isFinal: Bool

        init(_ identifier: String = "c", state: ConditionState, date: Int64, _ delivery: Delivery,
             refinement: BeaconIdentity? = nil, cause: Int, isFinal: Bool) {
            self.identifier = identifier
            self.state = state
            self.date = date
            verdict = delivery.verdict
            reason = delivery.reason
            diagnostics = delivery.diagnostics
            self.refinement = refinement
            self.cause = cause
            self.isFinal = isFinal
        }

        init(_ e: MonitorEvent) {
            self.init(e.identifier, state: e.state, date: e.date.nanosecondsSinceEpoch - AuthorizationOracleTests.base, e.delivery,
                      refinement: e.refinement, cause: e.cause, isFinal: e.isFinalVerdict)
        }

        /// A beacon exit's own line (not the final line of a held one).
        var isExit: Bool { identifier == "b" && state == .unsatisfied && !isFinal }

        var description: String {
            "\(identifier) \(state.rawValue) @\(String(format: "%.9f", Double(date) / 1e9)) \(verdict.rawValue) "
                + "\(reason?.rawValue ?? "-") \(diagnostics.names)"
                + "\(refinement.map { " refinement \($0.uuid == AuthorizationOracleTests.beaconUUID ? "" : "other:")\($0.major).\($0.minor)" } ?? "")"
                + " cause \(cause)\(isFinal ? " final" : "")"
        }
    }

    /// One entry of the authorization-change stream, as compared.
    struct Change: Equatable, CustomStringConvertible {
        var status: AuthorizationStatus
        var temporary: Bool
        var provisional: Bool
        var accuracy: AccuracyAuthorization
        var temporaryFull: Bool
        var services: Bool
        var inUse: Bool
        var date: Int64
        var cause: Int

        init(status: AuthorizationStatus, temporary: Bool, provisional: Bool, accuracy: AccuracyAuthorization,
             temporaryFull: Bool, services: Bool, inUse: Bool, date: Int64, cause: Int) {
            self.status = status
            self.temporary = temporary
            self.provisional = provisional
            self.accuracy = accuracy
            self.temporaryFull = temporaryFull
            self.services = services
            self.inUse = inUse
            self.date = date
            self.cause = cause
        }

        init(_ c: AuthorizationChange) {
            self.init(status: c.status, temporary: c.isTemporary, provisional: c.isProvisional, accuracy: c.accuracy,
                      temporaryFull: c.temporaryFullAccuracy, services: c.locationServicesEnabled, inUse: c.isInUse,
                      date: c.date.nanosecondsSinceEpoch - AuthorizationOracleTests.base, cause: c.cause)
        }

        /// The same authorization, whatever the date and cause.
        func same(as other: Change) -> Bool {
            var o = other
            o.date = date
            o.cause = cause
            return o == self
        }

        var description: String {
            "\(status.rawValue)\(temporary ? " temporary" : "")\(provisional ? " provisional" : "") \(accuracy.rawValue)"
                + "\(temporaryFull ? " temporaryFull" : "")\(services ? "" : " servicesOff") inUse=\(inUse) "
                + "@\(String(format: "%.9f", Double(date) / 1e9)) cause \(cause)"
        }
    }

    struct Settings {
        var initial: InitialAuthorization
        var ios18: Bool
        var capacity: Int
        var grace: Int64
        var maximumAge: Int64
        /// The beacon condition "b": its exit timeout, its major (nil: any) and its starting state.
        var timeout: Int64 = 30 * second
        var major: UInt16? = 1
        var assuming: ConditionState = .unsatisfied

        var policy: MonitoringPolicy {
            var p = MonitoringPolicy()
            p.initialAuthorization = initial
            p.profile = ios18 ? .ios18 : .standard
            p.holdingCapacity = capacity
            p.gracePeriod = Double(grace) / 1e9
            p.maximumHoldingAge = Double(maximumAge) / 1e9
            p.beaconExitTimeout = Double(timeout) / 1e9
            return p
        }

        var beaconCondition: Condition {
            .beacon(major.map { BeaconIdentityCondition(uuid: beaconUUID, major: $0) } ?? BeaconIdentityCondition(uuid: beaconUUID))
        }

        func matches(_ b: Beacon) -> Bool { !b.otherUUID && major.map { $0 == b.major } ?? true }

        /// An engine with the circle "c" (starting unsatisfied) and the beacon "b", in that order.
        func engine() throws -> MonitoringEngine {
            var engine = MonitoringEngine(policy: policy)
            try engine.add(.circle(CircularGeographicCondition(center: centre, radius: 100)), identifier: "c", assuming: .unsatisfied)
            try engine.add(beaconCondition, identifier: "b", assuming: assuming)
            return engine
        }

        var description: String {
            "initialAuthorization=\(initial.rawValue) profile=\(ios18 ? "ios18" : "standard") holdingCapacity=\(capacity) "
                + "gracePeriod=\(Double(grace) / 1e9) maximumHoldingAge=\(Double(maximumAge) / 1e9) "
                + "beaconExitTimeout=\(Double(timeout) / 1e9) b: major=\(major.map(String.init) ?? "any") assuming=\(assuming.rawValue)"
        }
    }
}
