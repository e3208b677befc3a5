import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// A stream evaluated in two parts with `--state` gives exactly the events of one run over the whole
/// stream: beacon timers, confirmations, held events, prompts and authorization carried across.
/// Expected events come from the Python oracle's files.
@Suite struct ContinuationTests {
    /// Splits `text` (lines) after its first `k` lines into two files in `folder`; a CSV part 2
    /// repeats the header.
    static func split(_ text: String, after k: Int, csv: Bool, in folder: String) throws -> (String, String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        let first = lines.prefix(k), rest = lines.dropFirst(k)
        let ext = csv ? "csv" : "jsonl"
        let one = folder + "/part1." + ext, two = folder + "/part2." + ext
        try (first.joined(separator: "\n") + (first.isEmpty ? "" : "\n")).write(toFile: one, atomically: true, encoding: .utf8)
        let second = (csv ? [lines[0]] : []) + rest
        try (second.joined(separator: "\n") + (second.isEmpty ? "" : "\n")).write(toFile: two, atomically: true, encoding: .utf8)
        return (one, two)
    }

    /// The city fixture through the tool in two parts, at a few places, JSON Lines and CSV (the
    /// header repeated in part 2): the two event files together are the oracle's file.
    @Test(arguments: [false, true])
    func theCityInTwoPartsIsOneRun(csv: Bool) throws {
        let observations = try Fixture.text("city/observations." + (csv ? "csv" : "jsonl"))
        let expected = try Fixture.text(csv ? "city/expected-events-csv.jsonl" : "city/expected-events.jsonl")
        let count = observations.split(separator: "\n").count
        for k in [csv ? 2 : 1, count / 3, count / 2, count - 1] {
            let folder = try ToolProcess.folder("city-parts")
            let (one, two) = try Self.split(observations, after: k, csv: csv, in: folder)
            let conditions = Fixture.path("city/conditions.geojson")
            let state = folder + "/state.sqlite"
            let first = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", one, "--state", state,
                                             "--out", folder + "/e1.jsonl"])
            #expect(first.status == 0, "\(first.stderr)")
            let second = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", two, "--state", state,
                                              "--out", folder + "/e2.jsonl", "--final"])
            #expect(second.status == 0, "\(second.stderr)")
            let events = try String(contentsOfFile: folder + "/e1.jsonl", encoding: .utf8)
                + String(contentsOfFile: folder + "/e2.jsonl", encoding: .utf8)
            #expect(events == expected, "split after line \(k)")
        }
    }

    /// Every authorization scenario split after every record (in-process, through the same
    /// `ResumableEvaluation` the tool runs): the parts' events are the oracle's, byte for byte.
    @Test(arguments: ScenarioTests.names)
    func everyScenarioSplitAtEveryRecordIsOneRun(_ name: String) throws {
        let policy = try ScenarioTests.policy(ScenarioTests.flags(name))
        let conditions = try ConditionsReader.read(contentsOf: Fixture.path("scenarios/\(name)/conditions.geojson"))
        let observations = try Fixture.text("scenarios/\(name)/observations.jsonl")
        let expected = try Fixture.text("scenarios/\(name)/expected-events.jsonl")
        let count = observations.split(separator: "\n").count
        for k in 0...count {
            let folder = try ToolProcess.folder("scenario-parts")
            let (one, two) = try Self.split(observations, after: k, csv: false, in: folder)
            func part(_ path: String, _ out: String, final: Bool) throws {
                let request = ResumableEvaluation.Request(
                    state: folder + "/state.sqlite", monitor: "evaluate", conditions: conditions, policy: policy, threads: 1,
                    observations: path, format: nil, maxLineBytes: ObservationReader.defaultMaxLineBytes, events: folder + "/" + out,
                    quarantine: nil, authorization: nil, endsStream: final, checkpointInterval: .seconds(10), checkpointRecords: nil)
                _ = try ResumableEvaluation.run(request)
            }
            try part(one, "e1.jsonl", final: false)
            try part(two, "e2.jsonl", final: true)
            let events = try String(contentsOfFile: folder + "/e1.jsonl", encoding: .utf8)
                + String(contentsOfFile: folder + "/e2.jsonl", encoding: .utf8)
            #expect(events == expected, "\(name) split after record \(k)")
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// A beacon exit due exactly at the end of part 1 is not fired there: part 2's first record, a
    /// matching sighting at that instant, cancels it, as in one run (SPEC §2). With `--final` on part
    /// 1 the end of the stream is there, and the exit fires.
    @Test func anExitDueAtThePartsEndWaitsForTheNextPart() throws {
        let folder = try ToolProcess.folder("exit-at-split")
        let conditions = folder + "/c.geojson"
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"desk","geometry":null,"properties":{"beacon":{"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5","major":1}}}]}"#
            .write(toFile: conditions, atomically: true, encoding: .utf8)
        func sighting(_ t: Int) -> String {
            #"{"type":"sighting","device":"ana","t":\#(t),"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5","major":1,"minor":2,"rssi":-60}"#
        }
        // Seen at 1000, the exit is due at 1030, the time of ana's last record in part 1 (a fix);
        // part 2 sees the beacon at 1030 and 1050, which keep it satisfied to the end.
        let part1 = [sighting(1000), #"{"type":"fix","device":"ana","t":1030,"lat":0,"lon":0,"accuracy":5}"#]
        let part2 = [sighting(1030), sighting(1050)]
        try (part1.joined(separator: "\n") + "\n").write(toFile: folder + "/p1.jsonl", atomically: true, encoding: .utf8)
        try (part2.joined(separator: "\n") + "\n").write(toFile: folder + "/p2.jsonl", atomically: true, encoding: .utf8)
        try ((part1 + part2).joined(separator: "\n") + "\n").write(toFile: folder + "/all.jsonl", atomically: true, encoding: .utf8)
        let whole = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", folder + "/all.jsonl",
                                         "--out", folder + "/whole.jsonl"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let first = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", folder + "/p1.jsonl",
                                         "--out", folder + "/e1.jsonl", "--state", folder + "/s.sqlite"])
        let second = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", folder + "/p2.jsonl",
                                          "--out", folder + "/e2.jsonl", "--state", folder + "/s.sqlite", "--final"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        let expected = try String(contentsOfFile: folder + "/whole.jsonl", encoding: .utf8)
        let parts = try String(contentsOfFile: folder + "/e1.jsonl", encoding: .utf8) + String(contentsOfFile: folder + "/e2.jsonl", encoding: .utf8)
        #expect(parts == expected)
        #expect(!expected.contains(#""state":"unsatisfied""#), "the sighting at 1030 cancels the exit due then")
        // Part 1 alone, as the end of a stream: the exit fires at 1030.
        let ended = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", folder + "/p1.jsonl",
                                         "--out", folder + "/ended.jsonl", "--state", folder + "/other.sqlite", "--final"])
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(try String(contentsOfFile: folder + "/ended.jsonl", encoding: .utf8).contains(#""state":"unsatisfied""#))
    }
}
