/// Why the engine refused a record: out of time order, or a value it cannot use.
/// `field` names the record's field (`t`, `lat`, `accuracy`, …).
public struct ObservationProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The record's field (`t`, `lat`, `accuracy`, …).
    public var field: String
    /// What is wrong, in words.
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
