/// The policy values of SPEC's table, settable from the library and the tool.
public struct MonitoringPolicy: Sendable, Hashable {
    /// `H`: metres a fix must be past the boundary (beyond its accuracy margin) to change state.
    public var hysteresis: Double = 0
    /// `k`: how many accuracy radii a fix must be past the boundary; margin = max(H, k·accuracy).
    public var accuracyWeight: Double = 1
    /// Seconds of stream time the new side must hold before a geographic change completes.
    public var confirmation: Double = 0 { didSet { spans.confirmation = TimeSpan(seconds: confirmation) } }
    /// Seconds without a matching sighting after which a beacon condition becomes unsatisfied.
    public var beaconExitTimeout: Double = 30 { didSet { spans.beaconExitTimeout = TimeSpan(seconds: beaconExitTimeout) } }
    /// Seconds an app still counts as in use after leaving the foreground.
    public var gracePeriod: Double = 5 { didSet { spans.gracePeriod = TimeSpan(seconds: gracePeriod) } }
    /// Held events kept per device during provisional always.
    public var holdingCapacity: Int = 1
    /// Seconds of stream time a held event is kept before it is dropped as expired.
    public var maximumHoldingAge: Double = 3600 { didSet { spans.maximumHoldingAge = TimeSpan(seconds: maximumHoldingAge) } }
    /// The starting state of conditions added without an `assuming` of their own.
    public var defaultAssumption: ConditionState = .unknown
    /// How every device's authorization starts (SPEC §3): `always` for plain geofence evaluation of a
    /// recording, or `notDetermined` as a fresh install.
    public var initialAuthorization: InitialAuthorization = .always
    /// The platform's rules (docs/profiles.md): condition limits, the kinds monitored, dwelling, and
    /// (`ios18`) the 2024 service-session model (`session` records, `serviceSessionRequired`).
    public var profile: PlatformProfile = .standard {
        didSet { spans.loiteringDelay = profile.loiteringDelay.map { TimeSpan(seconds: $0) } }
    }

    /// The durations above as time spans, kept in step with them: records read them, and a span made
    /// from seconds on each record would cost a rounding each time.
    private(set) var spans = Spans()

    struct Spans: Sendable, Hashable {
        var confirmation = TimeSpan(seconds: 0)
        var beaconExitTimeout = TimeSpan(seconds: 30)
        var gracePeriod = TimeSpan(seconds: 5)
        var maximumHoldingAge = TimeSpan(seconds: 3600)
        var loiteringDelay: TimeSpan?
    }

    /// The defaults SPEC gives: no hysteresis, accuracy weight 1, no confirmation, a 30 s beacon exit,
    /// a 5 s grace period, one held event for at most an hour, conditions starting unknown, devices
    /// starting as always, the standard profile.
    public init() {}

    /// The margin m = max(H, k·a) of a fix (SPEC §2).
    @inline(__always)
    func margin(for fix: Fix) -> Double { max(hysteresis, accuracyWeight * fix.horizontalAccuracy) }

    /// Checks each value's range; returns a message naming the first bad one.
    public func problem() -> String? {
        if !(hysteresis >= 0 && hysteresis.isFinite) { return "hysteresis must be a finite number ≥ 0, got \(hysteresis)" }
        if !(accuracyWeight >= 0 && accuracyWeight.isFinite) { return "accuracy weight must be a finite number ≥ 0, got \(accuracyWeight)" }
        if !(confirmation >= 0 && confirmation.isFinite) { return "confirmation must be a finite number of seconds ≥ 0, got \(confirmation)" }
        if !(beaconExitTimeout > 0 && beaconExitTimeout.isFinite) { return "beacon exit timeout must be a finite number of seconds > 0, got \(beaconExitTimeout)" }
        if !(gracePeriod >= 0 && gracePeriod.isFinite) { return "grace period must be a finite number of seconds ≥ 0, got \(gracePeriod)" }
        if holdingCapacity < 0 { return "holding capacity must be ≥ 0, got \(holdingCapacity)" }
        if !(maximumHoldingAge >= 0 && maximumHoldingAge.isFinite) { return "maximum holding age must be a finite number of seconds ≥ 0, got \(maximumHoldingAge)" }
        return profile.problem()
    }
}
