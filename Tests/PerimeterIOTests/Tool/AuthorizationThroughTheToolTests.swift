import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Authorization records through the batch tool: random app, request, answer, settings and session
/// records among fixes and sightings, devices starting as fresh installs, so that events are
/// delivered, held, displaced, expired and dropped for every reason, and many answers are refused
/// (quarantined). The tool batches the runs of fixes and sightings between those records on several
/// threads; its events, quarantine, authorization changes (`--authorization-out`) and summary
/// (verdicts, reasons, held at the end, request outcomes) must be those of the plain run, one record
/// at a time.
@Suite struct AuthorizationThroughTheToolTests {
    static func input(profile: PlatformProfile, seed: UInt64) -> String {
        var rng = SplitMix64(seed: seed)
        let devices = 24
        var time = (0..<devices).map { 1_772_352_000 + $0 }
        let uuids = ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "B9407F30-F5F8-466E-AFF9-25556B57FE6D"]
        var lines: [String] = []
        // Under ios18, half the devices take their sessions explicitly (so that provisional always,
        // which the implicit session's when-in-use prompt would forestall, comes about).
        if profile == .ios18 {
            for d in stride(from: 0, to: devices, by: 2) {
                lines.append(#"{"type":"appConfig","device":"d\#(d)","t":\#(time[d]),"explicitSessionsRequired":true}"#)
            }
        }
        for k in 0..<20_000 {
            // Runs of one device's fixes now and then, so that the tool has batches to make.
            let d = k % 50 < 30 ? (k / 50) % devices : Int.random(in: 0..<devices, using: &rng)
            time[d] += [0, 1, 1, 3, 4, 5, 6, 30, 400].randomElement(using: &rng)!
            let head = #""device":"d\#(d)","t":\#(time[d])"#
            switch Int.random(in: 0..<60, using: &rng) {
            case 0...3:
                let state = ["foreground", "background", "background", "indicator", "terminated"].randomElement(using: &rng)!
                lines.append(#"{"type":"app",\#(head),"state":"\#(state)"}"#)
            case 4, 5:
                let what = ["whenInUse", "always", "always", "temporaryFullAccuracy"].randomElement(using: &rng)!
                lines.append(#"{"type":"request",\#(head),"what":"\#(what)"}"#)
            case 6, 7:
                let choice = ["allowOnce", "allowWhileUsing", "allowWhileUsing", "allowWhileUsing", "allowWhileUsing", "deny", "allowAlways",
                              "keepWhileUsing"].randomElement(using: &rng)!
                let precise = ["", #","precise":false"#, #","precise":true"#].randomElement(using: &rng)!
                lines.append(#"{"type":"answer",\#(head),"choice":"\#(choice)"\#(precise)}"#)
            case 8 where Int.random(in: 0..<2, using: &rng) == 0:
                // (Rarely: a status change ends provisional always, and never denies for good.)
                let change = Int.random(in: 0..<4, using: &rng) == 0
                    ? [#""status":"always""#, #""status":"never""#, #""status":"askNextTime""#, #""status":"whenInUse""#].randomElement(using: &rng)!
                    : [#""precise":false"#, #""precise":true"#, #""precise":true"#, #""locationServices":false"#, #""locationServices":true"#,
                       #""locationServices":true"#].randomElement(using: &rng)!
                lines.append(#"{"type":"settings",\#(head),\#(change)}"#)
            case 9:
                let action = Bool.random(using: &rng) ? "start" : "end"
                let goal = ["none", "whenInUse", "always"].randomElement(using: &rng)!
                lines.append(#"{"type":"session",\#(head),"action":"\#(action)","id":"s\#(Int.random(in: 0..<2, using: &rng))","goal":"\#(goal)"}"#)
            case 15 where Int.random(in: 0..<4, using: &rng) == 0:
                let key = [#""backgroundLocation":false"#, #""backgroundLocation":true"#, #""fullAccuracyPurposes":["Nav"]"#,
                           #""reducedAccuracyByDefault":true"#, #""reducedAccuracyByDefault":false"#].randomElement(using: &rng)!
                lines.append(#"{"type":"appConfig",\#(head),\#(key)}"#)
            case 10...14:
                let uuid = uuids.randomElement(using: &rng)!
                lines.append(#"{"type":"sighting",\#(head),"uuid":"\#(uuid)","major":\#(Int.random(in: 0...2, using: &rng)),"minor":1,"rssi":-60}"#)
            default:
                let lat = 48.853 + .random(in: -0.01...0.01, using: &rng), lon = 2.349 + .random(in: -0.015...0.015, using: &rng)
                lines.append(#"{"type":"fix",\#(head),"lat":\#(lat),"lon":\#(lon),"accuracy":\#(Int.random(in: 0...60, using: &rng))}"#)
            }
        }
        // A last device whose events are still held at the end (000's provisional always, in the background).
        let t = 1_772_352_000
        lines += [#"{"type":"appConfig","device":"last","t":\#(t),"explicitSessionsRequired":true}"#,
                  #"{"type":"app","device":"last","t":\#(t),"state":"foreground"}"#,
                  #"{"type":"request","device":"last","t":\#(t + 1),"what":"always"}"#,
                  #"{"type":"answer","device":"last","t":\#(t + 2),"choice":"allowWhileUsing"}"#,
                  // (Under ios18, holding needs a session of goal always, started in the foreground.)
                  profile == .ios18 ? #"{"type":"session","device":"last","t":\#(t + 2),"action":"start","id":"s","goal":"always"}"#
                      : #"{"type":"app","device":"last","t":\#(t + 2),"state":"foreground"}"#,
                  #"{"type":"app","device":"last","t":\#(t + 3),"state":"background"}"#,
                  #"{"type":"fix","device":"last","t":\#(t + 100),"lat":48.8606,"lon":2.3376,"accuracy":5}"#,
                  #"{"type":"fix","device":"last","t":\#(t + 200),"lat":48.87,"lon":2.30,"accuracy":5}"#]
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [PlatformProfile.standard, .ios18], [1, 3])
    func theToolEqualsThePlainRun(profile: PlatformProfile, threads: Int) throws {
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        policy.profile = profile
        policy.holdingCapacity = 2
        policy.maximumHoldingAge = 7200
        let input = try Fixture.write(Self.input(profile: profile, seed: profile == .ios18 ? 18 : 13), named: "authorization-tool.jsonl")
        var engine = try Fixture.engine("city/conditions.geojson", policy: policy)
        engine.batchThreads = threads
        var reader = try ObservationReader(path: input)
        reader.threads = threads
        let out = Fixture.temporaryPath("authorization-tool-events.jsonl"), bad = Fixture.temporaryPath("authorization-tool-bad.jsonl")
        let changesPath = Fixture.temporaryPath("authorization-tool-changes.jsonl")
        var outputs = BatchEvaluation.Outputs(events: try BufferedOutput(path: out), quarantine: try BufferedOutput(path: bad),
                                              authorization: try BufferedOutput(path: changesPath))
        let summary = try BatchEvaluation.run(engine: &engine, observations: &reader, outputs: &outputs, badRecords: .quarantine)
        _ = consume outputs

        let plain = try Fixture.plainRun(input, engine: try Fixture.engine("city/conditions.geojson", policy: policy))
        let events = try String(contentsOfFile: out, encoding: .utf8)
        #expect(firstDifference(events.split(separator: "\n"), plain.events.split(separator: "\n")) == nil)
        #expect(firstDifference(try String(contentsOfFile: bad, encoding: .utf8).split(separator: "\n"),
                                plain.bad.split(separator: "\n")) == nil)
        #expect(firstDifference(try String(contentsOfFile: changesPath, encoding: .utf8).split(separator: "\n"),
                                plain.changes.split(separator: "\n")) == nil)

        // The summary, counted from the plain run's lines and engine.
        let lines = plain.events.split(separator: "\n")
        func count(_ key: String) -> [String: Int] {
            var counts: [String: Int] = [:]
            for line in lines {
                let value = line.components(separatedBy: "\"\(key)\":").dropFirst().first.map { String($0.prefix { $0 != "," }) } ?? ""
                counts[value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")), default: 0] += 1
            }
            return counts
        }
        let verdicts = count("delivery"), reasons = count("reason")
        #expect(summary.events == lines.count)
        #expect(summary.recordsRead == Self.input(profile: profile, seed: profile == .ios18 ? 18 : 13).split(separator: "\n").count)
        #expect(summary.rejected == plain.bad.split(separator: "\n").count)
        #expect(Dictionary(uniqueKeysWithValues: summary.verdicts.map { ($0.key.rawValue, $0.value) }).filter { $0.value > 0 } == verdicts)
        #expect(Dictionary(uniqueKeysWithValues: summary.reasons.map { ($0.key.rawValue, $0.value) }).filter { $0.value > 0 }
                == reasons.filter { $0.key != "null" })
        #expect(summary.heldAtEnd == plain.engine.heldEventCount)
        #expect(summary.requests == plain.engine.requestOutcomes)
        // Enough of everything to mean something.
        #expect(verdicts["held", default: 0] > 10 && verdicts["delivered", default: 0] > 200 && verdicts["dropped", default: 0] > 200,
                "\(verdicts)")
        #expect(reasons.count >= (profile == .ios18 ? 7 : 6), "\(reasons)")
        #expect(summary.rejected > 100 && plain.changes.count > 1000)
        #expect(plain.engine.heldEventCount > 0, "some events still held at the end")
    }
}
