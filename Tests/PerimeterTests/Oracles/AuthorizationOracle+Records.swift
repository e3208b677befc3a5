import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// Each record's effect in the oracle: requests, answers, settings and sessions as SPEC §3 reads.
extension AuthorizationOracleTests.Oracle {
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
        case .app(_, var state):
            let previous = app
            if settings.ios18 {
                // A launch; the indicator only from the foreground, or rejoined within the window;
                // a termination remembers the sessions (docs/sessions.md).
                if previous == .terminated && state != .terminated { launchedAt = t; foregroundSinceLaunch = false }
                if state == .indicator && previous != .indicator && previous != .foreground {
                    if indicatorAtTermination, let launchedAt, t <= launchedAt + relaunchWindow {
                        coverage["indicator rejoined", default: 0] += 1
                    } else {
                        coverage["indicator refused outside the foreground", default: 0] += 1
                        state = .background
                    }
                }
                if state == .terminated && previous != .terminated {
                    sessions = sessions.filter { !lost($0, at: t) }
                    indicatorAtTermination = previous == .indicator
                    if !sessions.isEmpty { coverage["sessions remembered at termination", default: 0] += 1 }
                    for k in sessions.indices { sessions[k].remembered = true }
                    launchedAt = nil
                }
                if state == .indicator { indicatorAtTermination = false }
                if state == .foreground { foregroundSinceLaunch = true }
            }
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
                // The explicit sessions, then the implicit one (when in use).
                for s in sessions where !s.remembered { sessionAsks(s) }
                if !explicitSessionsRequired { request(.whenInUse) }
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
        case .explicitSessions(_, let required):
            explicitSessionsRequired = required
        case .session(_, let action, let id, let goal, let purpose):
            guard settings.ios18 else { coverage["session record under the standard profile", default: 0] += 1; return false }
            guard app != .terminated else { coverage["session record while terminated", default: 0] += 1; return false }
            switch action {
            case .start:
                sessions = sessions.filter { !lost($0, at: t) }
                if let i = sessions.firstIndex(where: { $0.id == id }) {
                    // Taken again after a relaunch, with the same goal, as it was.
                    guard sessions[i].remembered, sessions[i].goal == goal else { return false }
                    coverage["session taken again after a relaunch", default: 0] += 1
                    var again = sessions.remove(at: i)
                    again.remembered = false
                    again.purpose = purpose
                    sessions.append(again)
                    sessionAsks(again)
                    break
                }
                let implicitInEffect = !explicitSessionsRequired && app != .terminated && foregroundSinceLaunch
                let s = Session(id: id, goal: goal, purpose: purpose,
                                counts: app == .foreground || sessions.contains(where: \.counts) || implicitInEffect)
                if app != .foreground && implicitInEffect { coverage["session counting through the implicit one", default: 0] += 1 }
                if app != .foreground && inUse(at: t) && !s.counts {
                    coverage["session started in use but not in the foreground", default: 0] += 1
                }
                if app != .foreground && s.counts { coverage["session counting through another", default: 0] += 1 }
                sessions.append(s)
                sessionAsks(s)
            case .end:
                sessions = sessions.filter { !lost($0, at: t) }
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
