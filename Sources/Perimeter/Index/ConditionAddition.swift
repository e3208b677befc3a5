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
    /// The devices that watch it.
    public var audience: ConditionAudience

    public init(condition: Condition, identifier: String, initialState: ConditionState, addedAt: Timestamp?, isRemoved: Bool,
                audience: ConditionAudience = .everyone) {
        self.condition = condition
        self.identifier = identifier
        self.initialState = initialState
        self.addedAt = addedAt
        self.isRemoved = isRemoved
        self.audience = audience
    }

    private enum CodingKeys: String, CodingKey { case condition, identifier, initialState, addedAt, isRemoved, audience }

    // (Snapshots taken before audiences existed have none: everyone.)
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(condition: try c.decode(Condition.self, forKey: .condition), identifier: try c.decode(String.self, forKey: .identifier),
                  initialState: try c.decode(ConditionState.self, forKey: .initialState),
                  addedAt: try c.decodeIfPresent(Timestamp.self, forKey: .addedAt), isRemoved: try c.decode(Bool.self, forKey: .isRemoved),
                  audience: try c.decodeIfPresent(ConditionAudience.self, forKey: .audience) ?? .everyone)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(condition, forKey: .condition)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(initialState, forKey: .initialState)
        try c.encodeIfPresent(addedAt, forKey: .addedAt)
        try c.encode(isRemoved, forKey: .isRemoved)
        if !audience.isEveryone { try c.encode(audience, forKey: .audience) }
    }
}
