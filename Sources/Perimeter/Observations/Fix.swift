/// A location fix, as a `CLLocation`.
public struct Fix: Sendable, Hashable {
    public var time: Timestamp
    public var coordinate: Coordinate
    /// Horizontal accuracy in metres; negative means "no valid fix" and changes no state.
    public var horizontalAccuracy: Double
    /// Metres per second, if known.
    public var speed: Double?
    /// Degrees clockwise from true north, if known.
    public var course: Double?
    /// Metres, if known.
    public var altitude: Double?

    public init(time: Timestamp, coordinate: Coordinate, horizontalAccuracy: Double,
                speed: Double? = nil, course: Double? = nil, altitude: Double? = nil) {
        self.time = time
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.course = course
        self.altitude = altitude
    }

    /// Whether the fix carries a position (`CLLocation` marks an invalid one with a negative accuracy).
    public var isValid: Bool { horizontalAccuracy >= 0 }
}
