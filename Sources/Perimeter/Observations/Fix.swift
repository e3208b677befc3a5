/// A location fix, as a `CLLocation`.
public struct Fix: Sendable, Hashable {
    /// When it was taken, in the device's stream time.
    public var time: Timestamp
    /// Where the device was.
    public var coordinate: Coordinate
    /// Horizontal accuracy in metres; negative means "no valid fix" and changes no state.
    public var horizontalAccuracy: Double
    /// Metres per second, if known.
    @inlinable public var speed: Double? {
        get { Self.value(storedSpeed) }
        set { storedSpeed = Self.stored(newValue) }
    }
    /// Degrees clockwise from true north, if known.
    @inlinable public var course: Double? {
        get { Self.value(storedCourse) }
        set { storedCourse = Self.stored(newValue) }
    }
    /// Metres, if known.
    @inlinable public var altitude: Double? {
        get { Self.value(storedAltitude) }
        set { storedAltitude = Self.stored(newValue) }
    }

    // The optional values stored as plain doubles, `unknown` for nil: an optional `Double` takes 9
    // bytes, padded to 16, so that a fix took 80 bytes instead of 56 — more to copy at every step
    // of a batch (decoded, merged, made into records, read by the engine).
    @usableFromInline var storedSpeed: Double, storedCourse: Double, storedAltitude: Double

    /// A quiet NaN with a payload of its own standing for nil (another NaN is kept as a value).
    @usableFromInline static let unknown: UInt64 = 0x7FF8_0000_5045_5249

    @inlinable
    static func value(_ stored: Double) -> Double? { stored.bitPattern == unknown ? nil : stored }

    @inlinable
    static func stored(_ value: Double?) -> Double { value ?? Double(bitPattern: unknown) }

    /// A fix at `time`; a negative `horizontalAccuracy` marks it as no valid fix.
    @inlinable
    public init(time: Timestamp, coordinate: Coordinate, horizontalAccuracy: Double,
                speed: Double? = nil, course: Double? = nil, altitude: Double? = nil) {
        self.time = time
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        storedSpeed = Self.stored(speed)
        storedCourse = Self.stored(course)
        storedAltitude = Self.stored(altitude)
    }

    public static func == (a: Fix, b: Fix) -> Bool {
        a.time == b.time && a.coordinate == b.coordinate && a.horizontalAccuracy == b.horizontalAccuracy
            && a.speed == b.speed && a.course == b.course && a.altitude == b.altitude
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(time)
        hasher.combine(coordinate)
        hasher.combine(horizontalAccuracy)
        hasher.combine(speed)
        hasher.combine(course)
        hasher.combine(altitude)
    }

    /// Whether the fix carries a position (`CLLocation` marks an invalid one with a negative accuracy).
    public var isValid: Bool { horizontalAccuracy >= 0 }
}
