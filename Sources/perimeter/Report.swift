import Foundation
import ArgumentParser
import Perimeter
import PerimeterIO

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one self-contained HTML report: a map of the conditions, tracks and events, per-device timelines, and the summary.",
        discussion: """
            Without --events the observations are evaluated first, with the policy flags evaluate takes (bad records are set aside and listed). With --events (and --authorization) the report shows those outputs of an earlier evaluate instead. The first --devices devices to appear are drawn (or those --device names); the summary counts every device.

            EXAMPLES:
              perimeter report --conditions Fixtures/city/conditions.geojson \\
                               --observations Fixtures/city/observations.jsonl --out city.html
              perimeter report --conditions zones.geojson --observations fixes.csv \\
                               --events events.jsonl --authorization auth.jsonl --out report.html

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions.")
    var conditions: String

    @Option(help: "JSON Lines or CSV observations.")
    var observations: String

    @Option(help: "Events of an earlier evaluate (JSON Lines); without it the observations are evaluated here.")
    var events: String?

    @Option(help: "Authorization changes of an earlier evaluate (--authorization-out), with --events.")
    var authorization: String?

    @Option(help: "CSV of group memberships (header device,group), for the evaluation.")
    var groups: String?

    @Option(help: "Observation format (jsonl or csv); by default from the extension, else the first line.")
    var format: ObservationFormat?

    @Option(help: "The HTML file to write.")
    var out: String

    @Option(help: "How many devices to draw: the first to appear in the observations.")
    var devices = 100

    @Option(help: "A device to draw (repeat for several); instead of the first --devices.")
    var device: [String] = []

    @Option(help: "The report's title (default: the observations file's name).")
    var title: String?

    @Flag(help: "Repair invalid polygons with GEOS make-valid instead of refusing them.")
    var repairPolygons = false

    @Option(help: "Threads for reading and evaluating (default: the processors this process may run on).")
    var threads: Int?

    @OptionGroup var policy: PolicyOptions

    func validate() throws {
        guard devices >= 1 else { throw ValidationError("--devices must be at least 1") }
        guard threads.map({ $0 >= 1 }) ?? true else { throw ValidationError("--threads must be at least 1") }
        if observations == "-" {
            throw ValidationError("--observations must be a file: the report reads it twice (once to evaluate, once for the tracks)")
        }
        if authorization != nil && events == nil {
            throw ValidationError("--authorization goes with --events (without --events the report evaluates, and has its own)")
        }
    }

    func run() throws {
        let start = ContinuousClock.now
        let inputs = [("--conditions", conditions), ("--observations", observations)] + [("--events", events), ("--authorization", authorization),
                                                                                         ("--groups", groups)].compactMap { flag, path in path.map { (flag, $0) } }
        do throws(InputError) {
            try SameFileCheck.refuseOverlaps(inputs: inputs, outputs: [(option: "--out", path: out)])
        } catch {
            throw CommandSupport.fail(error.description)
        }
        let threads = threads ?? CommandSupport.usableProcessorCount
        let definitions = try CommandSupport.readConditions(conditions, repair: repairPolygons, threads: threads)
        var options = ReportBuilder.Options(title: title ?? URL(fileURLWithPath: observations).lastPathComponent)
        options.devices = device
        options.deviceCount = devices
        options.gracePeriod = policy.gracePeriod
        var builder = ReportBuilder(definitions: definitions, options: options)
        do {
            if let events {
                try builder.readObservations(path: observations, format: format, threads: threads)
                try builder.readEvents(path: events)
                if let authorization { try builder.readAuthorization(path: authorization) }
            } else {
                try evaluate(definitions: definitions, threads: threads, into: &builder)
            }
            let data = builder.finish()
            let page = try ReportPage.html(data)
            var file = try BufferedOutput(replacing: out)
            try file.append(page)
            try file.commit()
            let drawn = data.devices.reduce(0) { $0 + $1.events.count }
            CommandSupport.printError("perimeter: report of \(data.devices.count) of \(data.summary.devices) devices, \(drawn) events, "
                                      + "\(data.conditions.count) conditions drawn, \(page.utf8.count) bytes, in "
                                      + String(format: "%.2f s", CommandSupport.seconds(since: start)))
        } catch let error as InputError {
            throw CommandSupport.fail(error.description)
        }
    }

    /// Evaluates the observations as `evaluate` would, into files in a scratch directory that the
    /// report then reads. The run stops at a bad record, as the fastest; the first bad record starts it
    /// again from the beginning quarantining them all, to list them in the report.
    private func evaluate(definitions: [ConditionDefinition], threads: Int, into builder: inout ReportBuilder) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("perimeter-report-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let eventsPath = scratch + "/events.jsonl", authorizationPath = scratch + "/authorization.jsonl", quarantinePath = scratch + "/quarantine.jsonl"
        // (Kept unchanged for a second run: the run changes a copy.)
        let loaded = try CommandSupport.loadEngine(definitions: definitions, path: conditions, groups: groups, policy: policy.policy(), threads: threads)
        do throws(InputError) {
            var badRecords = BatchEvaluation.BadRecords.stop
            var summary: EvaluationSummary
            while true {
                var engine = loaded
                var reader = try ObservationReader(path: observations, format: format)
                reader.threads = engine.batchThreads
                var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: eventsPath))
                outputs.authorization = try BufferedOutput(path: authorizationPath)
                outputs.quarantine = try BufferedOutput(path: quarantinePath)
                do throws(InputError) {
                    summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: badRecords)
                } catch where badRecords == .stop && error.file == observations && !reader.failed {
                    badRecords = .quarantine
                    continue
                }
                try outputs.events.commit()
                try outputs.authorization?.commit()
                try outputs.quarantine?.commit()
                break
            }
            try builder.readObservations(path: observations, format: format, countRejected: false, threads: threads)
            builder.setCounts(records: summary.recordsRead, rejected: 0)
            try ReportBuilder.forEachQuarantined(in: quarantinePath) { builder.noteRejected($0) }
            try builder.readEvents(path: eventsPath)
            try builder.readAuthorization(path: authorizationPath)
        } catch {
            throw CommandSupport.fail(error.description)
        }
    }
}
