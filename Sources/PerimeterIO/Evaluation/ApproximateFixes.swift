import Perimeter

/// `evaluate --approximate`: for every valid fix the engine takes, the approximate fix a
/// reduced-accuracy app would see then (docs/approximate.md), whatever the device's authorization.
public struct ApproximateFixes: ~Copyable {
    public var output: BufferedOutput
    public let location: ApproximateLocation
    let interval: TimeSpan
    /// Indexed by the engine's `DeviceID`.
    var reporters: [ApproximateReporter] = []

    public init(output: consuming BufferedOutput, location: ApproximateLocation,
                interval: TimeSpan = ApproximateReporter.defaultInterval) {
        self.output = output
        self.location = location
        self.interval = interval
    }

    /// Takes a fix the engine took (a refused one is not seen).
    mutating func take(_ fix: Fix, device: DeviceID, cause: Int, engine: borrowing MonitoringEngine) throws(InputError) {
        guard fix.isValid else { return }
        let di = Int(device.index)
        while reporters.count <= di { reporters.append(ApproximateReporter(interval: interval)) }
        guard let report = reporters[di].see(fix, in: location) else { return }
        let name = engine.name(of: device)
        try output.append { ApproximateFixEncoding.append(device: name, date: fix.time, report: report, cause: cause, to: &$0) }
    }
}
