import Foundation
import ArgumentParser
import Perimeter
import PerimeterIO

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a recorded stream of fixes and sightings against conditions; write monitor events as JSON Lines.",
        discussion: """
            Events go to standard output (or --out), one JSON object a line; a summary goes to standard error (or --summary). The first bad record stops the run, naming file, line and field, unless --quarantine sets bad records aside. A conditions file without features, or observations without records, is no error: the run finishes with a warning on standard error.

            EXAMPLES:
              perimeter evaluate --conditions Fixtures/city/conditions.geojson \\
                                 --observations Fixtures/city/observations.jsonl
              perimeter evaluate --conditions zones.geojson --observations fixes.csv \\
                                 --out events.jsonl --quarantine bad.jsonl --hysteresis 20
              producer | perimeter evaluate --conditions zones.geojson \\
                                            --observations - --format jsonl

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions.")
    var conditions: String

    @Option(help: "CSV of group memberships (header device,group) for conditions with properties.groups.")
    var groups: String?

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

    @Option(help: "Write the approximate fix a reduced-accuracy app would see for every valid fix (JSON Lines) to this file.")
    var approximate: String?

    @OptionGroup var approximation: ApproximateOptions

    @Flag(help: "Repair invalid polygons with GEOS make-valid instead of refusing them.")
    var repairPolygons = false

    @Option(help: "Threads for reading and evaluating (default: the processors this process may run on).")
    var threads: Int?

    @Option(help: "Keep the conditions' built indexes in this file, and load them from it when it was made from the same conditions, options and build (checked by SHA-256), instead of reading and indexing the conditions again. Made when missing or outdated; a file that is not an index cache is never replaced.")
    var indexCache: String?

    @Option(help: "The longest observation line read, in bytes; a longer one is a bad record, quarantined as its first 4096 bytes and its length.")
    var maxLineBytes: Int = ObservationReader.defaultMaxLineBytes

    @OptionGroup var policy: PolicyOptions

    @Option(help: "Keep the monitor's state in this SQLite file: each run goes on from the state the last left (a stream in parts), and a run that stopped goes on from its last checkpoint when run again. Needs --out.")
    var state: String?

    @Option(help: "With --state: the monitor's name in the state file.")
    var monitor = "evaluate"

    @Flag(help: "With --state: this file ends the stream, so the beacon exits due at its end fire (without it, a later part may still cancel them).")
    var final = false

    @Option(help: "With --state: seconds between checkpoints.")
    var checkpointInterval: Double = 10

    @Option(help: "With --state: a checkpoint at least every this many records too.")
    var checkpointRecords: Int?

    @Flag(help: "With --state: when the state holds a run of another command that stopped, end it at its last checkpoint (its outputs put in place with the events up to there) and go on with this command from there.")
    var endStoppedRun = false

    func validate() throws {
        // (Usage errors, as the policy flags' bad values are: `ExitStatus.usage`.)
        guard threads.map({ $0 >= 1 }) ?? true else { throw ValidationError("--threads must be at least 1") }
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1") }
        guard checkpointInterval >= 0 && checkpointInterval.isFinite else { throw ValidationError("--checkpoint-interval must be a number of seconds ≥ 0") }
        guard checkpointRecords.map({ $0 >= 1 }) ?? true else { throw ValidationError("--checkpoint-records must be at least 1") }
        if approximate == nil && (approximation.density != nil || approximation.approximateCell != 5 || approximation.approximateInterval != 900) {
            throw ValidationError("--density, --approximate-cell and --approximate-interval go with --approximate FILE")
        }
        if indexCache == "-" { throw ValidationError("--index-cache needs a file: it is read and written") }
        if state != nil && indexCache != nil {
            throw ValidationError("--index-cache does not go with --state: a state run keeps its conditions in the state file")
        }
        if state != nil && approximate != nil {
            throw ValidationError("--approximate does not go with --state: its reporters are not kept in the state file")
        }
        if state == nil {
            for (flag, given) in [("--final", final), ("--monitor", monitor != "evaluate"), ("--checkpoint-interval", checkpointInterval != 10),
                                  ("--checkpoint-records", checkpointRecords != nil), ("--end-stopped-run", endStoppedRun)] where given {
                throw ValidationError("\(flag) goes with --state")
            }
        } else if out == nil {
            throw ValidationError("--state needs --out FILE: events written to standard output cannot be taken back after a crash")
        }
    }

    func run() throws {
        if let state { return try runWithState(state) }
        // Files written are staged beside their targets and put in place only when the run succeeds.
        let written = [(out == nil ? "standard output" : "--out", out ?? "-"), ("--quarantine", quarantine), ("--authorization-out", authorizationOut),
                       ("--summary", summary), ("--approximate", approximate)].compactMap { option, path in path.map { (option: option, path: $0) } }
        do throws(InputError) {
            try SameFileCheck.refuseOverlaps(inputs: [("--conditions", conditions), ("--observations", observations)]
                                                + (approximation.density.map { [("--density", $0)] } ?? [])
                                                + (groups.map { [("--groups", $0)] } ?? []),
                                             outputs: written + (indexCache.map { [("--index-cache", $0)] } ?? []))
        } catch {
            throw CommandSupport.fail(error.description)
        }
        let threads = threads ?? CommandSupport.usableProcessorCount
        var engine = try indexCache.map {
            try CommandSupport.loadEngine(conditions: conditions, indexCache: $0, groups: groups, policy: policy.policy(), repair: repairPolygons,
                                          threads: threads)
        } ?? CommandSupport.loadEngine(conditions: conditions, groups: groups, policy: policy.policy(), repair: repairPolygons, threads: threads)
        let approximateLocation = try approximation.location()
        var partials: [(option: String, path: String, partial: String)] = []
        func staged(_ option: String, _ path: String) throws(InputError) -> BufferedOutput {
            let output = try BufferedOutput(replacing: path)
            if let partial = output.partialPath { partials.append((option, path, partial)) }
            return output
        }
        do throws(InputError) {
            var reader = try ObservationReader(path: observations, format: format, maxLineBytes: maxLineBytes)
            reader.threads = engine.batchThreads
            var outputs = BatchEvaluation.Outputs(events: try staged("--out", out ?? "-"))
            if let quarantine { outputs.quarantine = try staged("--quarantine", quarantine) }
            if let authorizationOut { outputs.authorization = try staged("--authorization-out", authorizationOut) }
            if let approximate {
                outputs.approximate = ApproximateFixes(output: try staged("--approximate", approximate), location: approximateLocation,
                                                       interval: TimeSpan(seconds: approximation.approximateInterval))
            }
            // Opened before the evaluation, so that a path that cannot be written stops the run at once.
            var summaryFile: BufferedOutput?
            if let summary { summaryFile = try staged("--summary", summary) }
            InterruptNote.install(Self.leftAsTheyWere(partials, why: "stopped by a signal").map { "perimeter: error: \($0)\n" }.joined())
            let result = try BatchEvaluation.run(
                engine: &engine, observations: &reader, outputs: &outputs,
                badRecords: quarantine == nil ? .stop : .quarantine,
                progress: { CommandSupport.printError("perimeter: … \($0.recordsRead) records, \($0.events) events, \(Int($0.recordsPerSecond)) records/s") })
            try outputs.events.commit()
            try outputs.quarantine?.commit()
            try outputs.authorization?.commit()
            try outputs.approximate?.output.commit()
            if result.recordsRead == 0 {
                CommandSupport.warn("\(observations == "-" ? "standard input" : observations): no records, so no event came")
            }
            if var file = summaryFile.take() {
                try file.append(result.report + "\n")
                try file.commit()
            } else {
                CommandSupport.printError("perimeter: " + result.report.replacingNewlines(with: "\nperimeter: "))
            }
            CommandSupport.keepUntilExit(engine)
        } catch {
            // (The outputs were closed as the block ended. An empty partial file — the run stopped before
            // writing anything to it — holds nothing to keep.)
            var status = stat()
            let kept = partials.filter { stat($0.partial, &status) == 0 && (status.st_size > 0 || unlink($0.partial) != 0) }
            let left = Self.leftAsTheyWere(kept, why: "the run did not finish")
            throw CommandSupport.fail(([error.description] + left).joined(separator: "\n"))
        }
    }

    /// A line for each staged output, saying it was left as it was and where its partial output is.
    private static func leftAsTheyWere(_ partials: [(option: String, path: String, partial: String)], why: String) -> [String] {
        partials.map { "\(why): \($0.option) \($0.path) is not replaced; what was written is in \($0.partial)" }
    }
}

extension ObservationFormat: ExpressibleByArgument {}

extension String {
    func replacingNewlines(with replacement: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
