import Foundation
import Perimeter
import PerimeterTestSupport
import Testing

/// The records `AuthorizationOracleTests` runs: random settings, and records aimed at the edges the
/// oracle can see (the end of the grace period, expiries, beacon exits' due instants).
extension AuthorizationOracleTests {
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
            if let l = o.launchedAt { edges += [l + o.relaunchWindow, l + o.relaunchWindow + 1] }
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
                (7, o.settings.ios18 ? 3 : 0),  // appConfig: explicit sessions required, or not
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
                // (In the grace period, the indicator often: its end leaves the rest of the grace to test.)
                let states: [AppState] = o.app == .foreground ? [.background, .background, .background, .indicator, .terminated, .foreground]
                    : o.app == .background && o.graceUntil != nil ? [.indicator, .indicator, .foreground, .background, .terminated]
                    : o.app == .indicator ? [.background, .background, .foreground, .terminated]
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
            case 7:
                return .explicitSessions(t, !o.explicitSessionsRequired)
            default:
                if !o.settings.ios18 && !chance(0.1) { return .fix(t, o.condition == .satisfied ? .outside : .inside) }
                let ids = ["s1", "s2", "s3"]
                let heldIDs = o.sessions.map(\.id)
                // After a relaunch, often a remembered session taken again (in or after the window).
                if let r = o.sessions.first(where: \.remembered), o.launchedAt != nil, chance(0.6) {
                    return .session(t, .start, r.id, r.goal, r.purpose)
                }
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
}
