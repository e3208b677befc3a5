import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// SPEC §3 (authorization and delivery) as a randomized differential test: the engine's verdicts,
/// final lines of held events, refused records and request outcomes against an oracle written from
/// the contract alone (SPEC §3 and "Policy values", README "Authorization: what the app would
/// actually get" and "Rules where SPEC leaves a choice", Fixtures/scenarios/README.md), not from the
/// engine's authorization code. One circle; fixes jump between its centre and 1 km away, so most fixes
/// are a change of state whose verdict is compared, field by field, record by record; so are the
/// authorization-change stream and the outcome (accepted or refused) of every record.
///
/// And one beacon identity condition "b" (SPEC §2): sightings satisfy it, and its exits fire between
/// records, at their due time (last matching sighting, or the device's first record, + the exit
/// timeout), with the verdict the authorization had at that instant — not at the record that fired
/// them: within the grace period or not, before or after a temporary grant lapsed, before or after a
/// held event expired (README: "expiries and beacon exits happen in time order (an expiry first at
/// the same instant)"), opening the deferred always prompt when held. Exits due at or before a
/// device's last record come out of `finish(into:)`, compared as well.
@Suite struct AuthorizationOracleTests {
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

        var time: Int64 {
            switch self {
            case .fix(let t, _), .sighting(let t, _), .app(let t, _), .request(let t, _), .answer(let t, _, _),
                 .settings(let t, _, _, _), .session(let t, _, _, _, _): t
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

    // MARK: The oracle (one device)

    /// SPEC §3 for one device, written as it reads.
    struct Oracle {
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
        struct Session { var id: String; var goal: ServiceSessionRecord.Goal; var purpose: Bool; var counts: Bool }

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
            if settings.ios18 && !sessions.contains(where: { $0.counts && $0.goal == .always }) {
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

        /// Stream time runs to t. Every beacon exit due strictly before t (SPEC §2) and every held event
        /// older than the maximum age (strictly beyond date + age) happen, in time order; an expiry comes
        /// first at the same instant (README "Held events"), the instant of an expiry being date + age
        /// (scenario 18). With one beacon condition there is at most one exit between two records.
        mutating func advance(to t: Int64, cause: Int, into lines: inout [Line]) {
            if let first = held.first, t == first.date + settings.maximumAge {
                coverage["record at exactly the maximum age", default: 0] += 1
            }
            if let due = beaconDue {
                if t == due - 1 { coverage["record 1 ns before an exit is due", default: 0] += 1 }
                if t == due { coverage["record at an exit's due instant", default: 0] += 1 }
                if t == due + 1 { coverage["exit due 1 ns before the record that fires it", default: 0] += 1 }
            }
            var exit = beaconDue.flatMap { $0 < t ? $0 : nil }
            var expiredAt: [Int64] = []
            var exitHeld: Int64?
            while true {
                let expiry = held.first.map { $0.date + settings.maximumAge }.flatMap { $0 < t ? $0 : nil }
                if let e = exit, expiry.map({ e < $0 }) ?? true {
                    exit = nil
                    if expiredAt.contains(e) { coverage["exit at the instant a held event expired (expiry first)", default: 0] += 1 }
                    if expiredAt.contains(e - 1) { coverage["exit 1 ns after a held event expired", default: 0] += 1 }
                    if let f = held.first, f.date + settings.maximumAge == e + 1 {
                        coverage["exit 1 ns before a held event expires", default: 0] += 1
                    }
                    let oldest = held.first
                    let d = fireExit(at: e, recordTime: t, cause: cause, into: &lines)
                    if d?.verdict == .held {
                        exitHeld = e
                        if expiredAt.contains(e) { coverage["held exit at the instant a held event expired", default: 0] += 1 }
                        if expiredAt.contains(e - 1) { coverage["held exit 1 ns after a held event expired", default: 0] += 1 }
                        if let last = lines.last, last.reason == .displaced, let f = oldest, last.date == f.date,
                           f.date + settings.maximumAge == e + 1 {
                            coverage["held exit displacing an event 1 ns before its expiry", default: 0] += 1
                        }
                    }
                    continue
                }
                guard let first = held.first, let expiry else { break }
                held.removeFirst()
                expiredAt.append(expiry)
                if first.identifier == "b" && first.date == exitHeld { coverage["held exit expired at the record that fired it", default: 0] += 1 }
                lines.append(Line(first.identifier, state: first.state, date: first.date,
                                  Delivery(verdict: .dropped, reason: .expired, diagnostics: .insufficientlyInUse),
                                  refinement: first.refinement, cause: cause, isFinal: true))
            }
            // Use can end here only by the grace period running out: the change is dated then.
            let graceEnded = app == .background && graceUntil.map { t > $0 } == true
            lapse(at: t)
            report(at: t, dated: graceEnded ? graceUntil! : t, cause: cause)
        }

        /// The beacon exit due at e, fired by the record at `recordTime` (nil: the end of input). Its
        /// verdict is the authorization's at e: after the grace period has run out (and temporary grants
        /// lapsed with it) if e is past its end.
        @discardableResult
        mutating func fireExit(at e: Int64, recordTime t: Int64?, cause: Int, into lines: inout [Line]) -> Delivery? {
            beaconDue = nil
            guard beacon != .unsatisfied else { return nil }
            coverage["exit from \(beacon.rawValue)", default: 0] += 1
            if e == lastTime { coverage["exit dated at the previous record's time", default: 0] += 1 }
            if app == .background, let g = graceUntil {
                if e == g - 1 { coverage["exit 1 ns before the end of the grace period", default: 0] += 1 }
                if e == g { coverage["exit at the end of the grace period", default: 0] += 1 }
                if e == g + 1 { coverage["exit 1 ns after the grace period", default: 0] += 1 }
                if e <= g, let t, t > g {
                    coverage["exit within the grace period, fired by a record after it", default: 0] += 1
                    if temporary && status == .whenInUse { coverage["exit before an Allow Once lapse, fired after it", default: 0] += 1 }
                    if temporaryFull { coverage["exit before a temporary full accuracy lapse, fired after it", default: 0] += 1 }
                }
                if e > g && temporary && status == .whenInUse { coverage["exit after an Allow Once lapse between records", default: 0] += 1 }
                if e > g && temporaryFull { coverage["exit after a temporary full accuracy lapse between records", default: 0] += 1 }
            }
            let promptBefore = prompt
            lapse(at: e)
            beacon = .unsatisfied
            let d = emit("b", .unsatisfied, at: e, refinement: nil, cause: cause, into: &lines)
            if promptBefore == nil && prompt != nil { coverage["deferred prompt opened by an exit", default: 0] += 1 }
            if d.verdict == .held && lines.last?.reason == .displaced { coverage["held exit displacing", default: 0] += 1 }
            return d
        }

        /// The event of a change of state at `date`, with the authorization's verdict then; a held one
        /// opens the deferred prompt (if none is open) and displaces the oldest beyond the capacity.
        @discardableResult
        mutating func emit(_ id: String, _ state: ConditionState, at date: Int64, refinement: BeaconIdentity?, cause: Int,
                           into lines: inout [Line]) -> Delivery {
            let d = verdict(at: date)
            lines.append(Line(id, state: state, date: date, d, refinement: refinement, cause: cause, isFinal: false))
            if d.verdict == .held {
                if settings.ios18 { coverage["held under ios18", default: 0] += 1 }
                held.append(Held(identifier: id, state: state, date: date, refinement: refinement))
                if prompt == nil { prompt = .always(deferred: true) }  // opens when the first event is held
                while held.count > settings.capacity {
                    let h = held.removeFirst()
                    lines.append(Line(h.identifier, state: h.state, date: h.date,
                                      Delivery(verdict: .dropped, reason: .displaced, diagnostics: .insufficientlyInUse),
                                      refinement: h.refinement, cause: cause, isFinal: true))
                }
            }
            return d
        }

        /// The end of the input: an exit due at or before the device's last record time is emitted
        /// (SPEC §2), caused by that record; nothing else happens (stream time does not pass beyond
        /// the last record, so nothing expires; held events stay held).
        mutating func finish(into lines: inout [Line]) {
            changes = []
            guard let last = lastTime, let due = beaconDue, due <= last else { return }
            if let f = held.first, f.date + settings.maximumAge == due {
                coverage["exit at the end of input at a held event's expiry instant", default: 0] += 1
            }
            coverage["exit at the end of input", default: 0] += 1
            if lastRefused { coverage["exit at the end of input, the last record refused", default: 0] += 1 }
            fireExit(at: due, recordTime: nil, cause: lastCause, into: &lines)
        }

        /// The final lines of every held event, in order: delivered (`dropping` nil) or dropped with the
        /// reason's own diagnostic (README "Held events").
        mutating func resolveHeld(dropping reason: Delivery.Reason?, cause: Int, into lines: inout [Line]) {
            if held.count > 1 { coverage["several held resolved at once", default: 0] += 1 }
            for h in held {
                let d = reason.map { Delivery(verdict: .dropped, reason: $0, diagnostics: $0 == .authorizationDenied ? .authorizationDenied : .alwaysAuthorizationDenied) }
                lines.append(Line(h.identifier, state: h.state, date: h.date, d ?? .delivered, refinement: h.refinement,
                                  cause: cause, isFinal: true))
            }
            held = []
        }

        mutating func request(_ kind: AuthorizationRequest.Kind) {
            guard app == .foreground else { outcomes[.insufficientlyInUse, default: 0] += 1; return }
            var prompted: Prompt?
            if prompt == nil {
                switch kind {
                case .whenInUse:
                    if status == .notDetermined { prompted = .first(alwaysIntent: false) }
                case .always:
                    if !alwaysAsked && status == .notDetermined { prompted = .first(alwaysIntent: true) }
                    if !alwaysAsked && status == .whenInUse && !temporary { prompted = .always(deferred: false) }
                    if prompted != nil { alwaysAsked = true }
                case .temporaryFullAccuracy:
                    if reduced && !temporaryFull && (status == .whenInUse || status == .always) { prompted = .fullAccuracy }
                }
            }
            if let p = prompted { prompt = p }
            outcomes[prompted != nil ? .prompted : .noEffect, default: 0] += 1
        }

        /// Asks as a session does: for its goal, then for temporary full accuracy if it has a purpose.
        mutating func sessionAsks(_ s: Session) {
            switch s.goal {
            case .none: break
            case .whenInUse: request(.whenInUse)
            case .always: request(.always)
            }
            if s.purpose { request(.temporaryFullAccuracy) }
        }

        /// Applies one record; returns false for a bad record (after stream time has advanced).
        mutating func apply(_ rec: Rec, cause: Int, into lines: inout [Line]) -> Bool {
            let before = lines.count
            let accepted = applyRecord(rec, cause: cause, into: &lines)
            if !accepted && lines[before...].contains(where: { $0.reason == .expired }) {
                coverage["expiry at a refused record", default: 0] += 1
            }
            if !accepted && lines[before...].contains(where: \.isExit) { coverage["exit at a refused record", default: 0] += 1 }
            lastTime = rec.time
            lastCause = cause
            lastRefused = !accepted
            return accepted
        }

        private mutating func applyRecord(_ rec: Rec, cause: Int, into lines: inout [Line]) -> Bool {
            let t = rec.time
            changes = []
            // The starting authorization is reported at the device's first record; a beacon condition
            // not starting unsatisfied is due to exit the timeout after it.
            if reported == nil {
                report(at: t, dated: t, cause: cause)
                if settings.assuming != .unsatisfied { beaconDue = t + settings.timeout }
            }
            let promptBefore = prompt
            advance(to: t, cause: cause, into: &lines)
            var grantedWhileNotInUse = false
            switch rec {
            case .fix(_, let side):
                guard side != .invalid else { break }
                let state: ConditionState = side == .inside ? .satisfied : .unsatisfied
                guard state != condition else { break }
                condition = state
                if app == .background, graceUntil == nil, let g = lastGraceEnd, t <= g {
                    coverage["event within the grace of a foreground exit, after the indicator ended", default: 0] += 1
                }
                if app == .background, backgroundAgainInGrace, let g = graceUntil, t <= g {
                    coverage["event within the grace after a repeated background record", default: 0] += 1
                }
                if app == .background, let g = graceUntil, t == g || t == g + 1 {
                    coverage[t == g ? "event at the end of the grace period" : "event 1 ns after the grace period", default: 0] += 1
                }
                emit("c", state, at: t, refinement: nil, cause: cause, into: &lines)
            case .sighting(_, let b):
                guard settings.matches(b) else {
                    if beaconDue == t { coverage["another beacon's sighting at an exit's due instant", default: 0] += 1 }
                    break
                }
                // A matching sighting exactly at the due instant cancels the exit (SPEC §2).
                if beaconDue == t { coverage["exit cancelled by a sighting at its due instant", default: 0] += 1 }
                beaconDue = t + settings.timeout
                guard beacon != .satisfied else { break }
                beacon = .satisfied
                emit("b", .satisfied, at: t, refinement: b.identity, cause: cause, into: &lines)
            case .app(_, let state):
                let previous = app
                if state == .background && previous == .foreground { backgroundAgainInGrace = false }
                if state == .background && previous == .background && graceUntil.map({ t <= $0 }) == true {
                    backgroundAgainInGrace = true
                }
                if state == .background && previous == .foreground {
                    graceUntil = t + settings.grace
                    lastGraceEnd = graceUntil
                } else if !(state == .background && previous == .background) {
                    graceUntil = nil  // the grace follows only foreground → background
                }
                app = state
                if settings.ios18 && state == .foreground && previous != .foreground {
                    for s in sessions { sessionAsks(s) }
                }
            case .request(_, let kind):
                request(kind)
            case .answer(_, let choice, let precise):
                guard let p = prompt else { coverage["answer with no open prompt", default: 0] += 1; return false }
                if promptBefore == nil && p.offers(choice) && precise == nil {
                    coverage["answer to a prompt an exit opened at the same record", default: 0] += 1
                }
                // Only the first prompt has the Precise switch (our reading; the field is refused elsewhere).
                if precise != nil {
                    guard case .first = p else { coverage["precise on another prompt", default: 0] += 1; return false }
                }
                if app != .foreground, case .first = p, choice != .allowOnce, p.offers(choice) {
                    coverage["first prompt answered outside the foreground", default: 0] += 1
                }
                switch (p, choice) {
                case (.first, .allowOnce):
                    if !inUse(at: t) { grantedWhileNotInUse = true }
                    status = .whenInUse
                    temporary = true
                    reduced = precise == false
                case (.first(let alwaysIntent), .allowWhileUsing):
                    status = alwaysIntent ? .always : .whenInUse
                    provisional = alwaysIntent
                    temporary = false
                    reduced = precise == false
                case (.first, .deny):
                    status = .denied  // precise changes nothing: Don't Allow grants no accuracy
                case (.always(let deferred), .allowAlways):
                    if deferred && held.isEmpty { coverage["allowAlways with nothing left held", default: 0] += 1 }
                    coverage[deferred ? "deferred prompt: allowAlways" : "immediate always prompt: allowAlways", default: 0] += 1
                    status = .always
                    provisional = false
                    resolveHeld(dropping: nil, cause: cause, into: &lines)
                case (.always(let deferred), .keepWhileUsing):
                    coverage[deferred ? "deferred prompt: keepWhileUsing" : "immediate always prompt: keepWhileUsing", default: 0] += 1
                    status = .whenInUse
                    temporary = false
                    provisional = false
                    resolveHeld(dropping: .alwaysAuthorizationDenied, cause: cause, into: &lines)
                case (.fullAccuracy, .allowOnce):
                    if !inUse(at: t) { grantedWhileNotInUse = true }
                    coverage["temporary full accuracy granted", default: 0] += 1
                    temporaryFull = true
                case (.fullAccuracy, .deny):
                    break
                default:
                    coverage["answer the open prompt does not offer", default: 0] += 1
                    return false
                }
                prompt = nil
            case .settings(_, let s, let precise, let services):
                if let s {
                    if status == .restricted { coverage["settings status while restricted", default: 0] += 1 }
                    if provisional { coverage["settings \(s.rawValue) in provisional always", default: 0] += 1 }
                    prompt = nil
                    temporary = false
                    switch s {
                    case .never:
                        status = .denied
                        resolveHeld(dropping: .authorizationDenied, cause: cause, into: &lines)
                    case .always:
                        status = .always
                        resolveHeld(dropping: nil, cause: cause, into: &lines)
                    case .whenInUse:
                        status = .whenInUse
                        resolveHeld(dropping: .alwaysAuthorizationDenied, cause: cause, into: &lines)
                    case .askNextTime:
                        status = .notDetermined
                        resolveHeld(dropping: .alwaysAuthorizationDenied, cause: cause, into: &lines)
                    }
                    provisional = false
                }
                if let precise {
                    reduced = !precise
                    if precise && prompt == .fullAccuracy { prompt = nil }
                }
                if let services { self.services = services }
            case .session(_, let action, let id, let goal, let purpose):
                guard settings.ios18 else { coverage["session record under the standard profile", default: 0] += 1; return false }
                switch action {
                case .start:
                    guard !sessions.contains(where: { $0.id == id }) else { return false }
                    let s = Session(id: id, goal: goal, purpose: purpose,
                                    counts: app == .foreground || sessions.contains(where: \.counts))
                    if app != .foreground && inUse(at: t) && !s.counts {
                        coverage["session started in use but not in the foreground", default: 0] += 1
                    }
                    if app != .foreground && s.counts { coverage["session counting through another", default: 0] += 1 }
                    sessions.append(s)
                    sessionAsks(s)
                case .end:
                    guard let i = sessions.firstIndex(where: { $0.id == id }) else { return false }
                    sessions.remove(at: i)
                }
            }
            if grantedWhileNotInUse {
                // (Our rule: the grant is reported, and lapses the same instant.)
                coverage["temporary grant answered while not in use", default: 0] += 1
                report(at: t, dated: t, cause: cause)
            }
            lapse(at: t)
            report(at: t, dated: t, cause: cause)
            return true
        }
    }

    // MARK: Generation

    struct Generator {
        var rng: SplitMix64

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
        mutating func pick<C: Collection>(_ c: C) -> C.Element { c.randomElement(using: &rng)! }

        mutating func settings() -> Settings {
            Settings(initial: pick([InitialAuthorization.always, .always, .notDetermined, .notDetermined, .notDetermined, .restricted]),
                     ios18: chance(0.35), capacity: chance(0.05) ? 0 : int(1...3),
                     grace: chance(0.8) ? 5 * second : pick([0, 2 * second]),
                     maximumAge: pick([0, 10, 60, 600, 3600, 3600].map { Int64($0) * second }),
                     timeout: pick([7, 30].map { Int64($0) * second }), major: chance(0.5) ? 1 : nil,
                     assuming: pick([ConditionState.unknown, .satisfied, .unsatisfied]))
        }

        /// A sighting of the condition's beacon (any minor; any major if it has none), or now and then
        /// of another beacon (another UUID, or major 2 where the condition wants major 1).
        mutating func beacon(_ o: Oracle, matching: Bool? = nil) -> Beacon {
            let minor = UInt16(int(0...2))
            if matching ?? chance(0.88) { return Beacon(otherUUID: false, major: o.settings.major ?? UInt16(int(0...2)), minor: minor) }
            if o.settings.major != nil && chance(0.5) { return Beacon(otherUUID: false, major: 2, minor: minor) }
            return Beacon(otherUUID: true, major: 1, minor: minor)
        }

        /// A record aimed at a beacon exit's edges, or nil: the app leaving the foreground so that the
        /// grace period ends exactly at the exit (or 1 ns around), a fix (held, if the app is not in use
        /// under provisional always) whose expiry instant is the exit's, a matching sighting exactly at
        /// the due instant (which cancels it), an answer to the deferred prompt the exit may open; and a
        /// sighting whose exit comes due exactly at (or 1 ns around) the oldest held event's expiry.
        mutating func beaconEdge(after last: Int64, _ o: Oracle) -> Rec? {
            let s = o.settings
            if let e = o.beaconDue, chance(0.3) {
                var options: [Rec] = []
                for d: Int64 in -1...1 {
                    if o.app == .foreground && e - s.grace + d >= last { options.append(.app(e - s.grace + d, .background)) }
                    if o.provisional && e - s.maximumAge + d >= last {
                        options.append(.fix(e - s.maximumAge + d, o.condition == .satisfied ? .outside : .inside))
                    }
                }
                if e >= last { options += [.sighting(e, beacon(o, matching: true)), .sighting(e, beacon(o, matching: false))] }
                if o.provisional && o.prompt == nil {
                    options.append(.answer(max(last, e + pick([1, Int64(int(1...3_000_000_000))])),
                                           pick([.allowAlways, .keepWhileUsing]), nil))
                }
                if !options.isEmpty { return pick(options) }
            }
            if let h = o.held.first, chance(0.2) {
                let at = h.date + s.maximumAge - s.timeout + Int64(int(-1...1))
                if at >= last { return .sighting(at, beacon(o, matching: true)) }
            }
            return nil
        }

        /// The next time, aimed at the edges the oracle can see: the end of the grace period and the
        /// expiry of the oldest held event (exactly, one nanosecond before and after).
        /// And the instant a beacon exit is due, of this device (the record that fires it, or not) or of
        /// another (`others`).
        mutating func time(after last: Int64, _ o: Oracle, others: [Int64]) -> Int64 {
            var edges: [Int64] = []
            if let g = o.graceUntil ?? o.lastGraceEnd { edges += [g - 1, g, g + 1] }
            if let h = o.held.first { edges += [h.date + o.settings.maximumAge - 1, h.date + o.settings.maximumAge, h.date + o.settings.maximumAge + 1] }
            for e in (o.beaconDue.map { [$0] } ?? []) + others { edges += [e - 1, e, e + 1] }
            edges = edges.filter { $0 >= last }
            // Near the end of a grace period, short steps: several records fall inside it.
            if let g = o.graceUntil ?? o.lastGraceEnd, g > last, chance(0.4) { return last + Int64(int(0...Int(g - last))) }
            if !edges.isEmpty && chance(0.3) { return pick(edges) }
            switch int(0...9) {
            case 0, 1: return last
            case 2, 3, 4: return last + Int64(int(1...4)) * second
            case 5, 6: return last + Int64(int(5...70)) * second
            case 7: return last + Int64(int(1...999_999_999))
            default: return last + Int64(int(100...4000)) * second
            }
        }

        mutating func record(after last: Int64, _ o: Oracle, others: [Int64]) -> Rec {
            if let r = beaconEdge(after: last, o) { return r }
            let t = time(after: last, o, others: others)
            // Weights follow the state, so that runs reach provisional always, held events and the
            // prompts often rather than sitting in denied or services-off states.
            let weights: [(Int, Int)] = [
                (0, 35),  // fix
                (1, o.provisional && o.app == .foreground ? 25 : 15),  // app
                (2, o.prompt == nil && (o.status == .notDetermined || o.reduced) ? 15 : 4),  // request
                (3, o.prompt != nil ? 25 : 2),  // answer
                (4, 6),  // settings
                (5, o.settings.ios18 ? 8 : 1),  // session
                (6, 18),  // sighting
            ]
            var roll = int(0...weights.map(\.1).reduce(0, +) - 1)
            var kind = 0
            for (k, w) in weights {
                if roll < w { kind = k; break }
                roll -= w
            }
            switch kind {
            case 0:
                let side: Side = chance(0.04) ? .invalid
                    : chance(0.85) ? (o.condition == .satisfied ? .outside : .inside) : (o.condition == .satisfied ? .inside : .outside)
                return .fix(t, side)
            case 1:
                let states: [AppState] = o.app == .foreground ? [.background, .background, .background, .indicator, .terminated, .foreground]
                    : [.foreground, .foreground, .background, .indicator, .terminated]
                return .app(t, pick(states))
            case 2:
                let kind: AuthorizationRequest.Kind = o.status == .notDetermined && chance(0.6) ? .always
                    : o.reduced && chance(0.5) ? .temporaryFullAccuracy
                    : pick([AuthorizationRequest.Kind.whenInUse, .always, .temporaryFullAccuracy])
                return .request(t, kind)
            case 3:
                // Mostly a choice the open prompt offers; sometimes anything.
                let offered: [PromptAnswer.Choice]? = switch o.prompt {
                case .first?: [.allowOnce, .allowWhileUsing, .allowWhileUsing, .allowWhileUsing, .deny]
                case .always?: [.allowAlways, .keepWhileUsing]
                case .fullAccuracy?: [.allowOnce, .deny]
                case nil: nil
                }
                let choice = offered != nil && chance(0.9) ? pick(offered!) : pick(PromptAnswer.Choice.allCases)
                // The Precise switch is the first prompt's; now and then on another (a bad record).
                let first = if case .first? = o.prompt { true } else { false }
                let precise: Bool? = first || o.prompt == nil ? pick([nil, nil, true, false]) : chance(0.05) ? chance(0.5) : nil
                return .answer(t, choice, precise)
            case 4:
                var status: SettingsChange.Status?
                var precise: Bool?
                var services: Bool?
                while status == nil && precise == nil && services == nil {
                    if chance(0.35) { status = pick(SettingsChange.Status.allCases) }
                    if chance(0.4) { precise = o.reduced ? chance(0.7) : chance(0.4) }
                    if chance(0.25) { services = o.services ? chance(0.7) : chance(0.9) }
                }
                return .settings(t, status, precise, services)
            case 6:
                return .sighting(t, beacon(o))
            default:
                if !o.settings.ios18 && !chance(0.1) { return .fix(t, o.condition == .satisfied ? .outside : .inside) }
                let ids = ["s1", "s2", "s3"]
                let heldIDs = o.sessions.map(\.id)
                if chance(0.08) {  // a bad one: a second start of a held id, or the end of one not held
                    if let id = heldIDs.first, chance(0.5) { return .session(t, .start, id, .always, false) }
                    if !o.settings.ios18 { return .session(t, .start, "s1", .always, false) }
                    if let id = ids.first(where: { !heldIDs.contains($0) }) { return .session(t, .end, id, .none, false) }
                }
                if let id = ids.first(where: { !heldIDs.contains($0) }), heldIDs.isEmpty || chance(0.5) {
                    return .session(t, .start, id, pick([.always, .always, .whenInUse, .none]), chance(0.2))
                }
                return .session(t, .end, pick(heldIDs), .none, false)
            }
        }
    }

    // MARK: Comparison

    struct Mismatch: CustomStringConvertible {
        var index: Int
        var what: String
        var description: String { "record \(index + 1): \(what)" }
    }

    /// Runs one device's records through a fresh engine and the oracle; the first disagreement.
    static func compare(_ settings: Settings, _ recs: [Rec]) throws -> Mismatch? {
        var engine = try settings.engine()
        var oracle = Oracle(settings)
        var events: [MonitorEvent] = []
        for (i, rec) in recs.enumerated() {
            if let m = step(&engine, &oracle, &events, rec, device: "d", cause: i + 1, outcomes: \.outcomes) {
                return Mismatch(index: i, what: m)
            }
        }
        if let m = finish(&engine, &oracle, device: "d") { return Mismatch(index: recs.count, what: m) }
        return nil
    }

    /// The end of the input through both (one device); a description of the disagreement, if any.
    static func finish(_ engine: inout MonitoringEngine, _ oracle: inout Oracle, device: String) -> String? {
        var tail: [MonitorEvent] = []
        engine.finish(into: &tail)
        var expected: [Line] = []
        oracle.finish(into: &expected)
        var reported: [AuthorizationChange] = []
        engine.takeAuthorizationChanges(into: &reported)
        var out: [String] = []
        if tail.contains(where: { $0.device != device }) { out.append("an event of another device") }
        if tail.map(Line.init) != expected { out.append("finish wrote \(tail.map(Line.init)) expected \(expected)") }
        if !reported.isEmpty { out.append("authorization changes at the end \(reported.map(Change.init))") }
        return out.isEmpty ? nil : "end of input: " + out.joined(separator: "; ")
    }

    /// One record through both; a description of the disagreement, if any.
    static func step(_ engine: inout MonitoringEngine, _ oracle: inout Oracle, _ events: inout [MonitorEvent], _ rec: Rec,
                     device: String, cause: Int, outcomes expectedOutcomes: (Oracle) -> [RequestOutcome: Int]) -> String? {
        let before = events.count
        var problem: ObservationProblem?
        do {
            try engine.process(rec.observation, device: device, cause: cause, into: &events)
        } catch {
            problem = error
        }
        var expected: [Line] = []
        let accepted = oracle.apply(rec, cause: cause, into: &expected)
        var out: [String] = []
        let got = events[before...].map(Line.init)
        var reported: [AuthorizationChange] = []
        engine.takeAuthorizationChanges(into: &reported)
        if reported.contains(where: { $0.device != device }) { out.append("authorization change of another device") }
        let changes = reported.map(Change.init)
        if changes != oracle.changes {
            out.append("authorization changes \(changes) expected \(oracle.changes)")
        }
        if events[before...].contains(where: { $0.device != device }) { out.append("wrong device") }
        if got != expected { out.append("events \(got) expected \(expected)") }
        if accepted != (problem == nil) {
            out.append(accepted ? "refused (\(problem!)) but the oracle accepts it" : "accepted but the oracle refuses it")
        }
        let outcomes = expectedOutcomes(oracle)
        if engine.requestOutcomes != outcomes { out.append("request outcomes \(engine.requestOutcomes) expected \(outcomes)") }
        return out.isEmpty ? nil : "\(rec): " + out.joined(separator: "; ")
    }

    /// The same records through the `Monitor` actor: its events must be the engine's (its causes count
    /// records from 1, as the run's do), and each pair's record must end at its latest event — a held
    /// event's final line only while that held event is still the latest (README "Authorization").
    /// A device's held events are resolved oldest first (displaced, expired, or all at an answer or a
    /// setting), so each final line resolves the oldest held line of its device not yet resolved.
    static func checkMonitor(_ settings: Settings, _ sequence: [(device: Int, rec: Rec, cause: Int)], names: [String],
                             engineEvents: [MonitorEvent], run: Int) async throws {
        let monitor = Monitor(name: "oracle", policy: settings.policy, streamsEvents: false)
        try await monitor.add(.circle(CircularGeographicCondition(center: centre, radius: 100)), identifier: "c", assuming: .unsatisfied)
        try await monitor.add(settings.beaconCondition, identifier: "b", assuming: settings.assuming)
        var events: [MonitorEvent] = []
        for (d, rec, _) in sequence {
            // A refused record still lets stream time run up to it: its events come with the error.
            do throws(RefusedRecord) {
                events += try await monitor.process(rec.observation, device: names[d])
            } catch {
                events += error.events
            }
        }
        events += await monitor.finish()
        #expect(firstDifference(events, engineEvents) == nil, "run \(run): the Monitor's events")
        var unresolved: [String: [Int]] = [:]
        var latest: [String: Int] = [:]
        for (k, e) in events.enumerated() {
            let key = "\(e.device) \(e.identifier)"
            if e.isFinalVerdict {
                guard let held = unresolved[e.device]?.first else {
                    Issue.record("run \(run): a final line with nothing held: \(e)")
                    continue
                }
                unresolved[e.device]!.removeFirst()
                #expect(events[held].identifier == e.identifier && events[held].date == e.date, "run \(run): \(e) resolves \(events[held])")
                if latest[key] == held { latest[key] = k }
            } else {
                latest[key] = k
                if e.delivery.verdict == .held { unresolved[e.device, default: []].append(k) }
            }
        }
        for name in names {
            for id in ["c", "b"] {
                let record = await monitor.record(for: id, device: name)
                #expect(record?.lastEvent == latest["\(name) \(id)"].map { events[$0] }, "run \(run): \(name) \(id)'s last event")
            }
        }
    }

    /// Interleaved records through a fresh engine: one at a time (`batchThreads` nil), or with each run
    /// of consecutive fixes (of any devices) as one batch on `batchThreads` threads, and each run of
    /// consecutive sightings likewise. Its events, and its
    /// authorization changes in record order.
    static func replay(_ settings: Settings, _ sequence: [(device: Int, rec: Rec, cause: Int)],
                       batchThreads: Int?) throws -> (events: [MonitorEvent], changes: [AuthorizationChange]) {
        var engine = try settings.engine()
        engine.batchThreads = batchThreads ?? 1
        // Devices named in the order they first appear, as one record at a time names them (the end of
        // input goes through them in that order).
        var ids: [Int: DeviceID] = [:]
        for (d, _, _) in sequence where ids[d] == nil { ids[d] = engine.deviceID("dev\(d)") }
        var events: [MonitorEvent] = [], changes: [AuthorizationChange] = []
        var fixes: [FixRecord] = [], sightings: [SightingRecord] = []
        func flush(_ engine: inout MonitoringEngine) throws {
            if !fixes.isEmpty { try engine.process(fixes, into: &events) }
            if !sightings.isEmpty { try engine.process(sightings, into: &events) }
            fixes.removeAll()
            sightings.removeAll()
        }
        for (d, rec, cause) in sequence {
            if batchThreads != nil {
                switch rec.observation {
                case .fix(let fix):
                    if !sightings.isEmpty { try flush(&engine) }
                    fixes.append(FixRecord(device: ids[d]!, fix: fix, cause: cause))
                    continue
                case .sighting(let sighting):
                    if !fixes.isEmpty { try flush(&engine) }
                    sightings.append(SightingRecord(device: ids[d]!, sighting: sighting, cause: cause))
                    continue
                default: break
                }
            }
            try flush(&engine)
            // (A refused record changes nothing; the oracle comparison checks which are refused.)
            try? engine.process(rec.observation, device: ids[d]!, cause: cause, into: &events)
        }
        try flush(&engine)
        engine.finish(into: &events)
        engine.takeAuthorizationChanges(into: &changes)
        // (A batch gathers its devices' changes after it; within a record they keep their order.)
        let ordered = changes.enumerated().sorted { ($0.element.cause, $0.offset) < ($1.element.cause, $1.offset) }.map(\.element)
        return (events, ordered)
    }

    /// The smallest sequence (removing one record at a time) that still disagrees; nil if the device's
    /// records alone, on an engine of their own, agree (then other devices' records mattered).
    static func shrink(_ settings: Settings, _ recs: [Rec]) throws -> ([Rec], Mismatch)? {
        var recs = recs
        guard var mismatch = try compare(settings, recs) else { return nil }
        recs = Array(recs[...min(mismatch.index, recs.count - 1)])
        var i = 0
        while i < recs.count {
            var candidate = recs
            candidate.remove(at: i)
            if let m = try compare(settings, candidate) {
                recs = candidate
                mismatch = m
            } else {
                i += 1
            }
        }
        return (recs, mismatch)
    }

    /// 800 runs (a random policy, exit timeout, beacon condition and starting state each) of 100 records
    /// over 4 devices, interleaved, then up to 4 closing records at pending exits; then the end of input.
    @Test func verdictsAgreeWithTheOracle() async throws {
        var records = 0, lines = 0
        var coverage: [String: Int] = [:]
        var verdicts: [String: Int] = [:]
        var exits: [String: Int] = [:]
        for run in 0..<800 {
            var gen = Generator(rng: SplitMix64(seed: 0xA17A_0000 + UInt64(run)))
            let settings = gen.settings()
            var engine = try settings.engine()
            let names = (0..<4).map { "dev\($0)" }
            var oracles = names.map { _ in Oracle(settings) }
            var history: [[Rec]] = names.map { _ in [] }
            var last: [Int64] = names.map { _ in Int64(gen.int(0...10)) * Self.second }
            // Half the fresh installs start by entering provisional always (000's sequence), so that
            // holding is reached often; a fifth with Allow Once under reduced accuracy and a temporary
            // full-accuracy prompt, so that temporary grants and open prompts meet when use ends; a tenth
            // with (precise) Allow Once and the beacon in sight, so that its exit meets the lapse.
            var scripts: [[Rec]] = names.indices.map { d in
                guard settings.initial == .notDetermined else { return [] }
                let t = last[d]
                switch gen.int(0...9) {
                case 0...4:
                    return [.app(t, .foreground), .request(t + Self.second, .always), .answer(t + 2 * Self.second, .allowWhileUsing, nil)]
                case 5, 6:
                    return [.app(t, .foreground), .request(t + Self.second, .whenInUse), .answer(t + 2 * Self.second, .allowOnce, false),
                            .request(t + 3 * Self.second, .temporaryFullAccuracy)]
                case 7:
                    return [.app(t, .foreground), .request(t + Self.second, .whenInUse), .answer(t + 2 * Self.second, .allowOnce, nil),
                            .sighting(t + 3 * Self.second, gen.beacon(Oracle(settings), matching: true))]
                default: return []
                }
            }
            var events: [MonitorEvent] = []
            var failed = false
            var sequence: [(device: Int, rec: Rec, cause: Int)] = []
            var appearance: [Int] = []
            func report(_ d: Int, at cause: Int, _ message: String) throws {
                let shrunk = try Self.shrink(settings, history[d])
                let sequence = (shrunk?.0 ?? history[d]).enumerated().map { "  \($0.offset + 1) \($0.element)" }
                Issue.record("""
                    run \(run) (\(settings.description)), \(names[d]) at cause \(cause): \(message)
                    \(shrunk == nil ? "the device's records alone agree (other devices mattered); they were" : "minimal sequence:")
                    \(sequence.joined(separator: "\n"))
                    -> \(shrunk.map { "\($0.1)" } ?? "")
                    """)
            }
            // Devices' records interleaved: each device's verdicts must depend on its own records only.
            // After 100, some devices with an exit pending get one more record (their last) exactly at
            // its due instant, so that the end of the input emits it.
            var closing = Array(names.indices.filter { _ in gen.chance(0.5) }.reversed())
            for cause in 1...(100 + closing.count) {
                let d = cause <= 100 ? gen.int(0...names.count - 1) : closing.removeLast()
                if !appearance.contains(d) { appearance.append(d) }
                var others: [RequestOutcome: Int] = [:]
                for (j, o) in oracles.enumerated() where j != d { others.merge(o.outcomes, uniquingKeysWith: +) }
                let otherExits = oracles.indices.filter { $0 != d }.compactMap { oracles[$0].beaconDue }
                var rec = scripts[d].isEmpty ? gen.record(after: last[d], oracles[d], others: otherExits) : scripts[d].removeFirst()
                if cause > 100, let e = oracles[d].beaconDue, e >= last[d] { rec = rec.at(e) }
                last[d] = rec.time
                history[d].append(rec)
                sequence.append((d, rec, cause))
                let message = Self.step(&engine, &oracles[d], &events, rec, device: names[d], cause: cause,
                                        outcomes: { $0.outcomes.merging(others, uniquingKeysWith: +) })
                records += 1
                if let message {
                    try report(d, at: cause, message)
                    failed = true
                    break
                }
            }
            if failed { continue }
            // The end of the input: each device's exits due at or before its last record, devices in the
            // order they first appeared (README "Order of events"), and no authorization change.
            var tail: [MonitorEvent] = []
            engine.finish(into: &tail)
            var expectedTail: [(device: String, line: Line)] = []
            for d in appearance {
                var l: [Line] = []
                oracles[d].finish(into: &l)
                expectedTail += l.map { (names[d], $0) }
            }
            if !tail.map({ ($0.device, Line($0)) }).elementsEqual(expectedTail, by: { $0 == $1 }) {
                if let d = appearance.first(where: { d in
                    tail.filter { $0.device == names[d] }.map(Line.init) != expectedTail.filter { $0.device == names[d] }.map(\.line)
                }) {
                    try report(d, at: sequence.count + 1, "end of input: finish wrote \(tail.filter { $0.device == names[d] }.map(Line.init)) "
                                   + "expected \(expectedTail.filter { $0.device == names[d] }.map(\.line))")
                } else {
                    Issue.record("run \(run): end-of-input lines out of order: \(tail.map { "\($0.device) \(Line($0))" })")
                }
                continue
            }
            var lastChanges: [AuthorizationChange] = []
            engine.takeAuthorizationChanges(into: &lastChanges)
            #expect(lastChanges.isEmpty, "run \(run): authorization changes at the end of input \(lastChanges.map(Change.init))")
            events += tail
            for e in events {
                verdicts["\(e.delivery.verdict.rawValue) \(e.delivery.reason?.rawValue ?? "-")", default: 0] += 1
                if Line(e).isExit { exits["\(e.delivery.verdict.rawValue) \(e.delivery.reason?.rawValue ?? "-")", default: 0] += 1 }
            }
            // Exits at (and 1 ns around) another device's record.
            for event in events where Line(event).isExit {
                let e = Line(event), d = names.firstIndex(of: event.device)!
                let otherTimes = Set(history.indices.filter { $0 != d }.flatMap { history[$0].map(\.time) })
                for (delta, key) in [(0, "exit at another device's record time"), (1, "exit 1 ns before another device's record"),
                                     (-1, "exit 1 ns after another device's record")] where otherTimes.contains(e.date + Int64(delta)) {
                    coverage[key, default: 0] += 1
                }
            }
            // The batch paths (runs of fixes and runs of sightings as batches, other records between
            // them) give the same.
            let one = try Self.replay(settings, sequence, batchThreads: nil)
            #expect(one.events == events, "run \(run): replayed one record at a time")
            for threads in [1, 3] {
                let batched = try Self.replay(settings, sequence, batchThreads: threads)
                #expect(firstDifference(batched.events, one.events) == nil, "run \(run): fixes and sightings in batches on \(threads) thread(s)")
                #expect(firstDifference(batched.changes, one.changes) == nil,
                        "run \(run): authorization changes, fixes and sightings in batches on \(threads) thread(s)")
            }
            try await Self.checkMonitor(settings, sequence, names: names, engineEvents: events, run: run)
            lines += events.count
            for o in oracles { coverage.merge(o.coverage, uniquingKeysWith: +) }
        }
        // The generator must reach every verdict, or the comparison proves little.
        for key in ["delivered -", "held provisionalAlways", "dropped displaced", "dropped expired", "dropped alwaysAuthorizationDenied",
                    "dropped authorizationDenied", "dropped authorizationRestricted", "dropped notDetermined",
                    "dropped accuracyLimited", "dropped insufficientlyInUse", "dropped serviceSessionRequired"] {
            #expect(verdicts[key, default: 0] > 0, "no \(key) line was generated")
        }
        for key in ["Allow Once lapsed", "temporary full accuracy lapsed", "record at exactly the maximum age",
                    "several held resolved at once", "event at the end of the grace period", "event 1 ns after the grace period",
                    "deferred prompt: allowAlways", "deferred prompt: keepWhileUsing", "immediate always prompt: allowAlways",
                    "immediate always prompt: keepWhileUsing", "settings never in provisional always",
                    "settings always in provisional always", "settings whenInUse in provisional always",
                    "settings askNextTime in provisional always", "temporary full accuracy granted",
                    "answer the open prompt does not offer", "answer with no open prompt", "session counting through another",
                    "temporary grant lapsed with a prompt open", "event within the grace of a foreground exit, after the indicator ended",
                    "event within the grace after a repeated background record", "first prompt answered outside the foreground",
                    "settings status while restricted", "session started in use but not in the foreground",
                    "temporary grant answered while not in use", "held under ios18", "allowAlways with nothing left held",
                    "session record under the standard profile", "expiry at a refused record", "precise on another prompt"] {
            #expect(coverage[key, default: 0] > 0, "never reached: \(key)")
        }
        // Beacon exits: every verdict an exit can get, and the instants around which it is decided.
        for key in ["delivered -", "held provisionalAlways", "dropped authorizationDenied", "dropped authorizationRestricted",
                    "dropped notDetermined", "dropped accuracyLimited", "dropped insufficientlyInUse", "dropped serviceSessionRequired"] {
            #expect(exits[key, default: 0] > 0, "no beacon exit \(key) line was generated")
        }
        for key in ["exit from unknown", "exit from satisfied", "exit dated at the previous record's time",
                    "record 1 ns before an exit is due", "record at an exit's due instant", "exit due 1 ns before the record that fires it",
                    "exit cancelled by a sighting at its due instant", "exit at a refused record",
                    "exit 1 ns before the end of the grace period", "exit at the end of the grace period", "exit 1 ns after the grace period",
                    "exit within the grace period, fired by a record after it", "exit before an Allow Once lapse, fired after it",
                    "exit after an Allow Once lapse between records", "exit after a temporary full accuracy lapse between records",
                    "exit at the instant a held event expired (expiry first)", "exit 1 ns after a held event expired",
                    "exit 1 ns before a held event expires", "held exit at the instant a held event expired",
                    "held exit 1 ns after a held event expired", "held exit displacing an event 1 ns before its expiry",
                    "held exit expired at the record that fired it", "held exit displacing", "deferred prompt opened by an exit",
                    "answer to a prompt an exit opened at the same record", "exit at the end of input",
                    "exit at the end of input at a held event's expiry instant", "exit at the end of input, the last record refused",
                    "exit before a temporary full accuracy lapse, fired after it", "another beacon's sighting at an exit's due instant",
                    "exit at another device's record time", "exit 1 ns before another device's record",
                    "exit 1 ns after another device's record"] {
            #expect(coverage[key, default: 0] > 0, "never reached: \(key)")
        }
        print("AuthorizationOracle coverage: \(coverage.sorted { $0.key < $1.key })")
        print("AuthorizationOracle: \(records) records, \(lines) lines, \(verdicts.sorted { $0.key < $1.key })")
        print("AuthorizationOracle exits: \(exits.sorted { $0.key < $1.key })")
    }
}

/// Disagreements the oracle found, each as its smallest sequence.
extension AuthorizationOracleTests {
    /// Runs records through a fresh engine; the events and authorization changes of each record.
    static func run(_ settings: Settings, _ recs: [Rec]) throws -> [(lines: [Line], changes: [Change])] {
        var engine = try settings.engine()
        return try recs.enumerated().map { i, rec in
            var events: [MonitorEvent] = []
            try engine.process(rec.observation, device: "d", cause: i + 1, into: &events)
            var changes: [AuthorizationChange] = []
            engine.takeAuthorizationChanges(into: &changes)
            return (events.map(Line.init), changes.map(Change.init))
        }
    }

    /// Allow Once (or a temporary full-accuracy grant) answered while the app is not in use. SPEC §3:
    /// temporary grants "lapse to notDetermined when the app stops being in use". The engine used to
    /// report the grant at the answer and its lapse only at the device's next record: dated at the end
    /// of the grace period, before the grant (the stream went back in time), or, after termination, at
    /// the next record's time; with no next record, never. Now (our rule) the grant is reported and
    /// lapses at once, both dated at the answer. Verdicts were never affected: every event comes after
    /// stream time has advanced.
    @Test func aTemporaryGrantMadeWhileNotInUseLapsesAtOnce() throws {
        let settings = Settings(initial: .notDetermined, ios18: false, capacity: 1, grace: 5 * Self.second, maximumAge: 3600 * Self.second)
        let s = Self.second
        for leaving in [AppState.background, .terminated] {
            let out = try Self.run(settings, [.app(0, .foreground), .request(1 * s, .whenInUse), .app(2 * s, leaving),
                                              .answer(10 * s, .allowOnce, nil), .fix(20 * s, .inside)])
            // The verdict is the same under every reading.
            #expect(out[4].lines == [Line(state: .satisfied, date: 20 * s,
                                          Delivery(verdict: .dropped, reason: .notDetermined, diagnostics: .insufficientlyInUse),
                                          cause: 5, isFinal: false)])
            let dates = out.flatMap { $0.changes.map(\.date) }
            #expect(dates == dates.sorted(), "changes out of time order after \(leaving): \(out.flatMap { $0.changes })")
            #expect(out[4].changes.isEmpty, "the fix at 20 s reports \(out[4].changes) after \(leaving)")
            // (Our rule: the grant is reported, then its lapse, both at the answer.)
            #expect(out[3].changes.suffix(2).map(\.status) == [.whenInUse, .notDetermined], "the answer reports \(out[3].changes)")
            #expect(out[3].changes.suffix(2).map(\.temporary) == [true, false])
            #expect(out[3].changes.suffix(2).allSatisfy { $0.date == 10 * s && !$0.inUse })
        }
    }
}

