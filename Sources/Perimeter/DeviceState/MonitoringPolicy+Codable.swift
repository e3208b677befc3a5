// A policy as a store keeps it beside a monitor: the public values, by name. The time spans are
// derived, and are made again through the setters as the values are decoded.

extension MonitoringPolicy: Codable {
    private enum CodingKeys: String, CodingKey {
        case hysteresis, accuracyWeight, confirmation, beaconExitTimeout, gracePeriod, holdingCapacity
        case maximumHoldingAge, defaultAssumption, initialAuthorization, profile
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        // (Set on a value, not on `self`: in an initializer the setters' observers, which keep the
        // spans in step, would not run.)
        var policy = MonitoringPolicy()
        policy.hysteresis = try values.decode(Double.self, forKey: .hysteresis)
        policy.accuracyWeight = try values.decode(Double.self, forKey: .accuracyWeight)
        policy.confirmation = try values.decode(Double.self, forKey: .confirmation)
        policy.beaconExitTimeout = try values.decode(Double.self, forKey: .beaconExitTimeout)
        policy.gracePeriod = try values.decode(Double.self, forKey: .gracePeriod)
        policy.holdingCapacity = try values.decode(Int.self, forKey: .holdingCapacity)
        policy.maximumHoldingAge = try values.decode(Double.self, forKey: .maximumHoldingAge)
        policy.defaultAssumption = try values.decode(ConditionState.self, forKey: .defaultAssumption)
        policy.initialAuthorization = try values.decode(InitialAuthorization.self, forKey: .initialAuthorization)
        policy.profile = try values.decode(PlatformProfile.self, forKey: .profile)
        self = policy
        if let problem = problem() {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(hysteresis, forKey: .hysteresis)
        try values.encode(accuracyWeight, forKey: .accuracyWeight)
        try values.encode(confirmation, forKey: .confirmation)
        try values.encode(beaconExitTimeout, forKey: .beaconExitTimeout)
        try values.encode(gracePeriod, forKey: .gracePeriod)
        try values.encode(holdingCapacity, forKey: .holdingCapacity)
        try values.encode(maximumHoldingAge, forKey: .maximumHoldingAge)
        try values.encode(defaultAssumption, forKey: .defaultAssumption)
        try values.encode(initialAuthorization, forKey: .initialAuthorization)
        try values.encode(profile, forKey: .profile)
    }
}
