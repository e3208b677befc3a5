/// One condition as it was added to a monitor: what a store keeps of it, and what a restored
/// monitor adds again, in the same order, so that it numbers its conditions as the first did.
public struct ConditionAddition: Sendable, Hashable, Codable {
    public var condition: Condition
    public var identifier: String
    /// The state the condition started in (`assuming`, or the policy's default then).
    public var initialState: ConditionState
    /// Stream time of the addition, for a beacon condition added to a running monitor (its exit
    /// timer counts from it); `nil` for the others.
    public var addedAt: Timestamp?
    /// Whether the condition was removed since: it keeps its number.
    public var isRemoved: Bool

    public init(condition: Condition, identifier: String, initialState: ConditionState, addedAt: Timestamp?, isRemoved: Bool) {
        self.condition = condition
        self.identifier = identifier
        self.initialState = initialState
        self.addedAt = addedAt
        self.isRemoved = isRemoved
    }
}