/// Beacon exits where SPEC and the README leave the order to a reading, pinned on small sequences with
/// lines written by hand (the random comparison reaches each of them too).
extension AuthorizationOracleTests {
    /// One device's lines, its records one at a time and then the end of the input.
    static func lines(_ settings: Settings, _ recs: [Rec]) throws -> [Line] {
        var engine = try settings.engine()
        var events: [MonitorEvent] = []
        for (i, rec) in recs.enumerated() { try engine.process(rec.observation, device: "d", cause: i + 1, into: &events) }
        engine.finish(into: &events)
        return events.map(Line.init)
    }

    @Test func beaconExitsAgainstExpiryAndTheEndOfInput() throws {
        let s = Self.second
        let settings = Settings(initial: .notDetermined, ios18: false, capacity: 1, grace: 5 * s, maximumAge: 60 * s,
                                timeout: 30 * s, major: 1, assuming: .unsatisfied)
        let beacon = Beacon(otherUUID: false, major: 1, minor: 0)
        let held = Delivery(verdict: .held, reason: .provisionalAlways, diagnostics: .insufficientlyInUse)
        func dropped(_ r: Delivery.Reason) -> Delivery { Delivery(verdict: .dropped, reason: r, diagnostics: .insufficientlyInUse) }
        // Provisional always; the beacon seen in the foreground; in the background (grace over at 16 s)
        // the circle's entry at 20 s is held: it expires at 80 s, when the beacon's exit is due too.
        let start: [Rec] = [.app(0, .foreground), .request(1 * s, .always), .answer(2 * s, .allowWhileUsing, nil),
                            .sighting(10 * s, beacon), .app(11 * s, .background), .fix(20 * s, .inside), .sighting(35 * s, beacon),
                            .sighting(50 * s, beacon)]
        let before = [Line("b", state: .satisfied, date: 10 * s, .delivered, refinement: beacon.identity, cause: 4, isFinal: false),
                      Line("c", state: .satisfied, date: 20 * s, held, cause: 6, isFinal: false)]

        // A record after 80 s: the expiry at 80 s goes first (README "Held events", scenario 18), so the
        // exit's held event displaces nothing; the fix's own held event then displaces the exit's.
        let later = start + [.fix(90 * s, .outside)]
        #expect(try Self.compare(settings, later) == nil)
        let laterLines = try Self.lines(settings, later)
        #expect(laterLines == before + [
            Line("c", state: .satisfied, date: 20 * s, dropped(.expired), cause: 9, isFinal: true),
            Line("b", state: .unsatisfied, date: 80 * s, held, cause: 9, isFinal: false),
            Line("c", state: .unsatisfied, date: 90 * s, held, cause: 9, isFinal: false),
            Line("b", state: .unsatisfied, date: 80 * s, dropped(.displaced), cause: 9, isFinal: true),
        ], "\(laterLines)")

        // The last record at exactly 80 s: the end of the input emits the exit due then (SPEC §2), but
        // stream time never passes beyond 80 s, so nothing expires (our reading: "an event expires when
        // stream time passes strictly beyond date + maximum age"; "at the end of input, events still
        // held stay held"): the exit's held event displaces the entry. The engine does the same.
        let last = start + [.fix(80 * s, .invalid)]
        #expect(try Self.compare(settings, last) == nil)
        let lastLines = try Self.lines(settings, last)
        #expect(lastLines == before + [
            Line("b", state: .unsatisfied, date: 80 * s, held, cause: 9, isFinal: false),
            Line("c", state: .satisfied, date: 20 * s, dropped(.displaced), cause: 9, isFinal: true),
        ], "\(lastLines)")

        // An exit due exactly at a record's time is not fired by it (SPEC: "strictly before"); it is
        // fired by the next, dated then, with the authorization as that record left it (our reading:
        // the exit happens after the record at its instant, as a sighting at that instant cancels it).
        // Permanent when-in-use; terminated exactly when the exit is due: dropped, not delivered.
        let whenInUse = Settings(initial: .notDetermined, ios18: false, capacity: 1, grace: 5 * s, maximumAge: 60 * s,
                                 timeout: 30 * s, major: nil, assuming: .unsatisfied)
        let terminated: [Rec] = [.app(0, .foreground), .request(1 * s, .whenInUse), .answer(2 * s, .allowWhileUsing, nil),
                                 .sighting(10 * s, beacon), .app(40 * s, .terminated), .fix(50 * s, .invalid)]
        #expect(try Self.compare(whenInUse, terminated) == nil)
        let terminatedLines = try Self.lines(whenInUse, terminated)
        #expect(terminatedLines == [
            Line("b", state: .satisfied, date: 10 * s, .delivered, refinement: beacon.identity, cause: 4, isFinal: false),
            Line("b", state: .unsatisfied, date: 40 * s,
                 Delivery(verdict: .dropped, reason: .insufficientlyInUse, diagnostics: .insufficientlyInUse), cause: 6, isFinal: false),
        ], "\(terminatedLines)")
    }
}
