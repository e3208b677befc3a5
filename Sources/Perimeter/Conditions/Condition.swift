/// Something a monitor watches: a region or a beacon identity.
public enum Condition: Sendable, Hashable, Codable {
    case circle(CircularGeographicCondition)
    case polygon(PolygonalGeographicCondition)
    case beacon(BeaconIdentityCondition)

    /// Whether fixes (rather than sightings) drive this condition.
    public var isGeographic: Bool {
        if case .beacon = self { return false }
        return true
    }
}
