import Foundation
import Testing

@testable import PerimeterIO

/// The tool never destroys a file it reads, and a run that does not finish leaves the files it was
/// to write as they were: paths naming one file are refused before anything is opened for writing,
/// and outputs are written beside their targets and put in place only when the run succeeds.
@Suite struct OutputSafetyTests {
    /// A folder holding the city conditions and observations, and the events of a run over them.
    struct Workspace {
        let folder: String
        let conditions: String
        let observations: String

        init(_ name: String) throws {
            folder = try ToolProcess.folder(name)
            conditions = folder + "/conditions.geojson"
            observations = folder + "/observations.jsonl"
            try FileManager.default.copyItem(atPath: Fixture.path("city/conditions.geojson"), toPath: conditions)
            try FileManager.default.copyItem(atPath: Fixture.path("city/observations.jsonl"), toPath: observations)
        }

        func bytes(_ name: String) -> Data? { FileManager.default.contents(atPath: folder + "/" + name) }
        func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }
    }

    /// Each case names one file twice — by the same path, `./x` against `x`, a hard link, a symbolic
    /// link — as an input and an output, or as two outputs (existing or not yet made).
    @Test(arguments: [
        (["--observations", "observations.jsonl", "--out", "observations.jsonl"], "--out names the same file as --observations"),
        (["--observations", "observations.jsonl", "--out", "./observations.jsonl"], "--out names the same file as --observations"),
        (["--observations", "hard-link.jsonl", "--out", "observations.jsonl"], "--out names the same file as --observations"),
        (["--observations", "observations.jsonl", "--out", "symbolic-link.jsonl"], "--out names the same file as --observations"),
        (["--observations", "observations.jsonl", "--out", "conditions.geojson"], "--out names the same file as --conditions"),
        (["--observations", "observations.jsonl", "--quarantine", "./conditions.geojson"], "--quarantine names the same file as --conditions"),
        (["--observations", "observations.jsonl", "--out", "new.jsonl", "--quarantine", "./new.jsonl"],
         "--quarantine names the same file as --out"),
        (["--observations", "observations.jsonl", "--out", "events.jsonl", "--summary", "events.jsonl"],
         "--summary names the same file as --out"),
        (["--observations", "observations.jsonl", "--out", "e.jsonl", "--authorization-out", "a.jsonl", "--summary", "./a.jsonl"],
         "--summary names the same file as --authorization-out"),
    ])
    func pathsNamingOneFileAreRefusedBeforeAnythingIsWritten(_ paths: [String], _ message: String) throws {
        let work = try Workspace("same-file")
        try FileManager.default.linkItem(atPath: work.observations, toPath: work.folder + "/hard-link.jsonl")
        try FileManager.default.createSymbolicLink(atPath: work.folder + "/symbolic-link.jsonl", withDestinationPath: "observations.jsonl")
        try work.write("the events of an earlier run\n", "events.jsonl")
        let before = work.names.map { work.bytes($0) }
        let run = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson"] + paths, in: work.folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        // Nothing written, nothing made: every file as it was.
        #expect(work.names.map { work.bytes($0) } == before)
        #expect(!work.names.contains { $0.contains(".partial-") })
    }

    /// Standard input and standard output redirected to an input or an output count as that file.
    @Test func redirectedStandardStreamsAreComparedToo() throws {
        let work = try Workspace("same-file-std")
        let original = work.bytes("observations.jsonl")
        let fromInput = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "-",
                                             "--out", "observations.jsonl"], in: work.folder, stdin: work.observations)
        #expect(fromInput.status == 1 && fromInput.stderr.contains("--out names the same file as --observations (standard input)"),
                "\(fromInput.stderr)")
        let toInput = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "observations.jsonl"],
                                          in: work.folder, stdoutPath: work.observations)
        #expect(toInput.status == 1 && toInput.stderr.contains("standard output names the same file as --observations"),
                "\(toInput.stderr)")
        #expect(work.bytes("observations.jsonl") == original)
    }

    /// Devices (`/dev/null`) cannot lose data: naming one twice is not refused, and it is written, not replaced.
    @Test func aDeviceMayBeNamedTwice() throws {
        let work = try Workspace("same-file-device")
        let run = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "observations.jsonl",
                                       "--out", "/dev/null", "--quarantine", "/dev/null"], in: work.folder)
        #expect(run.status == 0, "\(run.stderr)")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)
    }

    /// A run that succeeds replaces its outputs whole; the replaced file keeps its permissions, a
    /// symbolic link stays a link to the file it named, and no partial file is left.
    @Test func aSuccessfulRunReplacesItsOutputs() throws {
        let work = try Workspace("replace")
        try work.write("old\n", "events.jsonl")
        chmod(work.folder + "/events.jsonl", 0o600)
        try work.write("old\n", "target.jsonl")
        try FileManager.default.createSymbolicLink(atPath: work.folder + "/link.jsonl", withDestinationPath: "target.jsonl")
        let run = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "observations.jsonl",
                                       "--out", "events.jsonl", "--authorization-out", "link.jsonl", "--summary", "summary.txt"],
                                      in: work.folder)
        #expect(run.status == 0, "\(run.stderr)")
        let events = String(decoding: work.bytes("events.jsonl") ?? Data(), as: UTF8.self)
        #expect(events == (try Fixture.text("city/expected-events.jsonl")))
        var status = stat()
        #expect(stat(work.folder + "/events.jsonl", &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: work.folder + "/link.jsonl")) == "target.jsonl")
        #expect(work.bytes("target.jsonl") != Data("old\n".utf8))
        #expect(String(decoding: work.bytes("summary.txt") ?? Data(), as: UTF8.self).hasPrefix("197 records read"))
        #expect(!work.names.contains { $0.contains(".partial-") }, "\(work.names)")
    }

    /// A run stopped by a bad record leaves its outputs as they were and says where what it wrote is.
    @Test func aRunStoppedByAnErrorLeavesItsOutputsAsTheyWere() throws {
        let work = try Workspace("stopped")
        let good = try Fixture.text("city/observations.jsonl")
        try work.write(good + "{\"type\":\"fix\",\"device\":\"zoe\",\"t\":1,\"lat\":95,\"lon\":0,\"accuracy\":1}\n", "bad.jsonl")
        try work.write("the events of an earlier run\n", "events.jsonl")
        let run = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "bad.jsonl",
                                       "--out", "events.jsonl", "--summary", "summary.txt"], in: work.folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("bad.jsonl:198: field \"lat\""), "\(run.stderr)")
        #expect(work.bytes("events.jsonl") == Data("the events of an earlier run\n".utf8))
        #expect(work.bytes("summary.txt") == nil)
        // The note names the partial file, which holds the events before the bad record.
        let partials = work.names.filter { $0.hasPrefix("events.jsonl.partial-") }
        #expect(partials.count == 1)
        if let partial = partials.first {
            #expect(run.stderr.contains("--out events.jsonl is not replaced; what was written is in \(work.folder)/\(partial)")
                    || run.stderr.contains("what was written is in events.jsonl.partial-"), "\(run.stderr)")
            // (All but the two beacon exits that only the end of the input brings.)
            let expected = try Fixture.text("city/expected-events.jsonl").split(separator: "\n", omittingEmptySubsequences: false)
            #expect(work.bytes(partial) == Data(expected.dropLast(3).map { $0 + "\n" }.joined().utf8))
        }
    }

    /// An output that cannot be made stops the run before it starts: nothing is replaced, and the
    /// empty partial files of the outputs made before it are not left behind.
    @Test func anOutputThatCannotBeMadeLeavesNothingBehind() throws {
        let work = try Workspace("cannot-make")
        try work.write("the events of an earlier run\n", "events.jsonl")
        let run = try ToolProcess.run(["evaluate", "--conditions", "conditions.geojson", "--observations", "observations.jsonl",
                                       "--out", "events.jsonl", "--summary", "no-such-folder/summary.txt"], in: work.folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("no-such-folder/summary.txt: cannot create a file beside it"), "\(run.stderr)")
        #expect(work.bytes("events.jsonl") == Data("the events of an earlier run\n".utf8))
        #expect(!work.names.contains { $0.contains(".partial-") }, "\(work.names)")
    }

    /// A run killed part way — SIGKILL, which nothing can catch, or SIGTERM, which it answers with a
    /// note — leaves the target exactly as it was, though more than one buffer of events was written.
    @Test(arguments: [SIGKILL, SIGTERM])
    func aKilledRunLeavesItsOutputAsItWas(_ signal: Int32) throws {
        let work = try Workspace("killed")
        try work.write("the events of an earlier run\n", "events.jsonl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ToolProcess.executable)
        process.arguments = ["evaluate", "--conditions", "conditions.geojson", "--observations", "-", "--out", "events.jsonl"]
        process.currentDirectoryURL = URL(fileURLWithPath: work.folder)
        let input = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardError = err
        try process.run()
        // Each device's first fix settles every geographic condition (some 2 KB of events); an app
        // record then makes the tool apply and write what it holds. The pipe stays open: the run
        // cannot finish on its own.
        var records = ""
        for d in 0..<400 {
            records += "{\"type\":\"fix\",\"device\":\"d\(d)\",\"t\":\(1_772_352_000 + d),\"lat\":48.86,\"lon\":2.34,\"accuracy\":10}\n"
        }
        records += "{\"type\":\"app\",\"device\":\"d0\",\"t\":1772353000,\"state\":\"foreground\"}\n"
        // (The reader takes runs of fixes a megabyte at a time: more after the app record lets it
        // reach that record without the end of the input.)
        for k in 0..<20_000 {
            records += "{\"type\":\"fix\",\"device\":\"d0\",\"t\":\(1_772_353_001 + k),\"lat\":48.86,\"lon\":2.34,\"accuracy\":10}\n"
        }
        input.fileHandleForWriting.write(Data(records.utf8))
        // Wait until a buffer's worth (64 KiB) has reached the partial file.
        var partial: String?
        for _ in 0..<600 {
            partial = work.names.first { $0.hasPrefix("events.jsonl.partial-") }
            if let partial, let size = work.bytes(partial)?.count, size >= 1 << 16 { break }
            usleep(50_000)
        }
        #expect(partial != nil && (work.bytes(partial ?? "")?.count ?? 0) >= 1 << 16, "no partial output after 30 s: \(work.names)")
        kill(process.processIdentifier, signal)
        // (Not `waitUntilExit()` alone: a run that ignored the signal would hang the suite.)
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning {
            Issue.record("the run went on 10 s after the signal")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(work.bytes("events.jsonl") == Data("the events of an earlier run\n".utf8))
        if signal == SIGTERM {
            #expect(process.terminationStatus == 128 + SIGTERM)
            #expect(stderr.contains("stopped by a signal: --out events.jsonl is not replaced; what was written is in events.jsonl.partial-"),
                    "\(stderr)")
        } else {
            #expect(process.terminationReason == .uncaughtSignal)
        }
        try? input.fileHandleForWriting.close()
    }
}
