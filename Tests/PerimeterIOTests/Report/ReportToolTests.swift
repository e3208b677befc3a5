import Foundation
import Testing

@testable import PerimeterIO

/// `perimeter report` end to end: what the page's data says against the tool's own outputs, the two
/// ways of feeding it (evaluating, or an earlier run's files), and what it refuses.
@Suite struct ReportToolTests {
    static let scenario = "scenarios/05-provisional-displaced"

    /// The JSON the page embeds, decoded.
    static func data(ofPage path: String) throws -> [String: Any] {
        let page = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(page.range(of: "<script type=\"application/json\" id=\"report-data\">"))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = String(page[start.upperBound..<end.lowerBound])
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    static func lines(_ relative: String) throws -> [String] {
        try Fixture.text(relative).split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
    }

    static func arguments(_ scenario: String) throws -> [String] {
        try Fixture.text("\(scenario)/args.txt").split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test func thePageHoldsTheRunsEventsAndHowHeldOnesEnded() throws {
        let folder = try ToolProcess.folder("report")
        let conditions = Fixture.path("\(Self.scenario)/conditions.geojson"), observations = Fixture.path("\(Self.scenario)/observations.jsonl")
        let page = folder + "/report.html"
        let run = try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--out", page, "--title", "t"]
                                      + Self.arguments(Self.scenario))
        #expect(run.status == 0, "\(run.stderr)")
        let evaluated = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations] + Self.arguments(Self.scenario))
        let lines = evaluated.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count >= 4)

        let data = try Self.data(ofPage: page)
        let summary = try #require(data["summary"] as? [String: Any])
        var verdicts: [String: Int] = [:]
        for line in lines { verdicts[line["delivery"] as! String, default: 0] += 1 }
        #expect(summary["verdicts"] as? [String: Int] == verdicts)
        #expect(summary["eventLines"] as? Int == lines.count)
        #expect(try summary["records"] as? Int == Self.lines("\(Self.scenario)/observations.jsonl").count)

        // One event per held event and its outcome; the outcome dated at the record that resolved it.
        let observationTimes = try Self.lines("\(Self.scenario)/observations.jsonl").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["t"]
        }
        let devices = try #require(data["devices"] as? [[String: Any]])
        let events = devices.flatMap { $0["events"] as! [[String: Any]] }
        let held = lines.filter { $0["delivery"] as? String == "held" }
        #expect(!held.isEmpty)
        #expect(events.count == lines.count - held.count + events.filter { $0["delivery"] as? String == "held" && $0["outcome"] == nil }.count)
        for line in lines where line["delivery"] as? String != "held" {
            guard let event = events.first(where: { $0["condition"] as? String == line["identifier"] as? String && $0["delivery"] as? String == "held"
                                                    && $0["outcome"] as? String == line["delivery"] as? String }) else { continue }
            let cause = line["cause"] as! Int
            let resolvedAt = try #require(event["outcomeAt"] as? Double)
            let t = observationTimes[cause - 1]
            let expected = (t as? Double) ?? Double(RFC3339.parse(t as! String)!.nanosecondsSinceEpoch) / 1e9
            #expect(abs(resolvedAt - expected) < 1e-6)
        }
        #expect(devices.allSatisfy { !($0["authorization"] as! [Any]).isEmpty })
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.range(of: #"\s(src|href)\s*=|url\("#, options: .regularExpression) == nil)
    }

    @Test func anEarlierRunsFilesGiveTheSamePage() throws {
        let folder = try ToolProcess.folder("report-files")
        let conditions = Fixture.path("\(Self.scenario)/conditions.geojson"), observations = Fixture.path("\(Self.scenario)/observations.jsonl")
        let events = folder + "/events.jsonl", authorization = folder + "/authorization.jsonl"
        #expect(try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations, "--out", events,
                                     "--authorization-out", authorization] + Self.arguments(Self.scenario)).status == 0)
        let evaluated = folder + "/a.html", read = folder + "/b.html"
        #expect(try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--out", evaluated, "--title", "t"]
                                    + Self.arguments(Self.scenario)).status == 0)
        #expect(try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--events", events,
                                     "--authorization", authorization, "--out", read, "--title", "t"] + Self.arguments(Self.scenario)).status == 0)
        #expect(try String(contentsOfFile: evaluated, encoding: .utf8) == String(contentsOfFile: read, encoding: .utf8))

        // The same lines with their keys in another order go through the JSON parser, not the scan
        // of the tool's own form: the page is the same.
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        for line in lines { #expect(line.utf8.withContiguousStorageIfAvailable { EventLineScan.scan($0) != nil } == true) }
        let reordered = try lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        for line in reordered { #expect(line.utf8.withContiguousStorageIfAvailable { EventLineScan.scan($0) == nil } == true) }
        let sortedEvents = folder + "/sorted.jsonl", fromSorted = folder + "/c.html"
        try (reordered.joined(separator: "\n") + "\n").write(toFile: sortedEvents, atomically: true, encoding: .utf8)
        #expect(try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--events", sortedEvents,
                                     "--authorization", authorization, "--out", fromSorted, "--title", "t"] + Self.arguments(Self.scenario)).status == 0)
        #expect(try String(contentsOfFile: evaluated, encoding: .utf8) == String(contentsOfFile: fromSorted, encoding: .utf8))
    }

    /// Bad records are set aside and listed, and the rest evaluated as `evaluate --quarantine` does;
    /// the drawn devices are the first to appear in a readable record, and the summary counts only those.
    @Test func badRecordsAreListedAndTheRestEvaluated() throws {
        let folder = try ToolProcess.folder("report-rejected")
        let conditions = Fixture.path("city/conditions.geojson")
        var lines = try Self.lines("city/observations.jsonl")
        lines.insert(#"{"type":"fix","device":"not-a-device-of-the-city","lat":95}"#, at: 0)
        lines.insert("garbage", at: 150)
        let observations = folder + "/observations.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: observations, atomically: true, encoding: .utf8)
        let page = folder + "/report.html"
        let run = try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--out", page, "--devices", "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let quarantine = folder + "/quarantine.jsonl"
        let evaluated = try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations, "--quarantine", quarantine])
        #expect(evaluated.status == 0, "\(evaluated.stderr)")
        let events = evaluated.stdout.split(separator: "\n")

        let data = try Self.data(ofPage: page)
        let summary = try #require(data["summary"] as? [String: Any])
        #expect(summary["records"] as? Int == lines.count)
        #expect(summary["rejected"] as? Int == 2)
        let examples = try #require(summary["rejectedExamples"] as? [String])
        #expect(examples.count == 2 && examples[0].hasPrefix(observations + ":1: ") && examples[1].hasPrefix(observations + ":151: "), "\(examples)")
        #expect(summary["eventLines"] as? Int == events.count)
        var firstSeen: [String] = []
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["t"] != nil,
                  let device = object["device"] as? String, !firstSeen.contains(device) else { continue }
            firstSeen.append(device)
        }
        #expect(summary["devices"] as? Int == firstSeen.count)
        let devices = try #require(data["devices"] as? [[String: Any]])
        #expect(devices.map { $0["name"] as? String } == firstSeen.prefix(3).map { $0 })
    }

    @Test func aBadEventsLineIsNamedAndAnInputIsNeverTheOutput() throws {
        let folder = try ToolProcess.folder("report-bad")
        let conditions = Fixture.path("city/conditions.geojson"), observations = Fixture.path("city/observations.jsonl")
        let events = folder + "/events.jsonl"
        try "{\"device\":\"alice\",\"identifier\":\"louvre\",\"state\":\"satisfied\",\"date\":\"2026-03-01T08:00:00Z\",\"delivery\":\"delivered\",\"reason\":null,\"refinement\":null,\"diagnostics\":[],\"cause\":1}\n{\"device\":\"alice\",\"identifier\":\"louvre\",\"state\":\"unsatisfied\",\"date\":\"2026-03-01T08:00:05Z\",\"delivery\":7,\"reason\":null,\"refinement\":null,\"diagnostics\":[],\"cause\":2}\n"
            .write(toFile: events, atomically: true, encoding: .utf8)
        let bad = try ToolProcess.run(["report", "--conditions", conditions, "--observations", observations, "--events", events, "--out", folder + "/r.html"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\(events):2: field \"delivery\""), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/r.html"))

        let copy = folder + "/observations.jsonl"
        try FileManager.default.copyItem(atPath: observations, toPath: copy)
        let refused = try ToolProcess.run(["report", "--conditions", conditions, "--observations", copy, "--out", copy])
        #expect(refused.status != 0)
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == String(contentsOfFile: observations, encoding: .utf8))
    }
}
