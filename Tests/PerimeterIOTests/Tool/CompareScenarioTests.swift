import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `perimeter compare` (SPEC §5.7) against `Fixtures/compare/`, whose expected comparisons come from
/// the naive Python oracle (a full reference run per variant, `scripts/make_compare_fixtures.py`):
/// the tool's one geometry pass per geometry and replayed delivery must count the same.
@Suite struct CompareScenarioTests {
    static let names = Fixture.folders(in: "compare", holding: "expected.json")

    static func arguments(_ name: String, json: Bool) throws -> [String] {
        let dir = "Fixtures/compare/\(name)"
        let variants = try Fixture.text("compare/\(name)/variants.txt").split(separator: "\n").flatMap { ["--variant", String($0)] }
        return ["compare", "--conditions", "\(dir)/conditions.geojson", "--observations", "\(dir)/observations.jsonl"]
            + variants + (json ? ["--json"] : [])
    }

    @Test func theComparisonsAreThere() {
        #expect(Self.names.count == 4, "\(Self.names)")
    }

    @Test(arguments: names)
    func theToolCountsWhatFullRunsCount(_ name: String) throws {
        let run = try EndToEndTests.run(try Self.arguments(name, json: true))
        #expect(run.status == 0, "\(run.stderr)")
        var got = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let passes = try #require(got.removeValue(forKey: "geometryPasses") as? Int)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(Fixture.text("compare/\(name)/expected.json").utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: got).isEqual(to: expected), "\(run.stdout)")
        // One pass per geometry: the variants that differ only in authorization share one.
        let geometries = ["01-city-permissions": 2, "02-holding": 1, "03-relaunch-windows": 1, "04-platforms": 3]
        #expect(passes == geometries[name])
    }

    @Test func theTextReportHasATableAndTheDifferences() throws {
        let run = try EndToEndTests.run(try Self.arguments("02-holding", json: false))
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "4 variants over 10 records; geometry evaluated 1 time")
        #expect(lines.contains { $0.hasPrefix("2  initial=notDetermined,holding-capacity=2") && $0.hasSuffix("3          3          0          0          0") },
                "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("conditions whose delivered events differ: ") })
    }

    @Test func badVariantsAndBadRecordsAreNamed() throws {
        let dir = "Fixtures/compare/02-holding"
        let one = try EndToEndTests.run(["compare", "--conditions", "\(dir)/conditions.geojson", "--observations", "\(dir)/observations.jsonl",
                                         "--variant", "initial=notDetermined"])
        #expect(one.status == 64 && one.stderr.contains("at least two --variant"), "\(one.stderr)")
        let bad = try EndToEndTests.run(["compare", "--conditions", "\(dir)/conditions.geojson", "--observations", "\(dir)/observations.jsonl",
                                         "--variant", "holding-capacity=-1", "--variant", "grace"])
        #expect(bad.status == 64 && bad.stderr.contains("--variant holding-capacity=-1: holding capacity must be ≥ 0"), "\(bad.stderr)")
        let input = try Fixture.write(#"""
            {"type":"fix","device":"a","t":10,"lat":48.85,"lon":2.35,"accuracy":5}
            {"type":"fix","device":"a","t":5,"lat":48.85,"lon":2.35,"accuracy":5}

            """#, named: "compare-order.jsonl")
        let order = try EndToEndTests.run(["compare", "--conditions", "\(dir)/conditions.geojson", "--observations", input,
                                           "--variant", "profile=standard", "--variant", "profile=ios18"])
        #expect(order.status != 0 && order.stderr.contains("compare-order.jsonl:2: field \"t\""), "\(order.stderr)")
    }
}
