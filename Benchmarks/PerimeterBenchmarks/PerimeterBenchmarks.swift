import Benchmark
import Foundation
import Perimeter
import PerimeterIO

/// Each benchmark's iteration processes a whole batch; throughput is per record (scaled iterations).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3), maxIterations: 20)

    // W1 + W2: 10k circles + 10k polygons, fixes with state (accuracy margins, per-device machines).
    // The setup gives every device its first fix, so that iterations measure the steady state; each
    // iteration takes the next fixes on the same engine (a copy of the engine per iteration would
    // measure copy-on-write of every device's buffers instead).
    let fixes = Workload.fixes(count: 200_000, devices: 10_000)
    let steady = Array(fixes.dropFirst(10_000))
    Benchmark("W1+W2 stateful, 10k circles + 10k polygons, per fix",
              configuration: .init(scalingFactor: .kilo)) { (benchmark: Benchmark, prepared: SteadyEngine) in
        var events: [MonitorEvent] = []
        events.reserveCapacity(1 << 16)
        let start = prepared.next, end = min(steady.count, start + benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        for i in start..<end {
            let record = steady[i]
            try prepared.engine.process(.fix(record.fix), device: prepared.ids[record.device], cause: i, into: &events)
            if events.count > 60_000 { events.removeAll(keepingCapacity: true) }
        }
        benchmark.stopMeasurement()
        prepared.next = end
        blackHole(events.count)
    } setup: { () -> SteadyEngine in
        var engine = Workload.engine(circles: 10_000, polygons: 10_000)
        let ids = (0..<10_000).map { engine.deviceID("d\($0)") }
        var events: [MonitorEvent] = []
        for (i, record) in fixes.prefix(10_000).enumerated() {
            try! engine.process(.fix(record.fix), device: ids[record.device], cause: i, into: &events)
        }
        return SteadyEngine(engine: engine, ids: ids)
    }

    // Stateless containment through the index (the peers' question).
    Benchmark("W1+W2 containment, 10k circles + 10k polygons, per fix",
              configuration: .init(scalingFactor: .kilo)) { benchmark, prepared in
        var engine = prepared
        var query = engine.makeContainmentQuery()
        var found: [Int32] = []
        found.reserveCapacity(64)
        var total = 0
        benchmark.startMeasurement()
        for record in fixes.prefix(benchmark.scaledIterations.count) {
            found.removeAll(keepingCapacity: true)
            query.conditions(containing: record.fix.coordinate, into: &found)
            total += found.count
        }
        benchmark.stopMeasurement()
        blackHole(total)
    } setup: {
        Workload.engine(circles: 10_000, polygons: 10_000)
    }

    // Single large polygons: point tests per second.
    for (name, polygons) in singlePolygons() {
        Benchmark("single polygon \(name), per point test", configuration: .init(scalingFactor: .mega)) { (benchmark: Benchmark, pair: (ContainmentQuery, [Coordinate])) in
            var (query, points) = pair
            var found: [Int32] = []
            var inside = 0
            benchmark.startMeasurement()
            for p in points.prefix(benchmark.scaledIterations.count) {
                found.removeAll(keepingCapacity: true)
                query.conditions(containing: p, into: &found)
                inside += found.count
            }
            benchmark.stopMeasurement()
            blackHole(inside)
        } setup: { () -> (ContainmentQuery, [Coordinate]) in
            var engine = MonitoringEngine()
            try! engine.add(.polygon(PolygonalGeographicCondition(polygons: polygons)), identifier: name)
            let box = BoundingBox(minLatitude: polygons.flatMap(\.exterior).map(\.latitude).min()!,
                                  maxLatitude: polygons.flatMap(\.exterior).map(\.latitude).max()!,
                                  minLongitude: polygons.flatMap(\.exterior).map(\.longitude).min()!,
                                  maxLongitude: polygons.flatMap(\.exterior).map(\.longitude).max()!)
            var rng = Workload.Generator(seed: 9)
            let points = (0..<1_000_000).map { _ in
                Coordinate(latitude: .random(in: box.minLatitude...box.maxLatitude, using: &rng),
                           longitude: .random(in: box.minLongitude...box.maxLongitude, using: &rng))
            }
            return (engine.makeContainmentQuery(), points)
        }
    }

    // W3: 100k beacon conditions mixing the three wildcard forms, sightings with state.
    Benchmark("W3 beacons stateful, 100k conditions, per sighting", configuration: .init(scalingFactor: .kilo)) { (benchmark: Benchmark, setup: (MonitoringEngine, [(Int, BeaconSighting)])) in
        var (engine, sightings) = setup
        let ids = (0..<10_000).map { engine.deviceID("d\($0)") }
        var events: [MonitorEvent] = []
        events.reserveCapacity(4 * benchmark.scaledIterations.count)  // (the harness's buffer, not the engine's)
        benchmark.startMeasurement()
        for (i, s) in sightings.dropFirst(10_000).prefix(benchmark.scaledIterations.count).enumerated() {
            try engine.process(.sighting(s.1), device: ids[s.0], cause: i, into: &events)
            if events.count > 60_000 { events.removeAll(keepingCapacity: true) }
        }
        benchmark.stopMeasurement()
        blackHole(events.count)
    } setup: {
        steadyBeaconWorkload()
    }

    // W3 with state through the sighting batch path (batches of 4,096 on one thread), same workload.
    Benchmark("W3 beacons stateful, 100k conditions, batches of 4096", configuration: .init(scalingFactor: .kilo)) { (benchmark: Benchmark, setup: (MonitoringEngine, [(Int, BeaconSighting)])) in
        var (engine, sightings) = setup
        let ids = (0..<10_000).map { engine.deviceID("d\($0)") }
        let records = sightings.dropFirst(10_000).prefix(benchmark.scaledIterations.count).enumerated().map {
            SightingRecord(device: ids[$1.0], sighting: $1.1, cause: $0)
        }
        var events: [MonitorEvent] = []
        events.reserveCapacity(4 * 4096)
        benchmark.startMeasurement()
        var from = 0
        while from < records.count {
            let to = min(records.count, from + 4096)
            try engine.process(Array(records[from..<to]), into: &events)
            events.removeAll(keepingCapacity: true)
            from = to
        }
        benchmark.stopMeasurement()
        blackHole(events.count)
    } setup: {
        steadyBeaconWorkload()
    }

    // Embedded use: one fix at a time through the Monitor actor, 20k conditions (latency percentiles).
    Benchmark("Monitor.process one fix, 10k circles + 10k polygons",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one, maxIterations: 100_000)) { (benchmark: Benchmark, monitor: Monitor) async throws in
        let record = fixes[benchmark.currentIteration % fixes.count]
        let fix = Fix(time: Timestamp(nanosecondsSinceEpoch: 1_900_000_000_000_000_000 + Int64(benchmark.currentIteration) * 1_000_000_000),
                      coordinate: record.fix.coordinate, horizontalAccuracy: record.fix.horizontalAccuracy)
        benchmark.startMeasurement()
        blackHole(try await monitor.process(Observation.fix(fix), device: "d\(record.device % 16)"))
        benchmark.stopMeasurement()
    } setup: { () async throws -> Monitor in
        let monitor = Monitor(name: "bench", policy: {
            var p = MonitoringPolicy()
            p.defaultAssumption = .unsatisfied
            return p
        }(), streamsEvents: false)  // (the events are taken from what `process` returns)
        var rng = Workload.Generator(seed: 1)
        for i in 0..<10_000 {
            try! await monitor.add(.circle(CircularGeographicCondition(center: Workload.randomPoint(&rng), radius: .random(in: 50...500, using: &rng))), identifier: "c\(i)")
        }
        for i in 0..<10_000 {
            let polygon = Workload.star(.random(in: 16...64, using: &rng), around: Workload.randomPoint(&rng), low: 50, high: 500, &rng)
            try! await monitor.add(.polygon(PolygonalGeographicCondition(polygons: [polygon])), identifier: "p\(i)")
        }
        return monitor
    }

    // W4: parsing, per record, one record at a time as a library user reads them (`next()`; the tool
    // reads runs of plain fixes through `readPlainFixes`, in parallel blocks).
    let jsonl = fixes.prefix(100_000).map { r in
        "{\"type\":\"fix\",\"device\":\"d\(r.device)\",\"t\":\(Double(r.fix.time.nanosecondsSinceEpoch) / 1e9),\"lat\":\(r.fix.coordinate.latitude),\"lon\":\(r.fix.coordinate.longitude),\"accuracy\":\(r.fix.horizontalAccuracy)}\n"
    }.joined()
    let csv = "type,device,t,lat,lon,accuracy\n" + fixes.prefix(100_000).map { r in
        "fix,d\(r.device),\(Double(r.fix.time.nanosecondsSinceEpoch) / 1e9),\(r.fix.coordinate.latitude),\(r.fix.coordinate.longitude),\(r.fix.horizontalAccuracy)\n"
    }.joined()
    for (format, text) in [("JSON Lines", jsonl), ("CSV", csv)] {
        Benchmark("W4 read \(format), per record", configuration: .init(scalingFactor: .kilo, maxIterations: 5)) { benchmark, path in
            var reader = try ObservationReader(path: path)
            var n = 0
            benchmark.startMeasurement()
            while let next = reader.next(), n < benchmark.scaledIterations.count {
                if case .success = next { n += 1 }
            }
            benchmark.stopMeasurement()
            blackHole(n)
        } setup: {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("perimeter-bench-\(format == "CSV" ? "fixes.csv" : "fixes.jsonl")").path
            try! text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }
}

