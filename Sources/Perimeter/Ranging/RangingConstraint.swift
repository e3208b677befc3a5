/// A beacon identity an app ranges, as `CLBeaconIdentityConstraint`: a UUID, and optionally a major
/// and a minor (SPEC §5.2).
public struct RangingConstraint: Sendable, Hashable {
    /// The name results carry (the feature's `id`).
    public var identifier: String
    public var identity: BeaconIdentityCondition

    public init(identifier: String, identity: BeaconIdentityCondition) {
        self.identifier = identifier
        self.identity = identity
    }
}

/// The numbers of ranging the talks leave open (SPEC §5.2, *our rule*), a flag of the same name each.
public struct RangingPolicy: Sendable, Hashable, Codable {
    /// Seconds of sightings a result is made from.
    public var rangingWindow: Double = 20
    /// The log-distance model's path-loss exponent `n` (2 in free space).
    public var pathLossExponent: Double = 2

    public init() {}

    /// The first value out of range, as the flag's user would read it; `nil` when both are fine.
    public func problem() -> String? {
        if !(rangingWindow.isFinite && rangingWindow > 0) { return "the ranging window must be a finite number of seconds > 0, got \(rangingWindow)" }
        if !(pathLossExponent.isFinite && pathLossExponent > 0) { return "the path-loss exponent must be a finite number > 0, got \(pathLossExponent)" }
        return nil
    }
}

/// The constraints, with the monitoring path's beacon matcher over them.
struct RangingCatalog: Sendable {
    let constraints: [RangingConstraint]
    let matcher: BeaconMatcher

    init(_ constraints: [RangingConstraint]) {
        self.constraints = constraints
        matcher = BeaconMatcher(constraints.map { ConditionCatalog.Beacon(condition: $0.identity, initialState: .unknown, addedAt: nil) },
                                removed: Array(repeating: false, count: constraints.count))
    }
}
