import Perimeter

/// One condition read from a conditions file: what the engine's `add(_:identifier:assuming:)` takes.
public struct ConditionDefinition: Sendable, Hashable {
    /// The feature's `id`, unique within the file.
    public var identifier: String
    /// The circle, polygon or beacon identity.
    public var condition: Condition
    /// The feature's own `properties.assuming`, if any.
    public var assuming: ConditionState?
    /// Line of the feature in its file.
    public var line: Int
    /// `properties.ranging: true` on a beacon feature: also a ranging constraint (SPEC §5.2).
    public var ranging: Bool

    public init(identifier: String, condition: Condition, assuming: ConditionState?, line: Int, ranging: Bool = false) {
        self.identifier = identifier
        self.condition = condition
        self.assuming = assuming
        self.line = line
        self.ranging = ranging
    }
}