/// The Natural Earth fixture's largest countries and a 4,096-vertex spiky polygon.
func singlePolygons() -> [(String, [GeoPolygon])] {
    let definitions = (try? ConditionsReader.read(contentsOf: Workload.fixturesDirectory.appendingPathComponent("natural-earth/countries.geojson").path)) ?? []
    var result: [(String, [GeoPolygon])] = []
    for id in ["CAN", "RUS", "ATA"] {
        if case .polygon(let p)? = definitions.first(where: { $0.identifier == id })?.condition { result.append((id, p.polygons)) }
    }
    var rng = Workload.Generator(seed: 4096)
    result.append(("spiky-4096", [Workload.star(4096, around: Workload.centre, low: 2_500, high: 25_000, &rng)]))
    return result
}

/// `beaconWorkload()` after every device's first sighting, so that iterations measure the steady state.
func steadyBeaconWorkload() -> (MonitoringEngine, [(Int, BeaconSighting)]) {
    var (engine, sightings) = beaconWorkload()
    let ids = (0..<10_000).map { engine.deviceID("d\($0)") }
    var events: [MonitorEvent] = []
    for (i, s) in sightings.prefix(10_000).enumerated() { try! engine.process(.sighting(s.1), device: ids[s.0], cause: i, into: &events) }
    return (engine, sightings)
}

