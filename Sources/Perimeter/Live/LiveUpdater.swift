/// One device's live updates before authorization (SPEC §5.1, docs/live.md): which fixes yield an
/// update, when the device is found still and updates pause, when they resume, and when
/// `locationUnavailable` falls due. `LiveUpdates` adds what the app may have.
public struct LiveUpdater: Sendable, Hashable, Codable {
    /// What a record yields.
    public enum Step: Sendable, Hashable {
        /// Nothing: paused, an invalid fix, or not a fix.
        case none
        /// An update with the fix, `stationary` on the one that found the device still.
        case update(stationary: Bool)
    }

    public private(set) var configuration: LiveConfiguration
    /// The first fix of the current still run.
    private var anchor: Anchor?
    /// While paused, the fix about which the device stands still.
    private var pausedAbout: Coordinate?
    /// The last valid fix's time (before any, the first record's): `locationUnavailable` counts from it.
    private var lastValid: Timestamp?
    /// `locationUnavailable` was said since the last valid fix.
    private var unavailableSaid = false
    /// What the app sees under reduced accuracy.
    public private(set) var approximate: ApproximateReporter

    private struct Anchor: Sendable, Hashable, Codable {
        var time: Timestamp
        var coordinate: Coordinate
    }

    public init(configuration: LiveConfiguration = .default, approximateInterval: TimeSpan = ApproximateReporter.defaultInterval) {
        self.configuration = configuration
        approximate = ApproximateReporter(interval: approximateInterval)
    }

    /// Whether updates are paused.
    public var isPaused: Bool { pausedAbout != nil }

    /// When `locationUnavailable` falls due, if it can: not paused, not said since the last valid fix.
    public func unavailableDue(_ policy: LiveUpdatePolicy) -> Timestamp? {
        guard pausedAbout == nil, !unavailableSaid, let lastValid else { return nil }
        return lastValid.adding(TimeSpan(seconds: policy.unavailableAfter))
    }

    /// Records that `locationUnavailable` was said: not again before a valid fix.
    public mutating func markUnavailableSaid() {
        unavailableSaid = true
    }

    /// Takes the device's next record (in time order; the caller has said any `locationUnavailable`
    /// due before it).
    public mutating func take(_ observation: Observation, policy: LiveUpdatePolicy, location: ApproximateLocation) -> Step {
        if lastValid == nil { lastValid = observation.time }
        switch observation {
        case .fix(let fix) where fix.isValid:
            lastValid = fix.time
            unavailableSaid = false
            approximate.see(fix, in: location)
            return step(fix, stillness: policy.stillness(configuration))
        case .config(let change):
            if change.configuration != configuration {
                configuration = change.configuration
                anchor = nil
                // A device that was paused stopped looking: its silence counts from here, not from
                // its last fix.
                if pausedAbout != nil { lastValid = change.time }
                pausedAbout = nil
            }
            return .none
        default:
            return .none
        }
    }

    private mutating func step(_ fix: Fix, stillness: Stillness?) -> Step {
        let reach = max(stillness?.radius ?? 0, fix.horizontalAccuracy)
        if let centre = pausedAbout {
            if Geodesy.distance(fix.coordinate, centre) <= reach { return .none }
            pausedAbout = nil
            anchor = Anchor(time: fix.time, coordinate: fix.coordinate)
            return .update(stationary: false)
        }
        guard let stillness, let start = anchor, Geodesy.distance(fix.coordinate, start.coordinate) <= reach else {
            anchor = Anchor(time: fix.time, coordinate: fix.coordinate)
            return .update(stationary: false)
        }
        if fix.time >= start.time.adding(stillness.time) {
            pausedAbout = fix.coordinate
            anchor = nil
            return .update(stationary: true)
        }
        return .update(stationary: false)
    }

    private typealias Stillness = LiveUpdatePolicy.Stillness
}
