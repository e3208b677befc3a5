import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The library as a user picks it up: a conditions file added to a `Monitor` in one call, and its
/// events encoded as the tool writes them.
@Suite struct LibraryQuickUseTests {
    /// Runs `observations` through a `Monitor` loaded with `add(contentsOf:)`: every event, in order.
    static func monitorEvents(conditions: String, observations: String, policy: MonitoringPolicy) async throws -> [MonitorEvent] {
        let monitor = Monitor(name: "quick", policy: policy, streamsEvents: false)
        try await monitor.add(contentsOf: ConditionsReader.read(contentsOf: Fixture.path(conditions)))
        var reader = try ObservationReader(path: Fixture.path(observations))
        var events: [MonitorEvent] = []
        while let next = reader.next() {
            let record = try next.get()
            // (The tool's cause is the record's line; the monitor's, its count: the same in these files.)
            #expect(record.line == Int(await monitor.recordCount) + 1)
            events += try await monitor.process(record.observation, device: record.device)
        }
        return events + (await monitor.finish())
    }

    @Test func aConditionsFileIsAddedInOneCall() async throws {
        let definitions = try ConditionsReader.read(contentsOf: Fixture.path("city/conditions.geojson"))
        let monitor = Monitor(name: "city")
        try await monitor.add(contentsOf: definitions)
        #expect(await monitor.identifiers == definitions.map(\.identifier))
        // Each with its own starting state (`assuming`), else the policy's.
        for definition in definitions {
            let record = try #require(await monitor.record(for: definition.identifier))
            #expect(record.condition == definition.condition)
            #expect(record.state == definition.assuming ?? .unknown, "\(definition.identifier)")
        }
        // A duplicate stops there, with the conditions before it added.
        let again = Monitor(name: "again")
        await #expect(throws: ConditionCatalogError.duplicateIdentifier(definitions[1].identifier)) {
            try await again.add(contentsOf: [definitions[0], definitions[1], definitions[1], definitions[2]])
        }
        #expect(await again.identifiers == [definitions[0].identifier, definitions[1].identifier])

        var engine = MonitoringEngine()
        try engine.add(contentsOf: definitions)
        #expect(engine.identifiers == definitions.map(\.identifier))
    }

    /// Every event of the city fixture (and of a scenario with held and dropped events, reasons and
    /// diagnostics) from the library encodes to the same JSON object as the tool's line for it.
    @Test(arguments: [("city", "city/conditions.geojson", "city/observations.jsonl", [String]()),
                      ("05", "scenarios/05-provisional-displaced/conditions.geojson",
                       "scenarios/05-provisional-displaced/observations.jsonl", ["--initial-authorization", "notDetermined"])])
    func eventsEncodeAsTheToolWritesThem(_ name: String, _ conditions: String, _ observations: String, _ flags: [String]) async throws {
        let run = try ToolProcess.run(["evaluate", "--conditions", Fixture.path(conditions), "--observations", Fixture.path(observations)] + flags)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        var policy = MonitoringPolicy()
        if !flags.isEmpty { policy.initialAuthorization = .notDetermined }
        let events = try await Self.monitorEvents(conditions: conditions, observations: observations, policy: policy)
        #expect(events.count == lines.count)
        #expect(lines.count >= (name == "city" ? 100 : 5))
        let encoder = JSONEncoder()
        for (event, line) in zip(events, lines) {
            let library = try #require(JSONSerialization.jsonObject(with: encoder.encode(event)) as? NSDictionary)
            let tool = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
            guard library == tool else {
                Issue.record("\(name): \(String(decoding: try encoder.encode(event), as: UTF8.self)) ≠ \(line)")
                return
            }
            #expect(Set(library.allKeys.map { "\($0)" }) == Set(tool.allKeys.map { "\($0)" }))
        }
        #expect(lines.contains { $0.contains(#""refinement":{"#) } || name != "city")
        #expect(lines.contains { $0.contains(#""reason":"displaced""#) } || name == "city")
    }
}
