/// A record `Monitor.process` refused, with the events the call produced before refusing it.
///
/// A refused record changes nothing itself, but stream time still ran up to it first (beacon exits
/// and expiries due before it happened), and a batch's earlier records were applied. Those events are
/// published (the stream, `record(for:device:)`) like any others; a throwing call returns nothing,
/// so they come with the error, and a caller that takes events from what `process` returns loses none.
public struct RefusedRecord: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the record was refused: the field and what is wrong.
    public var problem: ObservationProblem
    /// The refused record's position in the call's records (0 for a single record).
    public var index: Int
    /// The events the call produced before the refusal, in order.
    public var events: [MonitorEvent]

    public init(problem: ObservationProblem, index: Int, events: [MonitorEvent]) {
        self.problem = problem
        self.index = index
        self.events = events
    }

    public var description: String { problem.description }
}
