import Foundation
import Testing
@testable import perimeter
@testable import PerimeterIO

/// What a new user meets first: the version, help with examples and exit statuses, plain messages
/// for paths that are no readable file, warnings for empty inputs, and hints for the commonest
/// mistakes in observations. Each runs the built tool as a user does.
@Suite struct ToolUsabilityTests {
    static func run(_ arguments: [String]) throws -> ToolProcess.Finished {
        try ToolProcess.run(arguments, in: Fixture.root.path)
    }

    static let conditions = "Fixtures/city/conditions.geojson"
    static let observations = "Fixtures/city/observations.jsonl"

    @Test func versionIsPrinted() throws {
        let run = try Self.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout == ToolVersion.current + "\n")
        #expect(ToolVersion.current.split(separator: ".").count == 3)
    }

    @Test(arguments: [["--help"], ["evaluate", "--help"], ["validate", "--help"], ["help", "evaluate"]])
    func helpShowsExamplesAndExitStatuses(_ arguments: [String]) throws {
        let run = try Self.run(arguments)
        #expect(run.status == 0)
        #expect(run.stdout.contains("EXAMPLES:\n  perimeter "), "\(run.stdout)")
        #expect(run.stdout.contains(ExitStatus.table), "\(run.stdout)")
        // Help is wrapped at 80 columns: the examples and the table are written to fit.
        for line in (ExitStatus.table + "\n" + Evaluate.configuration.discussion).split(separator: "\n")
            where line.hasPrefix(" ") || line.hasSuffix(":") {
            #expect(line.count < 80, "\(line)")
        }
    }

    /// One table, and the statuses the tool returns are the ones it lists.
    @Test func exitStatusesAreTheTables() throws {
        #expect(ExitStatus.success.rawValue == 0 && ExitStatus.refused.rawValue == 1 && ExitStatus.usage.rawValue == 64)
        #expect(ExitStatus.interrupted(by: SIGINT) == 130)
        let arguments = ["evaluate", "--conditions", Self.conditions, "--observations", Self.observations]
        #expect(try Self.run(arguments).status == ExitStatus.success.rawValue)
        #expect(try Self.run(["evaluate", "--conditions", Self.conditions, "--observations", "Fixtures/city/README.md"]).status
                == ExitStatus.refused.rawValue)
        #expect(try Self.run(arguments + ["--no-such-option"]).status == ExitStatus.usage.rawValue)
        #expect(try Self.run(arguments + ["--hysteresis", "-1"]).status == ExitStatus.usage.rawValue)
        // A thread count or line length below one is a bad value like any other (it exited 1).
        for option in ["--threads", "--max-line-bytes"] {
            let run = try Self.run(arguments + [option, "0"])
            #expect(run.status == ExitStatus.usage.rawValue, "\(option)")
            #expect(run.stderr.contains("\(option) must be at least 1"), "\(run.stderr)")
        }
    }

    /// A directory or a missing file where a file is expected: a plain sentence naming the path, no
    /// line number, no Foundation error code.
    @Test func aPathThatIsNoFileIsNamedPlainly() throws {
        let directory = try ToolProcess.folder("a-directory")
        let missing = directory + "/missing.geojson"
        let cases: [([String], String)] = [
            (["evaluate", "--conditions", directory, "--observations", Self.observations], "\(directory): is a directory, not a file"),
            (["evaluate", "--conditions", Self.conditions, "--observations", directory], "\(directory): is a directory, not a file"),
            (["validate", "--conditions", directory], "\(directory): is a directory, not a file"),
            (["evaluate", "--conditions", missing, "--observations", Self.observations], "\(missing): no such file or directory"),
            (["evaluate", "--conditions", Self.conditions, "--observations", missing], "\(missing): no such file or directory"),
        ]
        for (arguments, message) in cases {
            let run = try Self.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.contains("perimeter: error: " + message + "\n"), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains(":1:"), "\(run.stderr)")
        }
        #expect(InputFile.problem("x", errno: EACCES).description == "x: permission denied: the file cannot be read")
    }

    @Test func emptyConditionsOrObservationsWarnAndSucceed() throws {
        let folder = try ToolProcess.folder("empty-inputs")
        let noFeatures = folder + "/none.geojson", noRecords = folder + "/none.jsonl", headerOnly = folder + "/none.csv"
        try #"{"type":"FeatureCollection","features":[]}"#.write(toFile: noFeatures, atomically: true, encoding: .utf8)
        try "\n".write(toFile: noRecords, atomically: true, encoding: .utf8)
        try "type,device,t,lat,lon,accuracy\n".write(toFile: headerOnly, atomically: true, encoding: .utf8)

        let empty = try Self.run(["evaluate", "--conditions", noFeatures, "--observations", Self.observations])
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        #expect(empty.stderr.contains("perimeter: warning: \(noFeatures): no conditions"), "\(empty.stderr)")
        let validated = try Self.run(["validate", "--conditions", noFeatures])
        #expect(validated.status == 0 && validated.stderr.contains("perimeter: warning: \(noFeatures): no conditions"))
        for path in [noRecords, headerOnly] {
            let run = try Self.run(["evaluate", "--conditions", Self.conditions, "--observations", path])
            #expect(run.status == 0 && run.stdout.isEmpty)
            #expect(run.stderr.contains("perimeter: warning: \(path): no records"), "\(run.stderr)")
        }
        // Neither warning where there is something.
        #expect(!(try Self.run(["evaluate", "--conditions", Self.conditions, "--observations", Self.observations])).stderr.contains("warning"))
    }
}
