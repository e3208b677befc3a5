import ArgumentParser
import Foundation
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

    /// Prints `message` on standard error and returns the exit status for refused input.
    static func fail(_ message: String) -> ExitCode {
        printError("perimeter: error: " + message.replacingNewlines(with: "\nperimeter: error: "))
        return ExitStatus.refused
    }

    /// Prints `message` on standard error as a warning: the run goes on, and its status is unchanged.
    static func warn(_ message: String) {
        printError("perimeter: warning: " + message)
    }

    /// The warning for a conditions file without conditions: nothing can produce an event.
    static func warnIfEmpty(_ definitions: [ConditionDefinition], path: String) {
        warnIfEmpty(count: definitions.count, path: path)
    }

    static func warnIfEmpty(count: Int, path: String) {
        guard count == 0 else { return }
        warn("\(path): no conditions (the FeatureCollection has no features), so no event can come")
    }

    /// Seconds from `start` to now, for a summary.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (s, attoseconds) = (ContinuousClock.now - start).components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Keeps `value` (an engine) until the process exits rather than freeing it as the command
    /// returns: the exit hands all memory back to the kernel at once, where freeing first walks every
    /// array of every condition and device. Held, not leaked, so that a leak checker sees it reachable.
    static func keepUntilExit(_ value: Any) {
        keptUntilExit.append(value)
    }

    // (Unsafe as a global is: only the command's own thread writes it, once, as the command ends.)
    nonisolated(unsafe) private static var keptUntilExit: [Any] = []

    /// The processors this process may run on (its affinity mask, which `taskset` and container
    /// limits narrow: Linux's `Cpus_allowed_list`), else every active one.
    static var usableProcessorCount: Int {
        let all = ProcessInfo.processInfo.activeProcessorCount
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return all }
        // "0-3,8,10-11"
        var count = 0
        for part in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard let first = bounds.first ?? nil, let last = bounds.last ?? nil, last >= first else { return all }
            count += last - first + 1
        }
        return count > 0 ? min(count, all) : all
    }

    /// Reads the conditions file (a bad one is the command's failure, a file without features a warning).
    static func readConditions(_ path: String, repair: Bool, threads: Int) throws -> [ConditionDefinition] {
        let definitions: [ConditionDefinition]
        do {
            definitions = try ConditionsReader.read(contentsOf: path, repair: repair, threads: threads)
        } catch {
            throw fail(error.description)
        }
        warnIfEmpty(definitions, path: path)
        return definitions
    }

    /// Reads a groups file (`--groups`), or stops with its problems.
    static func readGroups(_ path: String) throws -> [String: [String]] {
        do throws(InputErrors) {
            return try GroupsReader.read(contentsOf: path)
        } catch {
            throw fail(error.description)
        }
    }

    /// Warns of the first group a condition names that the groups file gives no member: a misspelt
    /// name would otherwise leave the condition unwatched without a word.
    static func warnAboutGroups(_ features: some Sequence<Feature>, members: [String: [String]], path: String) {
        for feature in features {
            guard let group = feature.audience.groups.first(where: { members[$0] == nil }) else { continue }
            warn("\(path): no device is in group \"\(group)\", which feature \"\(feature.identifier)\" (line \(feature.line)) is for")
            return
        }
    }

    /// What the warnings about groups need of a condition's feature.
    typealias Feature = (identifier: String, line: Int, audience: ConditionAudience)

    /// Sets `groups`' memberships on the engine, warning of groups without members; without a groups
    /// file, warns of the first feature for groups (only the devices it lists watch it).
    static func setGroups(_ groups: String?, of features: some Sequence<Feature>, on engine: inout MonitoringEngine, path: String) throws {
        if let groups {
            let members = try readGroups(groups)
            warnAboutGroups(features, members: members, path: groups)
            engine.setGroups(members)
        } else if let scoped = features.first(where: { !$0.audience.groups.isEmpty }) {
            warn("\(path):\(scoped.line): feature \"\(scoped.identifier)\" is for groups (properties.groups) but no --groups file gives their members: only the devices it lists watch it")
        }
    }

    /// Reads the conditions into a new engine with `policy` whose batch paths use `threads` threads;
    /// the features are parsed and checked, and the polygons' evaluation data built, on as many.
    static func loadEngine(conditions path: String, groups: String?, policy: MonitoringPolicy, repair: Bool,
                           threads: Int = usableProcessorCount) throws -> MonitoringEngine {
        try loadEngine(definitions: try readConditions(path, repair: repair, threads: threads), path: path, groups: groups,
                       policy: policy, threads: threads)
    }

    /// An engine holding `definitions`, read from `path` (for messages), with `groups`' memberships.
    static func loadEngine(definitions: [ConditionDefinition], path: String, groups: String?, policy: MonitoringPolicy,
                           threads: Int) throws -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = threads
        try setGroups(groups, of: definitions.lazy.map { ($0.identifier, $0.line, $0.audience) }, on: &engine, path: path)
        do {
            try engine.add(contentsOf: definitions)
        } catch {
            // (The reader refuses duplicate identifiers first; this names the line all the same.)
            let line = definitions.last { if case .duplicateIdentifier(let id) = error { $0.identifier == id } else { false } }?.line
            throw fail("\(path):\(line.map(String.init) ?? "?"): \(error)")
        }
        return engine
    }
}
