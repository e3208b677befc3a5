import Foundation
import Testing

/// The built `perimeter` executable run as a user runs it: its own process, its exit status, what it
/// printed. The tests that need a real process (redirections, signals, files replaced on exit) use it.
struct ToolProcess {
    /// The executable beside the test bundle (SwiftPM builds it into the same folder).
    static var executable: String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return folder.appendingPathComponent("perimeter").path
    }

    struct Finished {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `perimeter` with `arguments` in `directory`, standard input from `stdin` (a path; `nil`:
    /// none) and standard output to `stdoutPath` (a path opened for appending; `nil`: captured).
    static func run(_ arguments: [String], in directory: String? = nil, stdin: String? = nil,
                    stdoutPath: String? = nil) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        if let stdoutPath {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
            handle.seekToEndOfFile()
            process.standardOutput = handle
        } else {
            process.standardOutput = out
        }
        process.standardError = err
        try process.run()
        // (Read before waiting: a full pipe would block the tool.)
        let stdoutData = stdoutPath == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                        stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// A fresh folder for one test's files.
    static func folder(_ name: String) throws -> String {
        let path = Fixture.temporaryPath(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
