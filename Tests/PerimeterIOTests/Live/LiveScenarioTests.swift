import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The live-update scenarios of `Fixtures/live/` (SPEC §5.1, docs/live.md), each run through the
/// tool and through the library's `LiveUpdates`, against the updates (and, with conditions, the
/// events) the Python oracle `scripts/reference_live.py` produced.
@Suite struct LiveScenarioTests {
    static let names: [String] = {
        let dir = Fixture.path("live")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return entries.filter { FileManager.default.fileExists(atPath: "\(dir)/\($0)/expected-updates.jsonl") }.sorted()
    }()

    static func flags(_ folder: String) throws -> [String] {
        let path = Fixture.path("\(folder)/args.txt")
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    static func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: Fixture.path(relative)) }

    /// The live policy and approximate grids from the flags, and the flags left for monitoring.
    static func settings(_ folder: String) throws -> (LiveUpdatePolicy, ApproximateLocation, [String]) {
        var live = LiveUpdatePolicy(), cell = 5.0, rest: [String] = []
        let flags = try flags(folder)
        var i = 0
        while i + 1 < flags.count {
            let value = flags[i + 1]
            switch flags[i] {
            case "--live": live.initialConfiguration = try #require(LiveConfiguration(rawValue: value))
            case "--stationary-radius": live.stationaryRadius = try #require(Double(value))
            case "--stationary-time": live.stationaryTime = try #require(Double(value))
            case "--unavailable-after": live.unavailableAfter = try #require(Double(value))
            case "--approximate-interval": live.approximateInterval = try #require(Double(value))
            case "--approximate-cell": cell = try #require(Double(value))
            default: rest += [flags[i], value]
            }
            i += 2
        }
        let grid = try #require(ApproximateGrid(cellKilometres: cell))
        let location = exists("\(folder)/density.geojson")
            ? try DensityReader.read(contentsOf: Fixture.path("\(folder)/density.geojson"), defaultGrid: grid)
            : ApproximateLocation(defaultGrid: grid)
        return (live, location, rest)
    }

    @Test func thereAreSixteenScenarios() {
        #expect(Self.names.count == 16, "\(Self.names)")
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/live/\(name)", folder = "live/\(name)"
        var arguments = ["updates", "--observations", "\(dir)/observations.jsonl"] + (try Self.flags(folder))
        let events = Fixture.temporaryPath("live-\(name)-events.jsonl")
        if Self.exists("\(folder)/conditions.geojson") { arguments += ["--conditions", "\(dir)/conditions.geojson", "--events", events] }
        if Self.exists("\(folder)/density.geojson") { arguments += ["--density", "\(dir)/density.geojson"] }
        let run = try EndToEndTests.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Fixture.text("\(folder)/expected-updates.jsonl")
        #expect(run.stdout == expected, "\(ToolOracleTests.difference(run.stdout, expected) ?? "")")
        if Self.exists("\(folder)/expected-events.jsonl") {
            #expect(try String(contentsOfFile: events, encoding: .utf8) == (try Fixture.text("\(folder)/expected-events.jsonl")))
        }
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) throws {
        let folder = "live/\(name)"
        let (live, location, rest) = try Self.settings(folder)
        var engine = MonitoringEngine(policy: try ScenarioTests.policy(rest))
        if Self.exists("\(folder)/conditions.geojson") {
            try engine.add(contentsOf: try ConditionsReader.read(contentsOf: Fixture.path("\(folder)/conditions.geojson")))
        }
        var updates = LiveUpdates(monitoring: engine, policy: live, approximateLocation: location)
        var reader = try ObservationReader(path: Fixture.path("\(folder)/observations.jsonl"))
        var events: [MonitorEvent] = [], produced: [LiveUpdate] = []
        while let next = reader.next() {
            let record = try next.get()
            try updates.process(record.observation, device: record.device, cause: record.line, events: &events, updates: &produced)
        }
        updates.finish(events: &events, updates: &produced)
        #expect(produced.map(LiveUpdateEncoding.jsonLine).joined() == (try Fixture.text("\(folder)/expected-updates.jsonl")))
        if Self.exists("\(folder)/expected-events.jsonl") {
            #expect(events.map(EventEncoding.jsonLine).joined() == (try Fixture.text("\(folder)/expected-events.jsonl")))
        }
    }

    /// A `config` record with an unknown configuration is a bad record naming its field.
    @Test func anUnknownConfigurationIsABadRecord() throws {
        let path = try Fixture.write(#"{"type":"config","device":"ana","t":0,"live":"walking"}"# + "\n", named: "config-bad.jsonl")
        let run = try EndToEndTests.run(["updates", "--observations", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#":1: field "live": expected one of default, automotiveNavigation, otherNavigation, fitness, airborne, got "walking""#),
                "\(run.stderr)")
    }
}
