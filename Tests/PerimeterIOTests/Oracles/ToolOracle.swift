import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `ToolOracleTests`' oracle: the conditions set of every run, and the events the engine gives fed
/// one record at a time with the input's good records only (the input is written by
/// `ToolOracleTests.Generator`, which knows each line because it wrote it).
extension ToolOracleTests {
    // MARK: - Conditions

    static let desk = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"  // "desk": this UUID, major 1
    static let anyB = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"  // "any-b": this UUID, any major
    static let other = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"  // matches nothing

    static func engine(threads: Int = 1) throws -> MonitoringEngine {
        var engine = MonitoringEngine()
        func circle(_ lat: Double, _ lon: Double, _ radius: Double) throws -> Condition {
            .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
        }
        try engine.add(circle(45.7600, 4.8350, 120), identifier: "core")
        try engine.add(circle(45.7612, 4.8368, 250), identifier: "east", assuming: .unsatisfied)
        try engine.add(circle(45.7590, 4.8335, 450), identifier: "wide")
        let ring = [(45.7578, 4.8322), (45.7578, 4.8384), (45.7606, 4.8398), (45.7624, 4.8360), (45.7610, 4.8318), (45.7578, 4.8322)]
        let polygon = GeoPolygon(exterior: ring.map { Coordinate(latitude: $0.0, longitude: $0.1) })
        try engine.add(.polygon(try PolygonalGeographicCondition(polygons: [polygon])), identifier: "block")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: UUID(uuidString: desk)!, major: 1)), identifier: "desk")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: UUID(uuidString: anyB)!)), identifier: "any-b")
        engine.batchThreads = threads
        return engine
    }

    /// A small event budget: below what one new device's start can produce (3 geographic conditions
    /// starting `unknown` + 2 beacon conditions = 5), so that every new device's first record, except
    /// at a batch's start, begins a new batch.
    static let smallBudget = 4

    // MARK: - The oracle

    struct Oracle: Sendable {
        /// Each good record's line and its events' JSON Lines, in input order.
        var records: [(line: Int, events: String)] = []
        /// The end of input's events.
        var finish = ""
        /// Good records the engine refused (the generator's mistake, or the engine's).
        var refused: [String] = []

        var events: String { records.map(\.events).joined() + finish }

        /// What a run stopped at `line` has written: the events of the records before it.
        func events(before line: Int) -> String {
            records.lazy.filter { $0.line < line }.map(\.events).joined()
        }

        init(_ input: Input) throws {
            var engine = try ToolOracleTests.engine()
            var events: [MonitorEvent] = []
            for (k, line) in input.lines.enumerated() {
                guard case .good(let device, let observation) = line.kind else { continue }
                events.removeAll(keepingCapacity: true)
                do throws(ObservationProblem) {
                    try engine.process(observation, device: device, cause: input.lineNumber(k), into: &events)
                } catch {
                    refused.append("line \(input.lineNumber(k)): \(error) — \(line.text)")
                }
                records.append((input.lineNumber(k), events.map(EventEncoding.jsonLine).joined()))
            }
            events.removeAll()
            engine.finish(into: &events)
            finish = events.map(EventEncoding.jsonLine).joined()
        }
    }

    struct Prepared: Sendable {
        var input: Input
        var oracle: Oracle
    }

    static let prepared: [ObservationFormat: Result<Prepared, any Error>] = {
        var all: [ObservationFormat: Result<Prepared, any Error>] = [:]
        for (format, seed) in [(ObservationFormat.jsonLines, UInt64(2026)), (.csv, 3031)] {
            all[format] = Result {
                let input = Generator.generate(format, seed: seed, uniform: 12_000, total: 25_500)
                return Prepared(input: input, oracle: try Oracle(input))
            }
        }
        return all
    }()
}
