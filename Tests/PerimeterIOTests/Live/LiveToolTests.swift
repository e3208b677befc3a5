import Foundation
import Testing
@testable import PerimeterIO

/// `perimeter updates`, `perimeter range` and `evaluate --approximate` with bad input: the file,
/// line and field named, outputs left as they were, usage errors as usage errors.
@Suite struct LiveToolTests {
    static let museum = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"room-12","geometry":null,"properties":{"beacon":{"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5","major":12},"ranging":true}}]}"#

    static func sighting(_ t: Int, minor: Int = 1) -> String {
        #"{"type":"sighting","device":"ana","t":\#(t),"uuid":"5A4BCFCE-174E-4BAC-A814-092E77F6B7E5","major":12,"minor":\#(minor),"rssi":-60}"#
    }

    @Test func rangeNamesAnOutOfOrderSightingAndReplacesNothing() throws {
        let conditions = try Fixture.write(Self.museum, named: "museum.geojson")
        let observations = try Fixture.write([Self.sighting(10), Self.sighting(12), Self.sighting(11)].joined(separator: "\n") + "\n",
                                             named: "museum-late.jsonl")
        let out = try Fixture.write("kept\n", named: "museum-results.jsonl")
        let run = try EndToEndTests.run(["range", "--conditions", conditions, "--observations", observations, "--out", out])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#"museum-late.jsonl:3: field "t": record is older than device "ana"'s previous record"#), "\(run.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "kept\n")
    }

    @Test func rangeWithoutRangingConstraintsIsAUsageError() throws {
        let conditions = try Fixture.write(Self.museum.replacingOccurrences(of: #","ranging":true"#, with: ""), named: "museum-unranged.geojson")
        let observations = try Fixture.write(Self.sighting(10) + "\n", named: "museum-one.jsonl")
        let run = try EndToEndTests.run(["range", "--conditions", conditions, "--observations", observations])
        #expect(run.status == 64)
        #expect(run.stderr.contains("has no ranging constraint"), "\(run.stderr)")
    }

    @Test func rangeWithEventsWritesTheMonitoringEvents() throws {
        let conditions = try Fixture.write(Self.museum, named: "museum-events.geojson")
        let observations = try Fixture.write([Self.sighting(10), Self.sighting(70)].joined(separator: "\n") + "\n", named: "museum-two.jsonl")
        let events = Fixture.temporaryPath("museum-events.jsonl")
        let ranged = try EndToEndTests.run(["range", "--conditions", conditions, "--observations", observations, "--events", events])
        let evaluated = try EndToEndTests.run(["evaluate", "--conditions", conditions, "--observations", observations])
        #expect(ranged.status == 0 && evaluated.status == 0)
        #expect(try String(contentsOfFile: events, encoding: .utf8) == evaluated.stdout)
        #expect(evaluated.stdout.split(separator: "\n").count == 3, "satisfied, unsatisfied at 40 s, satisfied again")
    }

    @Test func updatesNamesABadFix() throws {
        let observations = try Fixture.write(#"{"type":"fix","device":"ana","t":0,"lat":45.7,"lon":4.8,"accuracy":10}"# + "\n"
                                             + #"{"type":"fix","device":"ana","t":1,"lat":95,"lon":4.8,"accuracy":10}"# + "\n",
                                             named: "updates-bad.jsonl")
        let run = try EndToEndTests.run(["updates", "--observations", observations])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#"updates-bad.jsonl:2: field "lat": latitude 95.0 is outside −90…90"#), "\(run.stderr)")
    }

    @Test func badLiveNumbersAreUsageErrors() throws {
        let observations = try Fixture.write(#"{"type":"fix","device":"ana","t":0,"lat":45.7,"lon":4.8,"accuracy":10}"# + "\n", named: "updates-one.jsonl")
        for flags in [["--stationary-radius", "-1"], ["--unavailable-after", "nan"], ["--approximate-cell", "0"], ["--live", "walking"]] {
            let run = try EndToEndTests.run(["updates", "--observations", observations] + flags)
            #expect(run.status == 64, "\(flags): \(run.stderr)")
        }
        let conditions = try Fixture.write(Self.museum, named: "museum-window.geojson")
        let run = try EndToEndTests.run(["range", "--conditions", conditions, "--observations", observations, "--ranging-window", "0"])
        #expect(run.status == 64, "\(run.stderr)")
    }

    @Test func aBadDensityFileIsNamed() throws {
        let density = try Fixture.write("""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[4.8,45.7],[4.9,45.7],[4.9,45.8],[4.8,45.7]]]},"properties":{"cell":0}}]}
            """, named: "density-bad.geojson")
        let observations = try Fixture.write(#"{"type":"fix","device":"ana","t":0,"lat":45.7,"lon":4.8,"accuracy":10}"# + "\n", named: "density-one.jsonl")
        let run = try EndToEndTests.run(["updates", "--observations", observations, "--density", density])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#"density-bad.geojson:2: field "features[0].properties.cell": the cell size must be more than 0 and at most 2000 km, got 0.0"#),
                "\(run.stderr)")
    }

    @Test func approximateGoesWithItsOptionsAndNotWithState() throws {
        let observations = try Fixture.write(#"{"type":"fix","device":"ana","t":0,"lat":45.7,"lon":4.8,"accuracy":10}"# + "\n", named: "approx-one.jsonl")
        let conditions = try Fixture.write(#"{"type":"FeatureCollection","features":[]}"#, named: "approx-none.geojson")
        let base = ["evaluate", "--conditions", conditions, "--observations", observations]
        let cellAlone = try EndToEndTests.run(base + ["--approximate-cell", "2"])
        #expect(cellAlone.status == 64 && cellAlone.stderr.contains("go with --approximate FILE"), "\(cellAlone.stderr)")
        let withState = try EndToEndTests.run(base + ["--out", Fixture.temporaryPath("approx-out.jsonl"), "--state",
                                                      Fixture.temporaryPath("approx.sqlite"), "--approximate", Fixture.temporaryPath("approx.jsonl")])
        #expect(withState.status == 64, "\(withState.stderr)")
    }
}
