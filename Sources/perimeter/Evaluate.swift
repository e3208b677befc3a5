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

    @Flag(help: "Repair invalid polygons with GEOS make-valid instead of refusing them.")
    var repairPolygons = false

    @OptionGroup var policy: PolicyOptions

    func run() throws {
        var engine = try CommandSupport.loadEngine(conditions: conditions, policy: policy.policy(), repair: repairPolygons)
        do throws(InputError) {
            var reader = try ObservationReader(path: observations, format: format)
            var output = try BufferedOutput(path: out ?? "-")
            var quarantineOutput: BufferedOutput? = nil
            if let quarantine { quarantineOutput = try BufferedOutput(path: quarantine) }
            let summary = try BatchEvaluation.run(
                engine: &engine, observations: &reader, events: &output,
                badRecords: quarantine == nil ? .stop : .quarantine, quarantine: &quarantineOutput,
                progress: { CommandSupport.printError("perimeter: … \($0.recordsRead) records, \($0.events) events, \(Int($0.recordsPerSecond)) records/s") })
            CommandSupport.printError("perimeter: " + summary.report.replacingNewlines(with: "\nperimeter: "))
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
