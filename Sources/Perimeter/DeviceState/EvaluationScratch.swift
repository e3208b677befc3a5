/// Buffers the engine reuses from fix to fix, so that steady-state evaluation allocates nothing.
struct EvaluationScratch {
    /// Conditions the index returned for the current fix.
    var candidates: [Int32] = []
    /// What the current fix says about each candidate.
    var readings: [Reading] = []
    /// Per candidate, the distance to its boundary the index knew without measuring (0: none).
    var clearances: [Double] = []
    /// The index's de-duplication stamps, one per geographic condition.
    var queryStamps: [UInt32] = []
    /// `candidateMarks[i] == stamp` when condition `i` is a candidate of the current fix (marked only
    /// while the fix settles conditions its device has not seen yet).
    var candidateMarks: [UInt32] = []
    private(set) var stamp: UInt32 = 0
    /// Whether a fix asks for the shapes it will read before reading them
    /// (`ConditionCatalog.askForShapes(of:at:)`): one fix at a time, not in a batch.
    var asksAhead = true
    /// Conditions a fix settles (`ConditionCatalog.watchedStartingOtherwise`).
    var starting: [Int32] = []
    /// State changes of the current record, by condition index, before they are sorted into events.
    var changes: [(condition: Int32, state: ConditionState)] = []

    /// Starts a new query over `conditionCount` geographic conditions.
    mutating func beginQuery(conditionCount: Int) {
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
        candidates.removeAll(keepingCapacity: true)
        readings.removeAll(keepingCapacity: true)
        clearances.removeAll(keepingCapacity: true)
        emptyChanges()
    }

    /// Empties `changes`, which most fixes leave empty: emptying an array of these tuples goes
    /// through a generic `replaceSubrange` (some 60 instructions) even when there is nothing to remove.
    @inline(__always)
    mutating func emptyChanges() {
        if !changes.isEmpty { changes.removeAll(keepingCapacity: true) }
    }
}
