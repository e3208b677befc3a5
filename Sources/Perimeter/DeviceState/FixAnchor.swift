import Foundation

/// What a device's last fully evaluated fix proves about the fixes after it: while a fix stays close
/// enough to it, no geographic pair can change, so the fix needs no geometry at all.
///
/// Let `D` be the great-circle distance to a condition's boundary (1-Lipschitz: a move of δ changes it
/// by at most δ, and the covered side can change only by crossing the boundary). The engine's measure
/// `M` of a polygon's distance never falls below `D` and exceeds it by less than the frame's
/// distortion, `M ≤ (1 + ε) D` with ε = 1 % at the sizes cached here (margins up to 1 km, |latitude|
/// ≤ 80°, where it is below 0.1 %); a circle's measure is `D` itself. A fix with margin `m′` is then
/// confidently on the other side of a condition only if `D′ ≥ λ m′` there, λ = 1/(1 + ε), so a move of
/// δ from the anchor changes nothing when, for every condition,
/// - the anchor was on the side of the pair's state, at least `D` from the boundary: δ < D + λ m′;
/// - the anchor was on the other side, within its margin (at most `D` from the boundary): δ + D < λ m′.
///
/// The anchor keeps the smallest of those right-hand sides less λ m′ as `budget`.
/// Conditions that are not candidates of the anchor fix are more than its margin away and
/// unsatisfied afterwards; a candidate confidently on its side is at least λ × the margin away.
///
/// Each condition's own right-hand side less λ m′ is its *term* (`AnchorTerm`, kept by the device
/// while below `farBudget`, what the conditions that were not candidates allow together). A fix
/// that breaks `budget` but not `farBudget` can change only the pairs whose terms it breaks, so
/// only those need geometry (`DeviceState.applyNearAnchor`). The anchor then moves to that fix, at
/// most δ⁺ from it: the terms measured there are the fix's own, and every other term `b` becomes
/// `b − δ⁺` (as does the far budget), since a later fix within `b − δ⁺ + λ m″` of the new centre is
/// within `b + λ m″` of the old one.
struct FixAnchor {

    let coordinate: Coordinate
    /// Metres a later fix may stray beyond λ × its own margin.
    let budget: Double
    /// cos(latitude) of the anchor, for the quick bound in `holds`.
    let cosLatitude: Double
    /// What the conditions without a kept term allow, as `budget` does: those that were not
    /// candidates of the anchor fix, and those whose terms were at or above it (or found the list
    /// full: `FixAnchorBuilder.mostTerms`). The device's `anchorTerms` hold the rest.
    let farBudget: Double

    /// - Parameter cosLatitude: cos of the coordinate's latitude, if the caller has it already.
    init(coordinate: Coordinate, budget: Double, cosLatitude: Double? = nil, farBudget: Double = -.infinity) {
        self.coordinate = coordinate
        self.budget = budget
        self.cosLatitude = cosLatitude ?? cos(coordinate.latitude * Geodesy.radiansPerDegree)
        self.farBudget = farBudget
    }

    /// An upper bound on the great-circle distance in metres from the anchor to `c`.
    func distanceBound(to c: Coordinate) -> Double {
        let (dPhi, dLambda) = offset(to: c)
        if let bound = Geodesy.shortDistanceBound(dPhi: dPhi, dLambda: dLambda, cosLatitude: cosLatitude) { return bound }
        return haversineBound(to: c)
    }

    /// The haversine distance to `c`, made an upper bound on the great-circle distance: rounding in
    /// the haversine is far below the margin added.
    private func haversineBound(to c: Coordinate) -> Double {
        Geodesy.distance(coordinate, c) * (1 + 1e-9) + 1e-6
    }

    /// The term of a candidate within its margin of the boundary, on `sign`'s side, between `low`
    /// and `high` metres from it (great-circle), whose pair is now in `state`; `nil` for a pair left
    /// unknown, which later fixes may change without moving.
    @inline(__always)
    static func undecidedTerm(sign: Side, state: ConditionState, low: Double, high: Double) -> Double? {
        switch (sign, state) {
        case (.inside, .satisfied), (.outside, .unsatisfied): low
        case (_, .unknown): nil
        default: -high
        }
    }

    /// Whether the anchor's evaluation can serve for a fix at `c` with margin `m` (SPEC §2 margins):
    /// whether `c` is certainly less than λ m + `budget` from the anchor.
    @inline(__always)
    func holds(at c: Coordinate, margin m: Double) -> Bool {
        // Most answers without trigonometry.
        holdsByQuickBound(at: c, margin: m) || holdsBeyondQuickBound(at: c, margin: m)
    }

