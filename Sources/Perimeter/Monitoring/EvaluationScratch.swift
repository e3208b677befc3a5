/// Buffers the engine reuses from fix to fix, so that steady-state evaluation allocates nothing.
struct EvaluationScratch {
    /// Conditions the index returned for the current fix.
    var candidates: [Int32] = []
    /// The side of the current fix for each candidate (`nil`: within the margin of the boundary).
    var sides: [Side?] = []
    /// The index's de-duplication stamps, one per geographic condition.
    var queryStamps: [UInt32] = []
    /// `candidateMarks[i] == stamp` when condition `i` is a candidate of the current fix.
    var candidateMarks: [UInt32] = []
    private(set) var stamp: UInt32 = 0
    /// State changes of the current record, by condition index, before they are sorted into events.
    var changes: [(condition: Int32, state: ConditionState)] = []

    // The batch path: each fix's candidates and sides, computed ahead in an order that keeps nearby
    // fixes together, then read back in record order (fix k's are at batchStart[k] ..< batchEnd[k]).
    var batchCandidates: [Int32] = []
    var batchSides: [Side?] = []
    var batchStart: [Int32] = []
    var batchEnd: [Int32] = []
    var batchOrder: [UInt64] = []

    /// Starts a new query over `conditionCount` geographic conditions; `keeping` leaves the
    /// candidates and sides already filled in (the batch path).
    mutating func beginQuery(conditionCount: Int, keeping: Bool = false) {
        if queryStamps.count < conditionCount {
            queryStamps.append(contentsOf: repeatElement(0, count: conditionCount - queryStamps.count))
            candidateMarks.append(contentsOf: repeatElement(0, count: conditionCount - candidateMarks.count))
        }
        if stamp == .max {
            // Stamps wrap after four billion queries: clear them once rather than compare wrongly.
            for i in queryStamps.indices { queryStamps[i] = 0 }
            for i in candidateMarks.indices { candidateMarks[i] = 0 }
            stamp = 0
        }
        stamp += 1
        if !keeping {
            candidates.removeAll(keepingCapacity: true)
            sides.removeAll(keepingCapacity: true)
        }
        changes.removeAll(keepingCapacity: true)
    }
}
