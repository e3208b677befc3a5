import ArgumentParser
import Foundation
import Perimeter
import PerimeterIO

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What if: one recording under several policies, side by side.",
        discussion: """
            Each --variant is a comma list of evaluate's policy options without their dashes, each variant starting from evaluate's defaults: profile=ios18,initial=notDetermined,holding-capacity=3 (initial is short for initial-authorization). Per variant: the events delivered (at once, or held and then delivered), still held at the end, and dropped by reason; the authorization records it refuses (an answer no prompt it opened offers); then the conditions whose delivered events differ between the variants (docs/whatif.md). Geometry does not depend on authorization: variants that share it are evaluated once and their delivery replayed. The first record that is bad whatever the policy stops the run, naming file, line and field.

            EXAMPLES:
              perimeter compare --conditions stores.geojson --observations week.jsonl \\
                --variant profile=standard \\
                --variant profile=ios18,initial=notDetermined
              perimeter compare --conditions c.geojson --observations o.csv \\
                --json --out what-if.json \\
                --variant initial=notDetermined \\
                --variant initial=notDetermined,holding-capacity=3

            \(ExitStatus.table)
            """
    )

    @Option(help: "GeoJSON FeatureCollection of conditions.")
    var conditions: String

    @Option(help: "CSV of group memberships (header device,group) for conditions with properties.groups.")
    var groups: String?

    @Option(help: "JSON Lines or CSV observations; '-' reads standard input.")
    var observations: String

    @Option(name: .customLong("variant"), help: "A policy to compare: evaluate's options as key=value,key=value (at least two variants).")
    var variants: [String] = []

    @Flag(help: "Write the comparison as one JSON object instead of text.")
    var json = false

    @Option(help: "Where the comparison goes; standard output when absent.")
    var out: String?

    @Option(help: "Observation format (jsonl or csv); by default from the extension, else the first line.")
    var format: ObservationFormat?

    @Option(help: "The longest observation line read, in bytes.")
    var maxLineBytes: Int = ObservationReader.defaultMaxLineBytes

    func validate() throws {
        guard variants.count >= 2 else { throw ValidationError("compare needs at least two --variant options") }
        guard maxLineBytes >= 1 else { throw ValidationError("--max-line-bytes must be at least 1") }
        for spec in variants { _ = try Self.policy(spec) }
    }

    /// The policy a variant names: its options parsed as evaluate's flags.
    static func policy(_ spec: String) throws -> MonitoringPolicy {
        var arguments: [String] = []
        for item in spec.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--variant \(spec): \"\(item)\" is not key=value (e.g. profile=ios18,initial=notDetermined)")
            }
            let key = parts[0] == "initial" ? "initial-authorization" : String(parts[0])
            arguments += ["--" + key, String(parts[1])]
        }
        do {
            return try PolicyOptions.parse(arguments).policy()
        } catch {
            throw ValidationError("--variant \(spec): \(PolicyOptions.message(for: error))")
        }
    }

    func run() throws {
        let start = ContinuousClock.now
        let definitions = try CommandSupport.readConditions(conditions, repair: false, threads: CommandSupport.usableProcessorCount)
        CommandSupport.warnIfEmpty(definitions, path: conditions)
        let memberships = try groups.map(CommandSupport.readGroups) ?? [:]
        var reader: ObservationReader
        do {
            reader = try ObservationReader(path: observations, format: format, maxLineBytes: maxLineBytes)
        } catch {
            throw CommandSupport.fail(error.description)
        }
        var records: [WhatIfComparison.Recorded] = []
        while let next = reader.next() {
            switch next {
            case .success(let record):
                records.append(WhatIfComparison.Recorded(device: record.device, observation: record.observation, cause: record.line))
            case .failure(let error): throw CommandSupport.fail(error.description)
            }
        }
        let comparison: WhatIfComparison
        do {
            comparison = try WhatIfComparison(conditions: definitions.map { ($0.condition, $0.identifier, $0.assuming, $0.audience) },
                                              groups: memberships, records: records,
                                              variants: try variants.map { .init(name: $0, policy: try Self.policy($0)) },
                                              threads: CommandSupport.usableProcessorCount)
        } catch let bad as WhatIfComparison.BadRecord {
            throw CommandSupport.fail(InputError(file: reader.file, line: bad.cause, field: bad.problem.field, message: bad.problem.message).description)
        } catch {
            throw CommandSupport.fail("\(conditions): \(error)")
        }
        let report = json ? ComparisonReport.json(comparison, records: records.count) : ComparisonReport.text(comparison, records: records.count)
        do {
            var output = try BufferedOutput(replacing: out ?? "-")
            try output.append(report)
            try output.commit()
        } catch {
            throw CommandSupport.fail(error.description)
        }
        let seconds = CommandSupport.seconds(since: start)
        CommandSupport.printError("perimeter: \(records.count) records, \(variants.count) variants, \(comparison.geometryPasses) geometry "
            + (comparison.geometryPasses == 1 ? "pass" : "passes") + String(format: " in %.2f s", seconds))
    }
}