/// 100k beacon conditions over 64 UUIDs (uuid only, uuid+major, uuid+major+minor) and 200k sightings
/// from 10k devices, about a third of them matching.
func beaconWorkload() -> (MonitoringEngine, [(Int, BeaconSighting)]) {
    var rng = Workload.Generator(seed: 3)
    let uuids = (0..<64).map { _ in
        let a = rng.next(), b = rng.next()
        return UUID(uuid: (UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
                           UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
                           UInt8(truncatingIfNeeded: a >> 48), UInt8(truncatingIfNeeded: a >> 56), UInt8(truncatingIfNeeded: b),
                           UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24),
                           UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 48),
                           UInt8(truncatingIfNeeded: b >> 56)))
    }
    var policy = MonitoringPolicy()
    policy.defaultAssumption = .unsatisfied
    var engine = MonitoringEngine(policy: policy)
    for u in 0..<32 { try! engine.add(.beacon(BeaconIdentityCondition(uuid: uuids[u])), identifier: "any\(u)") }
    var k = 0
    while k < 100_000 - 32 {
        let uuid = uuids[Int.random(in: 0..<64, using: &rng)]
        let major = UInt16.random(in: 0..<2000, using: &rng)
        if k % 2 == 0 {
            try? engine.add(.beacon(BeaconIdentityCondition(uuid: uuid, major: major)), identifier: "m\(k)")
        } else {
            try? engine.add(.beacon(BeaconIdentityCondition(uuid: uuid, major: major, minor: .random(in: 0..<50, using: &rng))), identifier: "x\(k)")
        }
        k += 1
    }
    let start = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
    let sightings = (0..<200_000).map { i in
        (i % 10_000, BeaconSighting(time: start.adding(TimeSpan(nanoseconds: Int64(i / 10_000) * 1_000_000_000)),
                                    identity: BeaconIdentity(uuid: uuids[Int.random(in: 32..<64, using: &rng)],
                                                             major: .random(in: 0..<2000, using: &rng), minor: .random(in: 0..<50, using: &rng)),
                                    rssi: -70))
    }
    return (engine, sightings)
}

/// An engine that benchmark iterations carry on with, and the position of the next record to give it.
///
/// `@unchecked Sendable`: one benchmark's iterations use it, one after another.
final class SteadyEngine: @unchecked Sendable {
    var engine: MonitoringEngine
    let ids: [DeviceID]
    var next = 0

    init(engine: MonitoringEngine, ids: [DeviceID]) {
        self.engine = engine
        self.ids = ids
    }
}
