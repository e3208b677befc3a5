import ArgumentParser
import Perimeter
import PerimeterIO
#if canImport(Glibc)
import Glibc
#endif

enum CommandSupport {
    static func printError(_ message: String) {
        // Straight to file descriptor 2: `stderr` (a C global) is not concurrency-safe in Swift 6.
        var line = message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// Prints `message` on standard error and returns the exit code for bad input.
    static func fail(_ message: String) -> ExitCode {
        printError("perimeter: error: " + message.replacingNewlines(with: "\nperimeter: error: "))
        return ExitCode(1)
    }

    /// Reads the conditions into a new engine with `policy`.
    static func loadEngine(conditions path: String, policy: MonitoringPolicy, repair: Bool) throws -> MonitoringEngine {
        let definitions: [ConditionDefinition]
        do {
            definitions = try ConditionsReader.read(contentsOf: path, repair: repair)
        } catch {
            throw fail(error.description)
        }
        var engine = MonitoringEngine(policy: policy)
        for definition in definitions {
            do {
                try engine.add(definition.condition, identifier: definition.identifier, assuming: definition.assuming)
            } catch {
                throw fail("\(path):\(definition.line): \(error)")
            }
        }
        return engine
    }
}
