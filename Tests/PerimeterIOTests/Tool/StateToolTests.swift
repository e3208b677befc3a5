import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `evaluate --state` refuses what it cannot go on with, by name and reason, and changes nothing then.
@Suite struct StateToolTests {
    static let conditions = Fixture.path("city/conditions.geojson")
    static let observations = Fixture.path("city/observations.jsonl")

    static func evaluate(_ folder: String, _ extra: [String], observations: String = observations) throws -> ToolProcess.Finished {
        try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations, "--out", folder + "/events.jsonl"] + extra)
    }

    @Test func aFileThatIsNotAStoreIsRefusedAndLeftAsItWas() throws {
        let folder = try ToolProcess.folder("state-refused")
        for (name, bytes) in [("text.sqlite", Data("not a database\n".utf8)), ("empty.sqlite", Data())] {
            let path = folder + "/" + name
            try bytes.write(to: URL(fileURLWithPath: path))
            let run = try Self.evaluate(folder, ["--state", path])
            #expect(run.status == 1)
            #expect(run.stderr.contains("\(path): not a Perimeter store"), "\(run.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(!FileManager.default.fileExists(atPath: folder + "/events.jsonl"))
        }
        // The conditions file given as the state: refused before anything is opened.
        let run = try Self.evaluate(folder, ["--state", Self.conditions])
        #expect(run.status == 1, "\(run.stderr)")
    }

    @Test func aStoreInUseIsRefused() throws {
        let folder = try ToolProcess.folder("state-in-use")
        let path = folder + "/state.sqlite"
        let store = try SQLiteStore(path: path)
        defer { try? store.close() }
        let run = try Self.evaluate(folder, ["--state", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(path): the store is in use by another process"), "\(run.stderr)")
    }

    @Test func stateNeedsAFileForItsEvents() throws {
        let run = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", Self.observations,
                                       "--state", Fixture.temporaryPath("s.sqlite")])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--state needs --out FILE"), "\(run.stderr)")
        let final = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", Self.observations, "--final"])
        #expect(final.status == 64)
        #expect(final.stderr.contains("--final goes with --state"), "\(final.stderr)")
    }

    @Test func anotherPolicyOrAChangedFileIsRefused() throws {
        let folder = try ToolProcess.folder("state-mismatch")
        let state = folder + "/state.sqlite"
        let lines = try Fixture.text("city/observations.jsonl").split(separator: "\n")
        try (lines.prefix(50).joined(separator: "\n") + "\n").write(toFile: folder + "/obs.jsonl", atomically: true, encoding: .utf8)
        #expect(try Self.evaluate(folder, ["--state", state], observations: folder + "/obs.jsonl").status == 0)
        let first = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
        // The same file, grown: read on from where the state stopped, its lines numbered as before.
        try (lines.prefix(80).joined(separator: "\n") + "\n").write(toFile: folder + "/obs.jsonl", atomically: true, encoding: .utf8)
        let grown = try Self.evaluate(folder, ["--state", state, "--final"], observations: folder + "/obs.jsonl")
        #expect(grown.status == 0, "\(grown.stderr)")
        #expect(grown.stderr.contains("30 records read"), "\(grown.stderr)")
        let second = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
        let whole = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", folder + "/obs.jsonl"])
        #expect(first + second == whole.stdout)
        // Nothing new: the outputs are left alone.
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/events.jsonl"))
        let again = try Self.evaluate(folder, ["--state", state, "--final"], observations: folder + "/obs.jsonl")
        #expect(again.status == 0 && again.stderr.contains("nothing after what"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/events.jsonl")) == before)
        // Another policy.
        let policy = try Self.evaluate(folder, ["--state", state, "--final", "--hysteresis", "20"], observations: folder + "/obs.jsonl")
        #expect(policy.status == 1 && policy.stderr.contains("other policy values"), "\(policy.stderr)")
        // The file changed before the point reached.
        try (lines.dropFirst().prefix(90).joined(separator: "\n") + "\n").write(toFile: folder + "/obs.jsonl", atomically: true, encoding: .utf8)
        let changed = try Self.evaluate(folder, ["--state", state, "--final"], observations: folder + "/obs.jsonl")
        #expect(changed.status == 1 && changed.stderr.contains("not the file"), "\(changed.stderr)")
    }

    /// A run stopped by a bad record is a stopped run: another command is refused, with the command
    /// to finish it; `--end-stopped-run` ends it at its last checkpoint and goes on from there with
    /// the new command (here with `--quarantine`), the two event files together one run's events.
    @Test func aStoppedRunIsFinishedOrEndedOnPurpose() throws {
        let folder = try ToolProcess.folder("state-stopped")
        let state = folder + "/state.sqlite"
        var lines = try Fixture.text("city/observations.jsonl").split(separator: "\n").map(String.init)
        lines[150] = #"{"type":"fix","device":"bob","t":"2026-03-01T09:00:00Z","lat":95,"lon":2.3,"accuracy":5}"#
        try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/obs.jsonl", atomically: true, encoding: .utf8)
        let whole = try Self.evaluate(folder, ["--quarantine", folder + "/bad-whole.jsonl"], observations: folder + "/obs.jsonl")
        #expect(whole.status == 0)
        let expected = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)

        let stopped = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", folder + "/obs.jsonl",
                                           "--state", state, "--checkpoint-records", "50", "--out", folder + "/e1.jsonl"])
        #expect(stopped.status == 1 && stopped.stderr.contains("obs.jsonl:151"), "\(stopped.stderr)")
        let other = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", folder + "/obs.jsonl",
                                         "--state", state, "--out", folder + "/e2.jsonl", "--quarantine", folder + "/bad.jsonl"])
        #expect(other.status == 1 && other.stderr.contains("run that command again to finish it"), "\(other.stderr)")
        let ended = try ToolProcess.run(["evaluate", "--conditions", Self.conditions, "--observations", folder + "/obs.jsonl",
                                         "--state", state, "--out", folder + "/e2.jsonl", "--quarantine", folder + "/bad.jsonl",
                                         "--end-stopped-run", "--final"])
        #expect(ended.status == 0, "\(ended.stderr)")
        let parts = try String(contentsOfFile: folder + "/e1.jsonl", encoding: .utf8) + String(contentsOfFile: folder + "/e2.jsonl", encoding: .utf8)
        #expect(parts == expected)
    }

    /// Conditions added to the file between parts are added to the monitor (and a removed one goes).
    @Test func conditionsFollowTheFileBetweenParts() throws {
        let folder = try ToolProcess.folder("state-conditions")
        let state = folder + "/state.sqlite"
        let circle = { (id: String) in
            #"{"type":"Feature","id":"\#(id)","geometry":{"type":"Point","coordinates":[2.3376,48.8606]},"properties":{"radius":200}}"#
        }
        try #"{"type":"FeatureCollection","features":[\#(circle("a"))]}"#.write(toFile: folder + "/c.geojson", atomically: true, encoding: .utf8)
        let fix = { (t: Int) in #"{"type":"fix","device":"ana","t":\#(t),"lat":48.8606,"lon":2.3376,"accuracy":5}"# + "\n" }
        try fix(1).write(toFile: folder + "/p1.jsonl", atomically: true, encoding: .utf8)
        try fix(2).write(toFile: folder + "/p2.jsonl", atomically: true, encoding: .utf8)
        let first = try ToolProcess.run(["evaluate", "--conditions", folder + "/c.geojson", "--observations", folder + "/p1.jsonl",
                                         "--state", state, "--out", folder + "/e1.jsonl"])
        #expect(first.status == 0, "\(first.stderr)")
        try #"{"type":"FeatureCollection","features":[\#(circle("b"))]}"#.write(toFile: folder + "/c.geojson", atomically: true, encoding: .utf8)
        let second = try ToolProcess.run(["evaluate", "--conditions", folder + "/c.geojson", "--observations", folder + "/p2.jsonl",
                                          "--state", state, "--out", folder + "/e2.jsonl"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("1 added, 1 removed, 0 changed"), "\(second.stderr)")
        #expect(try String(contentsOfFile: folder + "/e1.jsonl", encoding: .utf8).contains(#""identifier":"a","state":"satisfied""#))
        let events = try String(contentsOfFile: folder + "/e2.jsonl", encoding: .utf8)
        #expect(events.contains(#""identifier":"b","state":"satisfied""#) && !events.contains(#""identifier":"a""#), "\(events)")
    }
}
