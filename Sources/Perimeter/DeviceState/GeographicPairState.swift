/// The state machine of one (device, geographic condition) pair (SPEC §2).
struct GeographicPairState: Codable {
    var state: ConditionState
    /// The side a change is waiting to be confirmed on, and since when.
    var pending: Side?
    var pendingSince = Timestamp.distantPast

    init(state: ConditionState) {
        self.state = state
    }

    /// Whether the pair is what a settled pair with no entry is: unsatisfied, nothing pending.
    var isSettledBaseline: Bool { state == .unsatisfied && pending == nil }

    /// Whether no fix on `side` of the boundary can change the pair, confidently there or within its
    /// margin: it is settled in that side's state, with nothing pending that a confident fix would
    /// cancel.
    @inline(__always)
    func isSettled(on side: Side) -> Bool {
        pending == nil && state == (side == .inside ? .satisfied : .unsatisfied)
    }

    /// Applies a fix that is confidently on `side` at `time`; returns the new state if it changed.
    ///
    /// A change needs the new side to hold for `confirmation` of stream time; a confident fix on the
    /// current side cancels a pending change, and one on the other side restarts it.
    @inline(__always)
    mutating func observe(_ side: Side, at time: Timestamp, confirmation: TimeSpan) -> ConditionState? {
        let target: ConditionState = side == .inside ? .satisfied : .unsatisfied
        if state == target {
            pending = nil
            return nil
        }
        if pending != side {
            pending = side
            pendingSince = time
        }
        guard time.span(since: pendingSince) >= confirmation else { return nil }
        state = target
        pending = nil
        return target
    }
}
