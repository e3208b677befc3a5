/// The numbers of live updates the talks leave open (SPEC §5.1, *our rule*), with a flag of the same
/// name each in the tool.
public struct LiveUpdatePolicy: Sendable, Hashable, Codable {
    /// When a device counts as still: its valid fixes for `time` all within `radius` metres (or their
    /// own accuracy, if larger) of the first of them.
    public struct Stillness: Sendable, Hashable, Codable {
        public var radius: Double
        public var time: TimeSpan

        public init(radius: Double, seconds: Double) {
            self.radius = radius
            time = TimeSpan(seconds: seconds)
        }
    }

    /// The `default` configuration's row: 25 m for 180 s.
    public var stationaryRadius: Double = 25
    public var stationaryTime: Double = 180
    /// Seconds without a valid fix before a device that is not paused gets `locationUnavailable`.
    public var unavailableAfter: Double = 60
    /// The configuration every device starts with.
    public var initialConfiguration: LiveConfiguration = .default
    /// Seconds an approximate report stands (SPEC §5.3).
    public var approximateInterval: Double = 900

    public init() {}

    /// When a device with `configuration` counts as still; `nil` for one that never pauses. A car
    /// waits at lights for a minute or two without having stopped, so its row waits longer and
    /// allows more drift; a runner stands still only briefly, and within a few metres.
    public func stillness(_ configuration: LiveConfiguration) -> Stillness? {
        switch configuration {
        case .default: Stillness(radius: stationaryRadius, seconds: stationaryTime)
        case .automotiveNavigation: Stillness(radius: 100, seconds: 300)
        case .otherNavigation: Stillness(radius: 50, seconds: 240)
        case .fitness: Stillness(radius: 15, seconds: 120)
        case .airborne: nil
        }
    }

    /// The first value out of range, said as the flag's user would read it; `nil` when all are fine.
    public func problem() -> String? {
        for (name, value) in [("stationary radius", stationaryRadius), ("stationary time", stationaryTime),
                              ("unavailable after", unavailableAfter), ("approximate interval", approximateInterval)]
        where !(value.isFinite && value >= 0) {
            return "the \(name) must be a finite number ≥ 0, got \(value)"
        }
        return nil
    }
}
