import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO
import PerimeterTestSupport

/// Approximate reports (SPEC §5.3, docs/approximate.md): `Fixtures/approximate/reports/` through
/// `evaluate --approximate` and through `ApproximateReporter`, against the Python oracle; and the
/// report's promises over random walks, the poles and the antimeridian included.
@Suite struct ApproximateReportTests {
    static let names: [String] = {
        let dir = Fixture.path("approximate/reports")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return entries.filter { FileManager.default.fileExists(atPath: "\(dir)/\($0)/expected-approximate.jsonl") }.sorted()
    }()

    @Test func thereAreFourScenarios() {
        #expect(Self.names.count == 4, "\(Self.names)")
    }

    @Test(arguments: names)
    func throughTheTool(_ name: String) throws {
        let dir = "Fixtures/approximate/reports/\(name)", folder = "approximate/reports/\(name)"
        let empty = try Fixture.write(#"{"type":"FeatureCollection","features":[]}"#, named: "no-conditions.geojson")
        let out = Fixture.temporaryPath("approximate-\(name).jsonl")
        var arguments = ["evaluate", "--conditions", empty, "--observations", "\(dir)/observations.jsonl", "--out", "/dev/null",
                         "--approximate", out] + (try LiveScenarioTests.flags(folder))
        if LiveScenarioTests.exists("\(folder)/density.geojson") { arguments += ["--density", "\(dir)/density.geojson"] }
        let run = try EndToEndTests.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == (try Fixture.text("\(folder)/expected-approximate.jsonl")))
    }

    @Test(arguments: names)
    func throughTheLibrary(_ name: String) throws {
        let folder = "approximate/reports/\(name)"
        let (live, location, _) = try LiveScenarioTests.settings(folder)
        var reporters: [String: ApproximateReporter] = [:]
        var reader = try ObservationReader(path: Fixture.path("\(folder)/observations.jsonl"))
        var lines = ""
        while let next = reader.next() {
            let record = try next.get()
            guard case .fix(let fix) = record.observation, fix.isValid else { continue }
            var reporter = reporters[record.device] ?? ApproximateReporter(interval: TimeSpan(seconds: live.approximateInterval))
            let seen = reporter.see(fix, in: location)
            let report = try #require(seen)
            reporters[record.device] = reporter
            lines += ApproximateFixEncoding.jsonLine(device: record.device, date: fix.time, report: report, cause: record.line)
        }
        #expect(lines == (try Fixture.text("\(folder)/expected-approximate.jsonl")))
    }

    /// Over random walks — some across the antimeridian, some over a pole, at speeds from a walk to
    /// an airliner's, with random cell sizes and intervals: each report's circle holds the fix it
    /// was computed from; a report changes only at a fix at least the interval after the last
    /// computation, and only to another cell; and the app sees the last report in between.
    @Test func reportsHoldTheFixTheyWereComputedFrom() throws {
        var random = SplitMix64(seed: 36)
        for walk in 0..<400 {
            let cell = [0.5, 1, 2, 5, 10, 50, 500][Int(random.next() % 7)]
            let interval = [0.0, 60, 900, 3600][Int(random.next() % 4)]
            let location = ApproximateLocation(defaultGrid: try #require(ApproximateGrid(cellKilometres: cell)))
            var reporter = ApproximateReporter(interval: TimeSpan(seconds: interval))
            let start: Coordinate = switch walk % 4 {
            case 0: Coordinate(latitude: random.uniform(-60, 60), longitude: 179.99 * (random.next() % 2 == 0 ? 1 : -1))
            case 1: Coordinate(latitude: 89.99 * (random.next() % 2 == 0 ? 1 : -1), longitude: random.uniform(-180, 180))
            default: Coordinate(latitude: random.uniform(-90, 90), longitude: random.uniform(-180, 180))
            }
            var position = start, bearing = random.uniform(0, 360)
            let speed = [1.5, 30, 250][Int(random.next() % 3)]
            var time = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
            var last: ApproximateReport?, computedAt: Timestamp?
            for _ in 0..<300 {
                time = time.adding(TimeSpan(seconds: random.uniform(1, 120)))
                bearing += random.uniform(-30, 30)
                position = Self.moved(position, metres: speed * 60, bearing: bearing)
                let fix = Fix(time: time, coordinate: position, horizontalAccuracy: 5)
                let seen = reporter.see(fix, in: location)
                let report = try #require(seen)
                let due = computedAt.map { time >= $0.adding(TimeSpan(seconds: interval)) } ?? true
                if due {
                    // Recomputed here: the report is this fix's cell (kept as it was if it was that cell already).
                    let fresh = location.report(for: position)
                    #expect(report.isSameCell(as: fresh), "walk \(walk): a recomputation reports the fix's cell")
                    #expect(report == fresh || report == last)
                    #expect(Geodesy.distance(report.centre, position) <= report.radius,
                            "walk \(walk): \(position) is \(Geodesy.distance(report.centre, position)) m from the centre, radius \(report.radius)")
                    computedAt = time
                } else {
                    #expect(report == last, "walk \(walk): the report changed between computations")
                }
                last = report
            }
        }
    }

    /// The point `metres` from `c` along `bearing` (degrees from north) on the sphere.
    static func moved(_ c: Coordinate, metres: Double, bearing: Double) -> Coordinate {
        let r = 6_371_008.8, d = metres / r, b = bearing * .pi / 180
        let φ1 = c.latitude * .pi / 180, λ1 = c.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(d) + cos(φ1) * sin(d) * cos(b))
        let λ2 = λ1 + atan2(sin(b) * sin(d) * cos(φ1), cos(d) - sin(φ1) * sin(φ2))
        var lon = λ2 * 180 / .pi
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: max(-90, min(90, φ2 * 180 / .pi)), longitude: max(-180, min(180, lon)))
    }
}

private extension SplitMix64 {
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
