import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// Stream time running to a record in the oracle: beacon exits and expiries in time order, the held
/// events they make or resolve, and the end of input.
extension AuthorizationOracleTests.Oracle {
    /// Stream time runs to t. Every beacon exit due strictly before t (SPEC §2) and every held event
    /// older than the maximum age (strictly beyond date + age) happen, in time order; an expiry comes
    /// first at the same instant (docs/authorization.md, "Holding"), the instant of an expiry being date + age
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
    /// reason's own diagnostic (docs/authorization.md, "Holding").
    mutating func resolveHeld(dropping reason: Delivery.Reason?, cause: Int, into lines: inout [Line]) {
        if held.count > 1 { coverage["several held resolved at once", default: 0] += 1 }
        for h in held {
            let d = reason.map { Delivery(verdict: .dropped, reason: $0, diagnostics: $0 == .authorizationDenied ? .authorizationDenied : .alwaysAuthorizationDenied) }
            lines.append(Line(h.identifier, state: h.state, date: h.date, d ?? .delivered, refinement: h.refinement,
                              cause: cause, isFinal: true))
        }
        held = []
    }
}
