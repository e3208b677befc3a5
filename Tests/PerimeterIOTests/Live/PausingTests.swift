import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO
import PerimeterTestSupport

/// SPEC §5.1: "monitoring's events are identical whether or not a device is paused". `updates
/// --events` writes the monitoring events of its run; with pausing (`--live default`) and without
/// (`--live airborne`) they must be `evaluate`'s, byte for byte — over every scenario and over a
/// stream of the benchmark's kind in which devices stand still half the time, often on a boundary.
@Suite struct PausingTests {
    /// Each fixture with conditions whose events are known: the authorization scenarios, the live
    /// scenario with conditions, and the city.
    static let fixtures: [(folder: String, flags: [String])] = {
        var fixtures = ScenarioTests.names.map { ("Fixtures/scenarios/\($0)", (try? ScenarioTests.flags($0)) ?? []) }
        fixtures.append(("Fixtures/live/16-conditions", []))
        fixtures.append(("Fixtures/city", []))
        return fixtures
    }()

    @Test(arguments: fixtures.map(\.folder))
    func eventsAreTheSamePausedOrNot(_ folder: String) throws {
        let flags = Self.fixtures.first { $0.folder == folder }!.flags
        let inputs = ["--conditions", "\(folder)/conditions.geojson", "--observations", "\(folder)/observations.jsonl"] + flags
        let evaluated = try EndToEndTests.run(["evaluate"] + inputs)
        #expect(evaluated.status == 0, "\(evaluated.stderr)")
        for live in ["default", "airborne"] {
            let events = Fixture.temporaryPath("pausing-\(live).jsonl")
            let run = try EndToEndTests.run(["updates", "--events", events, "--out", "/dev/null", "--live", live] + inputs)
            #expect(run.status == 0, "\(run.stderr)")
            let written = try String(contentsOfFile: events, encoding: .utf8)
            #expect(written == evaluated.stdout, "\(folder), --live \(live): \(ToolOracleTests.difference(written, evaluated.stdout) ?? "")")
        }
    }

    /// 300 devices, 20 minutes of a fix a second: each walks (1–30 m/s, turning now and then, as the
    /// benchmark's devices do, accuracy 5–65 m) and stands still (within 6 m, accuracy 0–3 m) in turns
    /// of five minutes; a third of the circles are centred so that a still device sits on their
    /// boundary, where its jitter crosses it, so that paused devices still have events. Events
    /// alone, with pausing, and without, are the same.
    @Test func aStreamThatStandsStillHalfTheTimeGivesTheSameEvents() throws {
        var random = SplitMix64(seed: 5_1)
        var conditions: [(condition: Condition, identifier: String, assuming: ConditionState?)] = []
        let origin = Coordinate(latitude: 45.75, longitude: 4.85)
        func at(_ east: Double, _ north: Double) -> Coordinate {
            Coordinate(latitude: origin.latitude + north / 111_195, longitude: origin.longitude + east / (111_195 * cos(origin.latitude * .pi / 180)))
        }
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * Double(random.next() >> 11) / Double(1 << 53) }
        var records: [(device: String, observation: Observation)] = []
        let start = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
        var devices: [(east: Double, north: Double, speed: Double, heading: Double)] = (0..<300).map { _ in
            (uniform(-5000, 5000), uniform(-5000, 5000), uniform(1, 30), uniform(0, 2 * .pi))
        }
        for second in 0..<1200 {
            let standing = (second / 300) % 2 == 1
            for d in devices.indices {
                if !standing {
                    if random.next() % 20 == 0 { devices[d].heading = uniform(0, 2 * .pi) }
                    devices[d].east += devices[d].speed * sin(devices[d].heading)
                    devices[d].north += devices[d].speed * cos(devices[d].heading)
                } else if second % 300 == 0 && d % 3 == 0 {
                    // A circle whose boundary runs through where this device now stands.
                    let radius = uniform(30, 400), angle = uniform(0, 2 * .pi)
                    let centre = at(devices[d].east + radius * sin(angle), devices[d].north + radius * cos(angle))
                    conditions.append((.circle(try CircularGeographicCondition(center: centre, radius: radius)), "c\(conditions.count)", .unsatisfied))
                }
                let jitter = standing ? uniform(0, 6) : 0, angle = uniform(0, 2 * .pi)
                let fix = Fix(time: start.adding(TimeSpan(seconds: Double(second))),
                              coordinate: at(devices[d].east + jitter * sin(angle), devices[d].north + jitter * cos(angle)),
                              horizontalAccuracy: standing ? uniform(0, 3) : uniform(5, 65))
                records.append(("d\(d)", .fix(fix)))
            }
        }
        for _ in 0..<200 {
            let radius = uniform(50, 2000)
            conditions.append((.circle(try CircularGeographicCondition(center: at(uniform(-6000, 6000), uniform(-6000, 6000)), radius: radius)),
                               "c\(conditions.count)", nil))
        }
        for k in 0..<100 {
            let (e, n, size) = (uniform(-6000, 6000), uniform(-6000, 6000), uniform(100, 1500))
            let ring = [at(e, n), at(e + size, n), at(e + size, n + size * 0.7), at(e, n + size), at(e, n)]
            conditions.append((.polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)])), "p\(k)", nil))
        }

        var engine = MonitoringEngine()
        try engine.add(contentsOf: conditions)
        var alone = engine, expected: [MonitorEvent] = []
        for (k, record) in records.enumerated() { try alone.process(record.observation, device: record.device, cause: k + 1, into: &expected) }
        alone.finish(into: &expected)
        // Events while devices are paused (the last two minutes of each still turn): what a
        // pausing that skipped the monitoring of paused fixes would lose.
        let whilePaused = expected.filter { ($0.date.nanosecondsSinceEpoch - start.nanosecondsSinceEpoch) / 1_000_000_000 % 600 > 480 }
        #expect(expected.count > 1000 && whilePaused.count > 100, "\(expected.count) events, \(whilePaused.count) while paused")

        for configuration in [LiveConfiguration.default, .airborne] {
            var policy = LiveUpdatePolicy()
            policy.initialConfiguration = configuration
            var live = LiveUpdates(monitoring: engine, policy: policy)
            var events: [MonitorEvent] = [], updates: [LiveUpdate] = []
            for (k, record) in records.enumerated() {
                try live.process(record.observation, device: record.device, cause: k + 1, events: &events, updates: &updates)
            }
            live.finish(events: &events, updates: &updates)
            #expect(events == expected, "\(configuration): the events differ")
            if configuration == .default {
                // Still for 300 s in each half: paused after 180 s of it, for the last 120.
                #expect(live.stationaryCount >= 300 && updates.count < records.count * 9 / 10,
                        "pausing took effect: \(live.stationaryCount) stationary, \(updates.count) updates of \(records.count) fixes")
            } else {
                #expect(live.stationaryCount == 0 && updates.count == records.count)
            }
        }
    }
}
