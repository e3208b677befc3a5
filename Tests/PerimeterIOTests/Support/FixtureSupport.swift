import Foundation
import Testing

@testable import Perimeter
@testable import PerimeterIO

/// Paths and helpers shared by the I/O and end-to-end tests.
enum Fixture {
    /// The package root, found from this file's location (Tests/PerimeterIOTests/Support/).
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        root.appendingPathComponent("Fixtures").appendingPathComponent(relative).path
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// A temporary file path that is removed when the test's process ends (or by the caller).
    /// The folders of `Fixtures/<folder>/` that hold `file`, sorted: a suite's scenarios.
    static func folders(in folder: String, holding file: String) -> [String] {
        let dir = path(folder)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return entries.filter { FileManager.default.fileExists(atPath: "\(dir)/\($0)/\(file)") }.sorted()
    }

    static func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("perimeter-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(UUID().uuidString + "-" + name).path
    }

    static func write(_ text: String, named name: String) throws -> String {
        let path = temporaryPath(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An engine loaded with a conditions fixture.
    static func engine(_ conditions: String, policy: MonitoringPolicy = MonitoringPolicy()) throws -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy)
        for definition in try ConditionsReader.read(contentsOf: path(conditions)) {
            try engine.add(definition.condition, identifier: definition.identifier, assuming: definition.assuming)
        }
        return engine
    }

    /// A `Monitor` loaded with a conditions fixture.
    static func monitor(_ conditions: String, name: String, policy: MonitoringPolicy = MonitoringPolicy(),
                        streamsEvents: Bool = true) async throws -> Monitor {
        let monitor = Monitor(name: name, policy: policy, streamsEvents: streamsEvents)
        let definitions = try ConditionsReader.read(contentsOf: path(conditions))
        if definitions.contains(where: { !$0.audience.isEveryone }) {
            // (All at once: per-device limits start with the first condition that has an audience.)
            try await monitor.add(contentsOf: definitions)
        } else {
            for definition in definitions {
                try await monitor.add(definition.condition, identifier: definition.identifier, assuming: definition.assuming)
            }
        }
        return monitor
    }
}

extension Fixture {
    /// What the tool should write for `input`, by the plain way: every record the reader gives fed to
    /// `engine` one at a time (its line as the cause), refused ones quarantined with their reason, then
    /// the end of the input. Returns the events, quarantine and authorization-change lines, and the
    /// engine (for its counts).
    static func plainRun(_ input: String, engine: MonitoringEngine) throws
        -> (events: String, bad: String, changes: String, engine: MonitoringEngine) {
        var oracle = engine
        var reader = try ObservationReader(path: input)
        var events: [MonitorEvent] = [], changes: [AuthorizationChange] = []
        var expectedEvents = "", expectedBad = "", expectedChanges = ""
        func flush() {
            for event in events { expectedEvents += EventEncoding.jsonLine(event) }
            events.removeAll()
            oracle.takeAuthorizationChanges(into: &changes)
            for change in changes { expectedChanges += AuthorizationChangeEncoding.jsonLine(change) }
            changes.removeAll()
        }
        while let next = reader.next() {
            switch next {
            case .success(let record):
                do throws(ObservationProblem) {
                    try oracle.process(record.observation, device: record.device, cause: record.line, into: &events)
                } catch {
                    flush()
                    expectedBad += QuarantineEncoding.jsonLine(InputError(file: reader.file, line: record.line, field: error.field,
                                                                          message: error.message), record: reader.currentLineBytes)
                }
                flush()
            case .failure(let error):
                expectedBad += QuarantineEncoding.jsonLine(error, record: reader.currentLineBytes)
            }
        }
        oracle.finish(into: &events)
        flush()
        return (expectedEvents, expectedBad, expectedChanges, oracle)
    }
}

extension Fixture {
    /// `s` as a JSON string, each scalar escaped as RFC 8259 requires: the tests' own writer, apart
    /// from the library's (`JSONText`), which it checks.
    static func jsonQuoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
