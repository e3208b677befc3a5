import Foundation
import Perimeter
import Testing
@testable import PerimeterIO

/// `perimeter evaluate --index-cache FILE`: the first run writes the cache, later runs over the same
/// conditions load it, and every run gives the events a run without it gives. A cache of other
/// conditions, or a damaged one, is made again; a file that is not a cache is never replaced.
@Suite struct IndexCacheToolTests {
    static let city = (conditions: Fixture.path("city/conditions.geojson"), observations: Fixture.path("city/observations.jsonl"))

    static func evaluate(_ conditions: String, _ observations: String, cache: String?, extra: [String] = []) throws -> ToolProcess.Finished {
        try ToolProcess.run(["evaluate", "--conditions", conditions, "--observations", observations, "--summary", "/dev/null"]
                            + (cache.map { ["--index-cache", $0] } ?? []) + extra)
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    @Test func theSecondRunLoadsTheCacheAndGivesTheSameEvents() throws {
        let folder = try ToolProcess.folder("index-cache-city")
        let cache = folder + "/city.index-cache"
        let plain = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: nil)
        #expect(plain.status == 0)
        let first = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache)
        #expect(first.status == 0)
        #expect(first.stderr.contains("index cache \(cache): written"))
        #expect(first.stdout == plain.stdout)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache)).starts(with: Array("perimeter index cache\n".utf8)))
        let written = try Self.inode(cache)
        let second = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache)
        #expect(second.status == 0)
        #expect(second.stderr.contains("index cache \(cache): conditions loaded from it"), "\(second.stderr)")
        #expect(second.stdout == plain.stdout)
        #expect(try Self.inode(cache) == written, "a cache that matched was written again")
        // Another default starting state is another key: the cache is made again, and its events are that policy's.
        let assuming = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache, extra: ["--assume", "unsatisfied"])
        let assumingPlain = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: nil, extra: ["--assume", "unsatisfied"])
        #expect(assuming.stderr.contains("made for another options"), "\(assuming.stderr)")
        #expect(assuming.stdout == assumingPlain.stdout)
    }

    @Test func otherConditionsMakeTheCacheAgain() throws {
        let folder = try ToolProcess.folder("index-cache-changed")
        let cache = folder + "/zones.index-cache", conditions = folder + "/zones.geojson"
        let text = try String(contentsOfFile: Self.city.conditions, encoding: .utf8)
        try text.write(toFile: conditions, atomically: true, encoding: .utf8)
        #expect(try Self.evaluate(conditions, Self.city.observations, cache: cache).status == 0)
        // One radius changed: the conditions' digest differs, and the events follow the new file.
        let changed = text.replacingOccurrences(of: "\"radius\": 200", with: "\"radius\": 900")
        #expect(changed != text)
        try changed.write(toFile: conditions, atomically: true, encoding: .utf8)
        let plain = try Self.evaluate(conditions, Self.city.observations, cache: nil)
        let again = try Self.evaluate(conditions, Self.city.observations, cache: cache)
        #expect(again.status == 0)
        #expect(again.stderr.contains("made for another conditions-sha256"), "\(again.stderr)")
        #expect(again.stderr.contains("written again"))
        #expect(again.stdout == plain.stdout)
        let loaded = try Self.evaluate(conditions, Self.city.observations, cache: cache)
        #expect(loaded.stderr.contains("conditions loaded from it"))
        #expect(loaded.stdout == plain.stdout)
    }

    /// A cache another build wrote (its image may lay out other arrays) is made again, though its
    /// conditions and options match.
    @Test func aCacheOfAnotherBuildIsMadeAgain() throws {
        let folder = try ToolProcess.folder("index-cache-build")
        let cache = folder + "/city.index-cache"
        let definitions = try ConditionsReader.read(contentsOf: Self.city.conditions)
        var engine = MonitoringEngine(policy: MonitoringPolicy())
        try engine.add(contentsOf: definitions)
        let key = IndexCache.Key(conditions: try IndexCache.digest(ofFile: Self.city.conditions), options: "assume=unknown repair=false",
                                 build: "perimeter 0.0.1, another executable")
        try IndexCache.store(try engine.indexImage(), lines: definitions.map(\.line), key: key, to: cache)
        let plain = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: nil)
        let run = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache)
        #expect(run.stderr.contains("made for another build"), "\(run.stderr)")
        #expect(run.stdout == plain.stdout)
        let loaded = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache)
        #expect(loaded.stderr.contains("conditions loaded from it"), "\(loaded.stderr)")
    }

    @Test func aDamagedCacheIsMadeAgain() throws {
        let folder = try ToolProcess.folder("index-cache-damaged")
        let cache = folder + "/city.index-cache"
        let plain = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: nil)
        #expect(try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache).status == 0)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cache)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: cache))
        let again = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache)
        #expect(again.status == 0)
        #expect(again.stderr.contains("damaged: its SHA-256 does not match"), "\(again.stderr)")
        #expect(again.stdout == plain.stdout)
        #expect(try Self.evaluate(Self.city.conditions, Self.city.observations, cache: cache).stderr.contains("conditions loaded from it"))
    }

    @Test func aFileThatIsNotACacheIsLeftAlone() throws {
        let folder = try ToolProcess.folder("index-cache-foreign")
        let notes = folder + "/notes.txt"
        try "my notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let run = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: notes)
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(notes): not an index cache"), "\(run.stderr)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes\n")
        let empty = folder + "/empty"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(try Self.evaluate(Self.city.conditions, Self.city.observations, cache: empty).status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)
        // The cache cannot be an input or an output of the run.
        let same = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: Self.city.conditions)
        #expect(same.status == 1)
        #expect(same.stderr.contains("--index-cache names the same file as --conditions"), "\(same.stderr)")
        let stateful = try Self.evaluate(Self.city.conditions, Self.city.observations, cache: folder + "/c",
                                         extra: ["--state", folder + "/s.sqlite", "--out", folder + "/e.jsonl"])
        #expect(stateful.status != 0)
        #expect(stateful.stderr.contains("--index-cache does not go with --state"))
    }

    /// Conditions for groups: the groups' members come from --groups on every run (they are not in
    /// the cache), and the warning about a feature for groups without a groups file names its line
    /// whether the conditions were read or loaded.
    @Test func groupsAndTheirWarningsAreTheSameFromTheCache() throws {
        let folder = try ToolProcess.folder("index-cache-groups")
        let fixture = Fixture.path("audiences/02-groups-file")
        let conditions = fixture + "/conditions.geojson", observations = fixture + "/observations.jsonl"
        let cache = folder + "/groups.index-cache", groups = try AudienceScenarioTests.flags("02-groups-file")
        let plain = try Self.evaluate(conditions, observations, cache: nil, extra: groups)
        #expect(try Self.evaluate(conditions, observations, cache: cache, extra: groups).stdout == plain.stdout)
        let loaded = try Self.evaluate(conditions, observations, cache: cache, extra: groups)
        #expect(loaded.stderr.contains("conditions loaded from it"))
        #expect(loaded.stdout == plain.stdout)
        let expected = try String(contentsOfFile: fixture + "/expected-events.jsonl", encoding: .utf8)
        #expect(loaded.stdout == expected)
        let warning = try Self.evaluate(conditions, observations, cache: nil).stderr
        let warningLoaded = try Self.evaluate(conditions, observations, cache: cache).stderr
        let line = warning.split(separator: "\n").first { $0.contains("is for groups") }
        #expect(line != nil)
        #expect(warningLoaded.split(separator: "\n").first { $0.contains("is for groups") } == line)
    }
}
