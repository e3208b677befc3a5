import Foundation
import ArgumentParser
import Perimeter
import PerimeterIO

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a recorded stream of fixes and sightings against conditions; write monitor events as JSON Lines."
    )

    @Option(help: "GeoJSON FeatureCollection of conditions.")
    var conditions: String

    @Option(help: "JSON Lines or CSV observations; '-' reads standard input.")
    var observations: String

    @Option(help: "Where events go (JSON Lines); standard output when absent.")
    var out: String?

    @Option(help: "Observation format (jsonl or csv); by default from the extension, else the first line.")
    var format: ObservationFormat?

    @Option(help: "Write bad records with their reason to this file and go on (default: stop at the first).")
    var quarantine: String?

    @Option(help: "Write authorization changes (status, accuracy, provisional and temporary grants, use) as JSON Lines to this file.")
    var authorizationOut: String?

    @Option(help: "Write the summary (records read, rejected, events by verdict and reason, throughput) to this file instead of standard error.")
    var summary: String?

    @Flag(help: "Repair invalid polygons with GEOS make-valid instead of refusing them.")
    var repairPolygons = false

    @Option(help: "Threads for reading and evaluating (default: the processors this process may run on).")
    var threads: Int?

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        guard threads.map({ $0 >= 1 }) ?? true else { throw CommandSupport.fail("--threads must be at least 1") }
        var engine = try CommandSupport.loadEngine(conditions: conditions, policy: policy.policy(), repair: repairPolygons,
                                                   threads: threads ?? CommandSupport.usableProcessorCount)
        do throws(InputError) {
            var reader = try ObservationReader(path: observations, format: format)
            reader.threads = engine.batchThreads
            var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out ?? "-"))
            if let quarantine { outputs.quarantine = try BufferedOutput(path: quarantine) }
            if let authorizationOut { outputs.authorization = try BufferedOutput(path: authorizationOut) }
            // Opened before the evaluation, so that a path that cannot be written stops the run at once.
            var summaryFile: BufferedOutput?
            if let summary { summaryFile = try BufferedOutput(path: summary) }
            let result = try BatchEvaluation.run(
                engine: &engine, observations: &reader, outputs: &outputs,
                badRecords: quarantine == nil ? .stop : .quarantine,
                progress: { CommandSupport.printError("perimeter: … \($0.recordsRead) records, \($0.events) events, \(Int($0.recordsPerSecond)) records/s") })
            if var file = summaryFile.take() {
                try file.append(result.report + "\n")
                try file.flush()
            } else {
                CommandSupport.printError("perimeter: " + result.report.replacingNewlines(with: "\nperimeter: "))
            }
        } catch {
            throw CommandSupport.fail(error.description)
        }
    }
}

extension ObservationFormat: ExpressibleByArgument {}

extension String {
    func replacingNewlines(with replacement: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
