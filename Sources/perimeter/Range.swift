import ArgumentParser
import Foundation
import Perimeter
import PerimeterIO

struct RangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "range",
        abstract: "Range beacons (CLBeaconIdentityConstraint): one result per device, constraint and second, nearest beacon first.",
        discussion: """
            The constraints are the beacon features of --conditions with "ranging": true; --events monitors every condition of the file too, as `evaluate` would (use --assume unsatisfied with many beacon conditions, or every device gets an event per condition when their first exits fall due). Results go to standard output (or --out), one JSON object a line (docs/ranging.md); --events writes the monitoring events of the same run. A summary goes to standard error. The first bad record stops the run, naming file, line and field.

            EXAMPLES:
              perimeter range --conditions museum.geojson --observations visit.jsonl
              perimeter range --conditions museum.geojson --observations visits.csv \\
                              --out ranging.jsonl --ranging-window 10 --initial-authorization notDetermined

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions; beacon features with \"ranging\": true are ranged.")
    var conditions: String

    @Option(help: "CSV of group memberships (header device,group) for conditions with properties.groups.")
    var groups: String?

    @Option(help: "JSON Lines or CSV observations; '-' reads standard input.")
    var observations: String

    @Option(help: "Where results go (JSON Lines); standard output when absent.")
    var out: String?

    @Option(help: "Write the monitoring events of the run (JSON Lines) to this file.")
    var events: String?

    @Option(help: "Observation format (jsonl or csv); by default from the extension, else the first line.")
    var format: ObservationFormat?

    @Option(parsing: .unconditional, help: "Seconds of sightings each result is made from.")
    var rangingWindow: Double = 20

    @Option(parsing: .unconditional, help: "The path-loss exponent n of the distance estimate 10^((power − rssi) / (10·n)).")
    var pathLossExponent: Double = 2

    @Option(help: "The longest observation line read, in bytes.")
    var maxLineBytes: Int = ObservationReader.defaultMaxLineBytes

    @OptionGroup var policy: PolicyOptions

    /// Sightings handed to the ranging's batch path at once.
    static let batchSize = 4096

    func validate() throws {
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1") }
        if let problem = rangingPolicy().problem() { throw ValidationError(problem) }
    }

    func rangingPolicy() -> RangingPolicy {
        var ranging = RangingPolicy()
        ranging.rangingWindow = rangingWindow
        ranging.pathLossExponent = pathLossExponent
        return ranging
    }

    func run() throws {
        let start = ContinuousClock.now
        let definitions = try CommandSupport.readConditions(conditions, repair: false, threads: CommandSupport.usableProcessorCount)
        let constraints = definitions.rangingConstraints
        guard !constraints.isEmpty else {
            throw ValidationError("\(conditions) has no ranging constraint: mark beacon features with \"ranging\": true")
        }
        if let scoped = definitions.first(where: { $0.ranging && !$0.audience.isEveryone }) {
            throw CommandSupport.fail("\(conditions):\(scoped.line): feature \"\(scoped.identifier)\": ranging is for every device: a ranged beacon cannot have properties.devices or properties.groups (yet)")
        }
        // Only `--events` needs the conditions monitored: the results need the authorization alone,
        // which no condition changes. (Monitoring 100k beacon conditions that start `unknown` writes
        // an event per device and condition when their first exits fall due.)
        var monitoring = MonitoringEngine(policy: try policy.policy())
        monitoring.batchThreads = CommandSupport.usableProcessorCount
        if let groups { monitoring.setGroups(try CommandSupport.readGroups(groups)) }
        if events != nil {
            do {
                try monitoring.add(contentsOf: definitions)
            } catch {
                throw CommandSupport.fail("\(conditions): \(error)")
            }
        }
        // With events, a record at a time, so that each record's events are written before the next.
        let batchSize = events == nil ? Self.batchSize : 1
        var ranging = BeaconRanging(monitoring: monitoring, constraints: constraints, policy: rangingPolicy())
        var results: [RangingResult] = [], monitorEvents: [MonitorEvent] = []
        func write(_ out: inout BufferedOutput) throws(InputError) {
            guard !results.isEmpty else { return }
            try out.append(encoding: results, threads: CommandSupport.usableProcessorCount) { RangingResultEncoding.append($0, to: &$1) }
            results.removeAll(keepingCapacity: true)
        }
        var ids = DeviceNumbers()
        // Runs of sightings go through `BeaconRanging`'s batch path.
        var pending = PendingRun<SightingRecord>(observations: observations)
        func applyPending() throws {
            try pending.apply({ batch throws(BatchProblem) in try ranging.process(batch, events: &monitorEvents, results: &results) },
                              line: \.cause)
        }
        let stream = RecordStream(observations: observations, format: format, maxLineBytes: maxLineBytes)
        let records = try stream.run(main: (out == nil ? "standard output" : "--out", out ?? "-"), events: events,
                                     inputs: [("--conditions", conditions)],
            take: { record, out, eventsOut in
                let id = ids.id(record, &ranging)
                if case .sighting(let sighting) = record.observation {
                    pending.append(SightingRecord(device: id, sighting: sighting, cause: record.line))
                    if pending.count < batchSize { return }
                    try applyPending()
                } else {
                    try applyPending()
                    try ranging.process(record.observation, device: id, name: record.device, cause: record.line, events: &monitorEvents, results: &results)
                }
                try write(&out)
                try RecordStream.write(&monitorEvents, to: &eventsOut)
            },
            finish: { out, eventsOut in
                try applyPending()
                ranging.finish(events: &monitorEvents, results: &results)
                try write(&out)
                try RecordStream.write(&monitorEvents, to: &eventsOut)
            })
        let seconds = CommandSupport.seconds(since: start)
        CommandSupport.printError("perimeter: \(records) records read, \(constraints.count) ranging constraints, \(ranging.resultCount) results "
            + "(\(ranging.resultCount - ranging.droppedCount) delivered, \(ranging.droppedCount) dropped) in "
            + String(format: "%.2f s, %.0f records/s", seconds, Double(records) / max(seconds, 1e-9)))
    }
}
