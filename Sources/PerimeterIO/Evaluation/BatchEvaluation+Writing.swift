import Dispatch
import Perimeter

extension BatchEvaluation {
    /// Writes `events` and counts them for the summary, then writes the authorization changes the
    /// engine made meanwhile.
    mutating func writeEvents() throws(InputError) {
        summary.largestWrite = max(summary.largestWrite, events.count)
        // Large batches of events are encoded and counted in parallel, in chunks written in order.
        let chunks = events.count >= Self.parallelEncoding ? threads : 1
        let written = events, encoders = encoders
        if chunks > 1 {
            DispatchQueue.concurrentPerform(iterations: chunks) { k in
                encoders[k].encode(written[written.count * k / chunks ..< written.count * (k + 1) / chunks])
            }
        } else {
            encoders[0].encode(written[...])
        }
        for chunk in encoders[..<chunks] {
            summary.add(chunk.counts)
            try outputs.events.append(contentsOf: chunk.bytes)
        }
        try writeAuthorizationChanges()
    }

    /// Takes the authorization changes from the engine, and writes them when the run has an output
    /// for them (taken either way, so that the engine does not keep them).
    mutating func writeAuthorizationChanges() throws(InputError) {
        changes.removeAll(keepingCapacity: true)
        engine.takeAuthorizationChanges(into: &changes)
        if outputs.authorization != nil {
            for change in changes { try outputs.authorization!.append(AuthorizationChangeEncoding.jsonLine(change)) }
        }
    }

    /// Ends the run: applies what is pending, fires the beacon exits due at the end of the stream (if
    /// it ends here), flushes every output, and completes the summary.
    mutating func finish() throws(InputError) -> EvaluationSummary {
        try applyPending()
        events.removeAll(keepingCapacity: true)
        if endsStream { engine.finish(into: &events) }
        try writeEvents()
        try outputs.events.flush()
        try outputs.quarantine?.flush()
        try outputs.authorization?.flush()
        summary.heldAtEnd = engine.heldEventCount
        summary.requests = engine.requestOutcomes
        summary.elapsedSeconds = elapsedBefore + (clock.now - start).seconds
        return summary
    }
}
