import ArgumentParser
import Foundation
import Perimeter
import PerimeterIO

struct Updates: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn each device's fixes into live updates (CLLocationUpdate): pauses when still, locationUnavailable, what the app may have.",
        discussion: """
            Updates go to standard output (or --out), one JSON object a line (docs/live.md); --events writes the monitoring events of the same run, the same as `perimeter evaluate` writes. A summary goes to standard error. The first bad record stops the run, naming file, line and field.

            CONFIGURATIONS (stationary radius, time): default 25 m 180 s (--stationary-radius, --stationary-time), automotiveNavigation 100 m 300 s, otherNavigation 50 m 240 s, fitness 15 m 120 s, airborne never pauses. A `config` record changes a device's.

            EXAMPLES:
              perimeter updates --observations Fixtures/city/observations.jsonl
              perimeter updates --conditions zones.geojson --observations fixes.csv \\
                                --out updates.jsonl --events events.jsonl --live fitness

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions to monitor beside the updates, for --events (optional).")
    var conditions: String?

    @Option(help: "CSV of group memberships (header device,group) for conditions with properties.groups.")
    var groups: String?

    @Option(help: "JSON Lines or CSV observations; '-' reads standard input.")
    var observations: String

    @Option(help: "Where updates go (JSON Lines); standard output when absent.")
    var out: String?

    @Option(help: "Write the monitoring events of the run (JSON Lines) to this file.")
    var events: String?

    @Option(help: "Observation format (jsonl or csv); by default from the extension, else the first line.")
    var format: ObservationFormat?

    @Option(help: "The live configuration every device starts with: default, automotiveNavigation, otherNavigation, fitness or airborne.")
    var live: LiveConfiguration = .default

    @Option(parsing: .unconditional, help: "Metres within which the default configuration's fixes count as still.")
    var stationaryRadius: Double = 25

    @Option(parsing: .unconditional, help: "Seconds the default configuration's fixes must stay still before updates pause.")
    var stationaryTime: Double = 180

    @Option(parsing: .unconditional, help: "Seconds without a valid fix before a device that is not paused gets locationUnavailable.")
    var unavailableAfter: Double = 60

    @OptionGroup var approximate: ApproximateOptions

    @Flag(help: "Repair invalid polygons with GEOS make-valid instead of refusing them.")
    var repairPolygons = false

    @Option(help: "The longest observation line read, in bytes.")
    var maxLineBytes: Int = ObservationReader.defaultMaxLineBytes

    @OptionGroup var policy: PolicyOptions

    /// Fixes handed to the batch path at once, and about how many events a batch may hold.
    static let batchSize = 1 << 16, eventBudget = 1 << 20

    func validate() throws {
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1") }
        if let problem = livePolicy().problem() { throw ValidationError(problem) }
    }

    func livePolicy() -> LiveUpdatePolicy {
        var live = LiveUpdatePolicy()
        live.stationaryRadius = stationaryRadius
        live.stationaryTime = stationaryTime
        live.unavailableAfter = unavailableAfter
        live.initialConfiguration = self.live
        live.approximateInterval = approximate.approximateInterval
        return live
    }

    func run() throws {
        let start = ContinuousClock.now
        // The updates need the authorization alone, which no condition changes: the conditions are
        // monitored only for `--events` (and read and checked in any case).
        var monitoring = MonitoringEngine(policy: try policy.policy())
        if let conditions {
            if events != nil {
                monitoring = try CommandSupport.loadEngine(conditions: conditions, groups: groups, policy: policy.policy(), repair: repairPolygons)
            } else {
                _ = try CommandSupport.readConditions(conditions, repair: repairPolygons, threads: CommandSupport.usableProcessorCount)
            }
        }
        var updates = LiveUpdates(monitoring: monitoring, policy: livePolicy(), approximateLocation: try approximate.location())
        var produced: [LiveUpdate] = [], monitorEvents: [MonitorEvent] = []
        var withoutLocation = 0
        func write(_ out: inout BufferedOutput) throws(InputError) {
            guard !produced.isEmpty else { return }
            for update in produced where update.location == nil { withoutLocation += 1 }
            try out.append(encoding: produced, threads: CommandSupport.usableProcessorCount) { LiveUpdateEncoding.append($0, to: &$1) }
            produced.removeAll(keepingCapacity: true)
        }
        let inputs = [("--conditions", conditions), ("--density", approximate.density)].compactMap { o, p in p.map { (option: o, path: $0) } }
        var ids = DeviceNumbers()
        // Runs of fixes go through `LiveUpdates`' batch path.
        var pending = PendingRun<FixRecord>(observations: observations)
        func applyPending() throws {
            try pending.apply({ batch throws(BatchProblem) in try updates.process(batch, events: &monitorEvents, updates: &produced) },
                              line: \.cause)
        }
        let stream = RecordStream(observations: observations, format: format, maxLineBytes: maxLineBytes)
        let records = try stream.run(main: (out == nil ? "standard output" : "--out", out ?? "-"), events: events, inputs: inputs,
            take: { record, out, eventsOut in
                let id = ids.id(record, &updates)
                if case .fix(let fix) = record.observation {
                    pending.append(FixRecord(device: id, fix: fix, cause: record.line))
                    // A batch holds its events until it returns: cut it before the events its devices'
                    // starts can produce pass a budget, as `evaluate` does.
                    if updates.monitoring.hasStartEvents { pending.eventBound += updates.monitoring.startEventBound(id) }
                    if pending.count < Self.batchSize && pending.eventBound < Self.eventBudget { return }
                    try applyPending()
                } else {
                    try applyPending()
                    try updates.process(record.observation, device: id, name: record.device, cause: record.line, events: &monitorEvents, updates: &produced)
                }
                try write(&out)
                try RecordStream.write(&monitorEvents, to: &eventsOut)
            },
            finish: { out, eventsOut in
                try applyPending()
                updates.finish(events: &monitorEvents, updates: &produced)
                try write(&out)
                try RecordStream.write(&monitorEvents, to: &eventsOut)
            })
        let seconds = CommandSupport.seconds(since: start)
        CommandSupport.printError("perimeter: \(records) records read, \(updates.updateCount) updates (\(updates.stationaryCount) stationary, "
            + "\(updates.unavailableCount) locationUnavailable, \(withoutLocation) without a location) in "
            + String(format: "%.2f s, %.0f records/s", seconds, Double(records) / max(seconds, 1e-9)))
    }
}

extension LiveConfiguration: ExpressibleByArgument {}
