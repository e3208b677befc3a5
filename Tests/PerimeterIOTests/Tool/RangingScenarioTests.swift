import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The ranging scenarios of `Fixtures/ranging/` (SPEC §5.2, docs/ranging.md), each run through the
/// tool and through the library's `BeaconRanging`, against the results the Python oracle
/// (`scripts/reference_ranging.py`) produced.
@Suite struct RangingScenarioTests {
    static let names = Fixture.folders(in: "ranging", holding: "expected-results.jsonl")

    static func flags(_ name: String) throws -> [String] {
        let path = Fixture.path("ranging/\(name)/args.txt")
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The ranging policy from the flags, and the flags left for the monitoring policy.
    static func ranging(_ flags: [String]) throws -> (RangingPolicy, [String]) {
        var policy = RangingPolicy(), rest: [String] = []
        var i = 0
        while i + 1 < flags.count {
            switch flags[i] {
            case "--ranging-window": policy.rangingWindow = try #require(Double(flags[i + 1]))
            case "--path-loss-exponent": policy.pathLossExponent = try #require(Double(flags[i + 1]))
            default: rest += [flags[i], flags[i + 1]]
            }
            i += 2
        }
        return (policy, rest)
    }

    @Test func thereAreElevenScenarios() {
        #expect(Self.names.count == 11, "\(Self.names)")
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/ranging/\(name)"
        let run = try EndToEndTests.run(["range", "--conditions", "\(dir)/conditions.geojson",
                                         "--observations", "\(dir)/observations.jsonl"] + (try Self.flags(name)))
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Fixture.text("ranging/\(name)/expected-results.jsonl")
        #expect(run.stdout == expected, "\(ToolOracleTests.difference(run.stdout, expected) ?? "")")
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) throws {
        let (rangingPolicy, rest) = try Self.ranging(try Self.flags(name))
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path("ranging/\(name)/conditions.geojson"))
        var engine = MonitoringEngine(policy: try ScenarioTests.policy(rest))
        try engine.add(contentsOf: definitions)
        let constraints = definitions.rangingConstraints
        var ranging = BeaconRanging(monitoring: engine, constraints: constraints, policy: rangingPolicy)
        var reader = try ObservationReader(path: Fixture.path("ranging/\(name)/observations.jsonl"))
        var events: [MonitorEvent] = [], results: [RangingResult] = []
        while let next = reader.next() {
            let record = try next.get()
            try ranging.process(record.observation, device: record.device, cause: record.line, events: &events, results: &results)
        }
        ranging.finish(events: &events, results: &results)
        #expect(results.map(RangingResultEncoding.jsonLine).joined() == (try Fixture.text("ranging/\(name)/expected-results.jsonl")))
    }

    /// A `ranging` that is not a boolean, or on a circle, is refused with the feature named.
    @Test func badRangingPropertiesAreNamed() throws {
        let notBoolean = try Fixture.write("""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"room","geometry":null,"properties":{"beacon":{"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"},"ranging":"yes"}}]}
            """, named: "ranging-not-boolean.geojson")
        let onCircle = try Fixture.write("""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"dock","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"radius":50,"ranging":true}}]}
            """, named: "ranging-on-circle.geojson")
        for (path, message) in [(notBoolean, "expected true or false, got a string"), (onCircle, "only a beacon condition can be ranged")] {
            #expect(throws: InputErrors.self) { try ConditionsReader.read(contentsOf: path) }
            do {
                _ = try ConditionsReader.read(contentsOf: path)
            } catch {
                #expect(error.description.contains("properties.ranging\": \(message)"), "\(error.description)")
            }
        }
    }
}
