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

        // Build time, reported apart: adding the conditions, then their indexes.
        let clock = ContinuousClock()
        let buildStart = clock.now
        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = options.threads  // (the stateless queries are timed on one thread; this builds the grid)
        do { try engine.add(contentsOf: conditions.enumerated().map { ($1, "k\($0)", nil) }) } catch { die("\(error)") }
        let addSeconds = (clock.now - buildStart).seconds
        var query = engine.makeContainmentQuery()
        let buildSeconds = (clock.now - buildStart).seconds
        FileHandle.standardError.write(Data("perimeter-bench: adding \(addSeconds) s, indexes \(buildSeconds - addSeconds) s\n".utf8))
        let storage = engine.conditionStorage
        let conditionBytes = storage.reduce(0) { $0 + $1.bytes }
        FileHandle.standardError.write(Data(("perimeter-bench: conditions take \(conditionBytes) bytes: "
            + storage.filter { $0.bytes > 0 }.map { "\($0.part) \($0.bytes)" }.joined(separator: ", ") + "\n").utf8))

        var line = ResultLine(mode: options.mode, name: options.baseMode == "single" ? options.name : nil,
                              conditions: conditions.count, buildSeconds: buildSeconds, conditionBytes: conditionBytes)
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
