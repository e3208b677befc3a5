import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `Fixtures/store/schema-v1.sqlite`, written by the first version of the store, is brought up to the
/// current schema when opened, and its monitors go on as if they had never been saved: through the
/// library and through the tool, against the Python oracle's events.
@Suite struct StoreMigrationTests {
    /// A copy of the fixture (opening it migrates it, and the fixture must stay a version-1 file).
    static func copy() throws -> String {
        let path = Fixture.temporaryPath("schema-v1.sqlite")
        try FileManager.default.copyItem(atPath: Fixture.path("store/schema-v1.sqlite"), toPath: path)
        return path
    }

    /// `PRAGMA user_version` and the tables, read by another SQLite client (Python's).
    static func schema(_ path: String) throws -> String {
        let python = Process(), out = Pipe()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            print(c.execute('PRAGMA user_version').fetchone()[0], ' '.join(r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")))
            """, path]
        python.standardOutput = out
        try python.run()
        python.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The oracle's event lines of a fixture from the first whose cause is past `line`: those of the
    /// records after it, and the exits the end of the input fired (which name earlier lines).
    static func expectedLines(_ path: String, after line: Int) throws -> String {
        try Fixture.text(path).split(separator: "\n").drop { text in
            let cause = text.split(separator: ",").last!.dropFirst(#""cause":"#.count).dropLast()
            return Int(cause)! <= line
        }.map { $0 + "\n" }.joined()
    }

    @Test func theFixtureIsAVersionOneFileAndOpensMigrated() throws {
        #expect(try Self.schema(Fixture.path("store/schema-v1.sqlite")) == "1 condition device grdb_migrations lastEvent monitor")
        let path = try Self.copy()
        let store = try SQLiteStore(path: path)
        #expect(try store.monitorNames() == ["city", "scenario-03"])
        try store.close()
        #expect(try Self.schema(path) == "3 condition device grdb_migrations input lastEvent monitor run runOutput")
    }

    /// Scenario 03 was saved after its held event (line 7), the deferred always prompt open: the rest
    /// of its records give the oracle's events past line 7, the held event's delivery included.
    @Test func aMigratedMonitorGoesOnThroughTheLibrary() async throws {
        let store = try SQLiteStore(path: Self.copy())
        defer { try? store.close() }
        let monitor = try Monitor(name: "scenario-03", store: store)
        #expect(await monitor.recordCount == 7)
        #expect(await monitor.heldEventCount == 1)
        #expect(await monitor.identifiers == ["home", "office"])
        #expect(await monitor.record(for: "office", device: "ana")?.lastEvent?.delivery.verdict == .held)
        var reader = try ObservationReader(path: Fixture.path("scenarios/03-provisional-allow-always/observations.jsonl"))
        var events: [MonitorEvent] = []
        var k = 0
        while let next = reader.next() {
            k += 1
            let record = try next.get()
            if k > 7 { events += try await monitor.process(record.observation, device: record.device) }
        }
        events += await monitor.finish()
        #expect(events.map(EventEncoding.jsonLine).joined()
                == (try Self.expectedLines("scenarios/03-provisional-allow-always/expected-events.jsonl", after: 7)))
        #expect(await monitor.record(for: "office", device: "ana")?.lastEvent?.delivery.verdict == .delivered)
    }

    /// The city monitor was saved after 100 records: the tool goes on with it from the rest of the
    /// file, numbering its lines on from 100, and writes the oracle's events past line 100.
    @Test func aMigratedMonitorGoesOnThroughTheTool() throws {
        let state = try Self.copy()
        let folder = try ToolProcess.folder("migrated")
        let rest = try Fixture.text("city/observations.jsonl").split(separator: "\n").dropFirst(100).map { $0 + "\n" }.joined()
        try rest.write(toFile: folder + "/rest.jsonl", atomically: true, encoding: .utf8)
        let run = try ToolProcess.run(["evaluate", "--conditions", Fixture.path("city/conditions.geojson"), "--observations",
                                       folder + "/rest.jsonl", "--state", state, "--monitor", "city", "--final",
                                       "--out", folder + "/events.jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
                == (try Self.expectedLines("city/expected-events.jsonl", after: 100)))
    }
}
