import Perimeter

/// One condition read from a conditions file: what the engine's `add(_:identifier:assuming:audience:)` takes.
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
    /// `properties.devices` and `properties.groups`: the devices that watch it (SPEC §5.6).
    public var audience: ConditionAudience

    public init(identifier: String, condition: Condition, assuming: ConditionState?, line: Int, ranging: Bool = false,
                audience: ConditionAudience = .everyone) {
        self.identifier = identifier
        self.condition = condition
        self.assuming = assuming
        self.line = line
        self.ranging = ranging
        self.audience = audience
    }
}

extension [ConditionDefinition] {
    /// The ranging constraints: the beacon conditions marked `"ranging": true`, in file order.
    public var rangingConstraints: [RangingConstraint] {
        compactMap { definition in
            guard definition.ranging, case .beacon(let identity) = definition.condition else { return nil }
            return RangingConstraint(identifier: definition.identifier, identity: identity)
        }
    }
}