    /// `holds` where the quick bound cannot tell. Out of line, so that what callers inline stays
    /// small: inlined whole, it made `needsGeometry` copy the device's whole state for every fix.
    @inline(never)
    private func holdsBeyondQuickBound(at c: Coordinate, margin m: Double) -> Bool {
        guard Self.isCacheable(c, margin: m) else { return false }
        let allowance = MeasureBounds.marginShare * m + budget
        guard allowance > 1e-6 else { return false }
        // Most fixes the quick bound cannot place are clearly beyond the allowance: a lower bound on
        // the distance says so without the haversine's trigonometry (a third of W1+W2's fixes took it).
        let (dPhi, dLambda) = offset(to: c)
        if Geodesy.distanceLowerBound(dPhi: dPhi, dLambda: dLambda, cosLatitude: cosLatitude) >= allowance { return false }
        return haversineBound(to: c) < allowance
    }

    /// Δφ and Δλ (the shorter way round) from the anchor to `c`, in radians.
    @inline(__always)
    private func offset(to c: Coordinate) -> (dPhi: Double, dLambda: Double) {
        let dPhi = (c.latitude - coordinate.latitude) * Geodesy.radiansPerDegree
        var dLambda = (c.longitude - coordinate.longitude) * Geodesy.radiansPerDegree
        if dLambda > .pi { dLambda -= 2 * .pi } else if dLambda < -.pi { dLambda += 2 * .pi }
        return (dPhi, dLambda)
    }

    /// Whether `Geodesy.shortDistanceBound` (compared squared) alone shows that the anchor holds for a
    /// fix at `c` with margin `m`: a yes is the answer the haversine in `holds` would give; a no only
    /// means the bound cannot tell (or that no anchor serves a fix at `c` with margin `m`: see
    /// `isCacheable`).
    @inline(__always)
    func holdsByQuickBound(at c: Coordinate, margin m: Double) -> Bool {
        let limit = MeasureBounds.marginShare * m + budget - 1e-6
        guard limit > 0, Self.isCacheable(c, margin: m) else { return false }
        let (dPhi, dLambda) = offset(to: c)
        let bound = Geodesy.shortDistanceSquare(dPhi: dPhi, dLambda: dLambda, cosLatitude: cosLatitude)
        return bound <= 1e-4 && bound * Self.chordScaleSquared < limit * limit
    }

    /// A placeholder that answers nothing.
    static let none = FixAnchor(coordinate: Coordinate(latitude: 0, longitude: 0), budget: -.infinity, cosLatitude: 1)

    /// `Geodesy.shortDistanceScale`²: metres² per unit of the bound in `holds`.
    private static let chordScaleSquared = Geodesy.shortDistanceScale * Geodesy.shortDistanceScale

    @inline(__always)
    static func isCacheable(_ c: Coordinate, margin m: Double) -> Bool {
        m <= MeasureBounds.largestMargin && abs(c.latitude) <= MeasureBounds.largestLatitude
    }
}

/// One candidate's term of a device's anchor (`FixAnchor`): the metres a later fix may stray from the
/// anchor beyond λ × its own margin before this condition's pair could change.
struct AnchorTerm {
    let condition: Int32
    var budget: Double
}

/// Builds a `FixAnchor` from what one fix's evaluation found, candidate by candidate, and the terms
/// below its far budget.
struct FixAnchorBuilder {
    /// The most terms a device keeps; a candidate's term beyond them lowers the far budget instead.
    static let mostTerms = 8

    private let coordinate: Coordinate
    /// What the conditions without a kept term allow: those that were not candidates, and any
    /// candidate whose term found the list full.
    private(set) var farBudget: Double
    /// The smallest term so far.
    private(set) var budget: Double
    private(set) var isValid: Bool

    /// - Parameter nonCandidates: a lower bound on the distance of every condition that is not a
    ///   candidate of the fix (at least λ × the margin).
    init(_ c: Coordinate, margin: Double, nonCandidates: Double) {
        coordinate = c
        farBudget = nonCandidates
        budget = nonCandidates
        isValid = FixAnchor.isCacheable(c, margin: margin)
    }

    /// Candidate `condition`'s term (`nil`: its pair left unknown, no anchor); kept in `terms` when
    /// below the far budget, or, with `mostTerms` kept already, made the far budget.
    mutating func add(_ condition: Int32, term: Double?, to terms: inout [AnchorTerm]) {
        guard let term else {
            isValid = false
            return
        }
        budget = min(budget, term)
        guard term < farBudget else { return }
        if terms.count < Self.mostTerms {
            terms.append(AnchorTerm(condition: condition, budget: term))
        } else {
            farBudget = term
        }
    }

    /// A pair left pending or unknown: later fixes may change it without moving.
    mutating func invalidate() { isValid = false }

    /// The anchor, if the fix gave one; `frame` is the fix's (its cos latitude is shared).
    func anchor(_ frame: inout FixFrame) -> FixAnchor? {
        isValid ? FixAnchor(coordinate: coordinate, budget: budget, cosLatitude: frame.cosLatitude, farBudget: farBudget) : nil
    }
}
