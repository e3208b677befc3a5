import Foundation
import Perimeter

/// One of the peers' modes (or its `-state` form): the conditions indexed, the stateless
/// containment timed over every record, and in state modes the stateful engine timed over the same
/// records; the result as the peers' JSON line.
enum PeerRun {
    static func run(_ options: BenchOptions) -> ResultLine {
        let uuids = options.baseMode == "beacons" ? readUUIDs(options.work) : []
        let conditions = conditions(for: options, uuids: uuids)
        var policy = MonitoringPolicy()
        policy.defaultAssumption = .unsatisfied  // a geofencing service: devices start outside everything

        // Build time, reported apart: adding the conditions, then their indexes. In `single` the
        // best of R builds, as P3 (tg) reports it: one polygon builds in microseconds to seconds,
        // and a first build alone also measures the allocator's first touch of its pages.
        let clock = ContinuousClock()
        var built: Built?
        var addSeconds = Double.infinity, buildSeconds = Double.infinity
        for _ in 0..<(options.baseMode == "single" ? options.repeatCount : 1) {
            built = nil  // the previous engine goes before the clock starts
            built = Built(conditions, policy: policy, threads: options.threads)
            addSeconds = min(addSeconds, built!.addSeconds)
            buildSeconds = min(buildSeconds, built!.buildSeconds)
        }
        let engine = built!.engine
        var query = built!.query
        built = nil
        FileHandle.standardError.write(Data("perimeter-bench: adding \(addSeconds) s, indexes \(buildSeconds - addSeconds) s\n".utf8))
        let storage = engine.conditionStorage
        let conditionBytes = storage.reduce(0) { $0 + $1.bytes }
        FileHandle.standardError.write(Data(("perimeter-bench: conditions take \(conditionBytes) bytes: "
            + storage.filter { $0.bytes > 0 }.map { "\($0.part) \($0.bytes)" }.joined(separator: ", ") + "\n").utf8))
        // The shapes and their indexes, without identifiers and beacon tables: what P3's
        // tg_geom_memsize counts for its polygon (coordinates and index).
        let geometryParts: Set = ["circle shapes", "polygon shapes", "condition index", "cover grid"]
        guard storage.contains(where: { geometryParts.contains($0.part) }) else {
            die("conditionStorage has none of the parts \(geometryParts.sorted()): renamed?")
        }
        let indexBytes = storage.filter { geometryParts.contains($0.part) }.reduce(0) { $0 + $1.bytes }

        var line = ResultLine(mode: options.mode, name: options.baseMode == "single" ? options.name : nil,
                              conditions: conditions.count, buildSeconds: buildSeconds, addSeconds: addSeconds,
                              conditionBytes: conditionBytes, indexBytes: indexBytes)
        if options.baseMode == "beacons" {
            let sightings = Sightings(options.work, uuids: uuids)
            line.fixes = sightings.count
            var buffers = LocateBuffers()
            for _ in 0..<options.repeatCount {
                let start = clock.now
                (line.containments, line.hash) = options.perPoint ? matchAll(query, sightings.identities)
                    : matchBatch(query, sightings.identities, &buffers)
                if !options.stateful { line.seconds = min(line.seconds, (clock.now - start).seconds) }
            }
            if options.stateful {
                line.state = StatefulRun.sightings(sightings, conditions: conditions, policy: policy, options: options)
            }
        } else {
            let fixes = options.baseMode == "single" ? nil : Fixes("\(options.work)/fixes.bin")
            let (lat, lon) = fixes.map { ($0.lat, $0.lon) } ?? points(options.work, name: options.name!)
            line.fixes = lat.count
            var buffers = LocateBuffers()
            buffers.points = lat.indices.map { Coordinate(latitude: lat[$0], longitude: lon[$0]) }
            for _ in 0..<options.repeatCount {
                let start = clock.now
                (line.containments, line.hash) = options.perPoint ? locateAll(&query, lat, lon) : locateBatch(&query, &buffers)
                if !options.stateful { line.seconds = min(line.seconds, (clock.now - start).seconds) }
            }
            if options.stateful {
                guard let fixes else { die("state modes need fixes", code: 3) }
                line.state = StatefulRun.fixes(fixes, conditions: conditions, policy: policy, options: options)
            }
        }
        if let state = line.state { line.seconds = state.seconds }
        return line
    }
}

/// One build of the engine on the conditions, timed: adding them, then (in `buildSeconds`, which
/// includes the adding) laying out the indexes the containment query uses.
private struct Built {
    let engine: MonitoringEngine
    let query: ContainmentQuery
    let addSeconds: Double
    let buildSeconds: Double

    init(_ conditions: [Condition], policy: MonitoringPolicy, threads: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = threads  // (the stateless queries are timed on one thread; this builds the grid)
        do { try engine.add(contentsOf: conditions.enumerated().map { ($1, "k\($0)", nil) }) } catch { die("\(error)") }
        addSeconds = (clock.now - start).seconds
        query = engine.makeContainmentQuery()
        buildSeconds = (clock.now - start).seconds
        self.engine = engine
    }
}
