import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `perimeter evaluate --state` killed with SIGKILL again and again, each time started again with the
/// same command, ends with outputs byte-identical to an uninterrupted run's: nothing lost, nothing
/// written twice. Half the kills come at random moments, half the moment the state's journal is seen
/// being written, that is, in the middle of a checkpoint (or just after its last write).
@Suite struct CrashResumeTests {
    /// A stream that makes a large state: 2,000 devices of the city, each in provisional always
    /// (prompts open, events held, delivered or dropped), walking among the circles and polygons and
    /// seeing the store's beacons now and then (exit timers pending across checkpoints).
    static func stream(records: Int) -> String {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let devices = 2000
        var lines: [String] = []
        let t0 = 1_772_352_000
        for d in 0..<devices {
            lines.append(#"{"type":"app","device":"d\#(d)","t":\#(t0),"state":"foreground"}"#)
            lines.append(#"{"type":"request","device":"d\#(d)","t":\#(t0),"what":"always"}"#)
            lines.append(#"{"type":"answer","device":"d\#(d)","t":\#(t0),"choice":"allowWhileUsing"}"#)
            lines.append(#"{"type":"app","device":"d\#(d)","t":\#(t0 + 1),"state":"background"}"#)
        }
        var k = 0
        while lines.count < records {
            let d = Int(next() * Double(devices)), t = t0 + 2 + k / 50
            k += 1
            if next() < 0.1 {
                lines.append(#"{"type":"sighting","device":"d\#(d)","t":\#(t),"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":\#(Int(next() * 9)),"rssi":-60}"#)
            } else if next() < 0.01 {
                lines.append(#"{"type":"app","device":"d\#(d)","t":\#(t),"state":"\#(next() < 0.5 ? "foreground" : "background")"}"#)
            } else {
                let lat = 48.85 + next() * 0.02, lon = 2.33 + next() * 0.04
                lines.append(#"{"type":"fix","device":"d\#(d)","t":\#(t),"lat":\#(lat),"lon":\#(lon),"accuracy":10}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Starts the tool with its standard error written to `errors` (a new file each time).
    static func launch(_ arguments: [String], errors: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolProcess.executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        return process
    }

    /// The nanosecond modification time of `path`, or nil.
    static func modified(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
    }

    /// How many times the run is killed before it is left to finish.
    static let kills = 24

    @Test func killedAtTwentyMomentsAndMoreTheRunEndsAsOneWould() throws {
        let folder = try ToolProcess.folder("crash")
        let observations = folder + "/observations.jsonl"
        try Self.stream(records: 40_000).write(toFile: observations, atomically: true, encoding: .utf8)
        func command(_ name: String, state: String?) -> [String] {
            ["evaluate", "--conditions", Fixture.path("city/conditions.geojson"), "--observations", observations,
             "--initial-authorization", "notDetermined", "--threads", "2",
             "--out", folder + "/\(name).jsonl", "--authorization-out", folder + "/\(name)-authorization.jsonl"]
                + (state.map { ["--state", $0, "--checkpoint-records", "2000", "--final"] } ?? [])
        }
        // The uninterrupted run, without a state and with one.
        let plain = try ToolProcess.run(command("plain", state: nil))
        #expect(plain.status == 0, "\(plain.stderr)")
        let start = Date()
        let whole = try ToolProcess.run(command("whole", state: folder + "/whole.sqlite"))
        let duration = Date().timeIntervalSince(start)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try Data(contentsOf: URL(fileURLWithPath: folder + "/plain.jsonl"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/whole.jsonl")) == expected)
        #expect(expected.count > 100_000, "the stream should make many events (\(expected.count) bytes)")

        // Killed again and again, then left to finish.
        let state = folder + "/crash.sqlite", journal = state + "-wal"
        var kills = 0, duringCheckpoint = 0, attempts = 0
        while true {
            attempts += 1
            let errors = folder + "/errors.txt"
            let process = try Self.launch(command("crash", state: state), errors: errors)
            // (A random kill comes within a twelfth of the run, and a journal-timed one after at most one
            // more checkpoint: the run is still going after two dozen kills.)
            let waitForJournal = kills % 2 == 1
            let deadline = Date().addingTimeInterval(waitForJournal ? duration : Double.random(in: 0...(duration / 12)))
            let before = Self.modified(journal)
            var sawCheckpoint = false
            while process.isRunning && Date() < deadline {
                if waitForJournal, let now = Self.modified(journal), now != before {
                    sawCheckpoint = true
                    break
                }
                usleep(waitForJournal ? 200 : 1000)
            }
            if kills < Self.kills && process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                kills += 1
                if sawCheckpoint { duringCheckpoint += 1 }
                continue
            }
            process.waitUntilExit()
            // (A run that fails will fail again: the first failure ends the test, with its reason.)
            let reason = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(process.terminationStatus == 0, "after \(kills) kills: \(reason.suffix(2000))")
            if process.terminationStatus != 0 { return }
            break
        }
        #expect(kills >= 20, "only \(kills) kills")
        #expect(duringCheckpoint >= 5, "only \(duringCheckpoint) kills while a checkpoint was being written")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/crash.jsonl")) == expected)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/crash-authorization.jsonl"))
                    == Data(contentsOf: URL(fileURLWithPath: folder + "/plain-authorization.jsonl")))
        // Nothing staged is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".partial-") }
        #expect(left.isEmpty, "partial files left: \(left)")
        print("CrashResumeTests: \(kills) kills (\(duringCheckpoint) while the journal was being written), \(attempts) runs; uninterrupted run \(duration) s")
    }
}
