import Foundation
import Perimeter
import PerimeterIO
#if canImport(Glibc)
import Glibc
#endif

extension CommandSupport {
    /// `loadEngine(conditions:…)` through the index cache at `cache`: the engine loaded from the
    /// cache when it was made from these very conditions, options and build; else built from the
    /// conditions, and the cache written (or replaced, when it is an outdated or damaged one).
    static func loadEngine(conditions path: String, indexCache cache: String, groups: String?, policy: MonitoringPolicy,
                           repair: Bool, threads: Int) throws -> MonitoringEngine {
        let found: IndexCache.Found<Result<(MonitoringEngine, [Int]), IndexImageProblem>>, key: IndexCache.Key
        do throws(InputError) {
            (found, key) = try IndexCache.load(cache, conditions: path, options: "assume=\(policy.defaultAssumption.rawValue) repair=\(repair)",
                                               build: buildIdentity) { image, lines in
                Result { () throws(IndexImageProblem) in (try MonitoringEngine(policy: policy, indexImage: image), lines) }
            }
        } catch {
            throw fail(error.description)
        }
        var why: String?
        // (Consumed, so that the engine's arrays have one owner: a copy left in `found` would make the
        // first change to each a copy of it.)
        switch consume found {
        case .usable(.success(let (loaded, lines))):
            var engine = loaded
            let conditions = engine.identifiersWithAudiences
            if conditions.count == lines.count {
                engine.batchThreads = threads
                warnIfEmpty(count: conditions.count, path: path)
                let features = zip(conditions, lines).lazy.map { condition, line in
                    (identifier: condition.identifier, line: line, audience: condition.audience)
                }
                try setGroups(groups, of: features, on: &engine, path: path)
                printError("perimeter: index cache \(cache): conditions loaded from it")
                return engine
            }
            why = "it has not a line for each condition"
        case .usable(.failure(let problem)):
            why = "its image: \(problem)"
        case .unusable(let reason):
            why = reason
        case .none:
            break
        }
        if let why { warn("\(cache): the index cache is not used (\(why)); it is made again") }
        let definitions = try readConditions(path, repair: repair, threads: threads)
        let engine = try loadEngine(definitions: definitions, path: path, groups: groups, policy: policy, threads: threads)
        do {
            try IndexCache.store(try engine.indexImage(), lines: definitions.map(\.line), key: key, to: cache)
        } catch let problem as InputError {
            throw fail(problem.description)
        }
        printError("perimeter: index cache \(cache): \(why == nil ? "written" : "written again")")
        return engine
    }

    /// This build: the tool's version, the image format's, and the executable's size and
    /// modification time, so that a rebuilt tool never reads an image an earlier build wrote.
    static var buildIdentity: String {
        var status = stat()
        guard stat("/proc/self/exe", &status) == 0 else { return "perimeter \(ToolVersion.current), unknown executable" }
        return "perimeter \(ToolVersion.current) image \(MonitoringEngine.indexImageVersion), executable of \(status.st_size) bytes"
            + " modified \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
    }
}
