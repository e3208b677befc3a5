// perimeter-bench: Perimeter on the peer-comparison workloads of Benchmarks/workloads/generate.py,
// printing the same JSON line as the peers (Benchmarks/peers/compare.py runs it as
// `perimeter-bench MODE WORKDIR [NAME] [--repeat R]`).
//
// Modes: circles | polygons | mixed | single NAME | beacons — stateless containment through the
// engine's index and exact predicates (the batch query, or one call per point with --per-point),
// hash-checked against the peers; and circles-state |
// polygons-state | mixed-state | beacons-state — the same records through the stateful engine
// (accuracy margins, per-device state machines, events), whose JSON line carries the stateless
// containment hash (computed in a separate pass) so that the comparison still checks agreement;
// in batches by default, one record at a time with --per-point. The line also gives the fixes
// their device's anchor answered without geometry (`anchored`), and those that measured only the
// conditions whose anchor terms they broke (`near`).
import Foundation
import Perimeter
import PerimeterIO

struct Failure: Error, CustomStringConvertible { var description: String }

func die(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("perimeter-bench: \(message)\n".utf8))
    exit(code)
}

/// A little-endian workload file: 8-byte magic, u64 count, then whole arrays.
struct BinaryFile {
    let data: Data
    let count: Int
    var offset = 16

    init(_ path: String, magic: String) {
        guard let data = FileManager.default.contents(atPath: path) else { die("cannot read \(path)") }
        guard String(decoding: data.prefix(8), as: UTF8.self) == magic else { die("\(path): not a \(magic) file") }
        self.data = data
        count = Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
    }

    mutating func array<T>(_: T.Type) -> [T] {
        let size = MemoryLayout<T>.stride * count
        let values = data.withUnsafeBytes { raw in
            (0..<count).map { raw.loadUnaligned(fromByteOffset: offset + $0 * MemoryLayout<T>.stride, as: T.self) }
        }
        offset += size
        return values
    }
}

struct Fixes {
    var lat: [Double], lon: [Double], accuracy: [Double], t: [Int64], device: [UInt32]
    init(_ path: String) {
        var f = BinaryFile(path, magic: "PFIXES01")
        lat = f.array(Double.self); lon = f.array(Double.self); accuracy = f.array(Double.self)
        t = f.array(Int64.self); device = f.array(UInt32.self)
    }

    /// The same fixes device by device (each device's in stream order), as one device's monitor
    /// would see its own walk.
    func byDevice() -> Fixes {
        var copy = self
        let order = device.indices.sorted { (device[$0], $0) < (device[$1], $1) }
        copy.lat = order.map { lat[$0] }; copy.lon = order.map { lon[$0] }; copy.accuracy = order.map { accuracy[$0] }
        copy.t = order.map { t[$0] }; copy.device = order.map { device[$0] }
        return copy
    }
    var count: Int { lat.count }

    /// Fix `i` as the engine takes it.
    func fix(_ i: Int) -> Fix {
        Fix(time: Timestamp(nanosecondsSinceEpoch: t[i]), coordinate: Coordinate(latitude: lat[i], longitude: lon[i]),
            horizontalAccuracy: accuracy[i])
    }
}

func circles(_ work: String) -> [Condition] {
    var f = BinaryFile("\(work)/circles.bin", magic: "PCIRCLE1")
    let lat = f.array(Double.self), lon = f.array(Double.self), radius = f.array(Double.self)
    return (0..<lat.count).map { i in
        do {
            return .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat[i], longitude: lon[i]), radius: radius[i]))
        } catch {
            die("circle \(i): \(error)")
        }
    }
}

func geojson(_ path: String) -> [Condition] {
    do {
        return try ConditionsReader.read(contentsOf: path).map(\.condition)
    } catch {
        die("\(error)")
    }
}

func uuids(_ work: String) -> [UUID] {
    guard let text = try? String(contentsOfFile: "\(work)/uuids.txt", encoding: .utf8) else { die("cannot read uuids.txt") }
    return text.split(separator: "\n").map { UUID(uuidString: String($0))! }
}

func beacons(_ work: String) -> [Condition] {
    let uuids = uuids(work)
    var f = BinaryFile("\(work)/beacons.bin", magic: "PBEACON1")
    let u = f.array(UInt32.self), major = f.array(Int32.self), minor = f.array(Int32.self)
    return (0..<u.count).map { i in
        let uuid = uuids[Int(u[i])]
        if major[i] < 0 { return .beacon(BeaconIdentityCondition(uuid: uuid)) }
        if minor[i] < 0 { return .beacon(BeaconIdentityCondition(uuid: uuid, major: UInt16(major[i]))) }
        return .beacon(BeaconIdentityCondition(uuid: uuid, major: UInt16(major[i]), minor: UInt16(minor[i])))
    }
}

// The timed loops are functions, so that the query is a local value rather than a global that
// top-level code would copy on every call.

/// Containment count and hash of every sighting's matching beacon conditions.
func matchAll(_ query: ContainmentQuery, _ identities: [BeaconIdentity]) -> (Int, UInt64) {
    var containments = 0, hash: UInt64 = 0
    var matched: [Int32] = []
    matched.reserveCapacity(64)
    for i in identities.indices {
        matched.removeAll(keepingCapacity: true)
        query.conditions(matching: identities[i], into: &matched)
        containments += matched.count
        for j in matched { hash &+= UInt64(i) &* 1_000_003 &+ UInt64(j) }
    }
    return (containments, hash)
}

/// The same through the batch query.
func matchBatch(_ query: ContainmentQuery, _ identities: [BeaconIdentity], _ buffers: inout LocateBuffers) -> (Int, UInt64) {
    query.conditions(matching: identities, conditions: &buffers.conditions, offsets: &buffers.offsets)
    return hashAnswers(buffers, count: identities.count)
}

/// Containment count and hash of every point's containing geographic conditions.
func locateAll(_ query: inout ContainmentQuery, _ lat: [Double], _ lon: [Double]) -> (Int, UInt64) {
    var containments = 0, hash: UInt64 = 0
    var found: [Int32] = []
    found.reserveCapacity(64)
    for i in lat.indices {
        found.removeAll(keepingCapacity: true)
        query.conditions(containing: Coordinate(latitude: lat[i], longitude: lon[i]), into: &found)
        containments += found.count
        for j in found { hash &+= UInt64(i) &* 1_000_003 &+ UInt64(j) }
    }
    return (containments, hash)
}

/// The batch query's buffers, kept across repeats as a caller streaming batches would keep them: the
/// points in the engine's form and the answer lists.
struct LocateBuffers {
    var points: [Coordinate] = []
    var conditions: [Int32] = []
    var offsets: [Int] = []
}

/// The same through the batch query: all points in one call, in cell order inside it.
func locateBatch(_ query: inout ContainmentQuery, _ buffers: inout LocateBuffers) -> (Int, UInt64) {
    query.conditions(containing: buffers.points, conditions: &buffers.conditions, offsets: &buffers.offsets)
    return hashAnswers(buffers, count: buffers.points.count)
}

/// Containment count and hash of a batch query's answers for `count` records.
func hashAnswers(_ buffers: LocateBuffers, count: Int) -> (Int, UInt64) {
    // The peers' Σ over answers (i, j) of i·1,000,003 + j, summed as 1,000,003·Σ i·(answers of i)
    // + Σ j (the same value in wrapping arithmetic): two flat loops, without a branch on how many
    // answers each point has, which as a nested loop cost a mispredicted branch per point.
    var weighted: UInt64 = 0, sum: UInt64 = 0
    buffers.offsets.withUnsafeBufferPointer { offsets in
        for i in 0..<count { weighted &+= UInt64(i) &* UInt64(offsets[i + 1] &- offsets[i]) }
    }
    buffers.conditions.withUnsafeBufferPointer { conditions in
        for j in conditions { sum &+= UInt64(j) }
    }
    return (buffers.conditions.count, weighted &* 1_000_003 &+ sum)
}

let clock = ContinuousClock()
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// Latency percentiles (µs) of one fix at a time: through `MonitoringEngine.process` directly and
/// through the `Monitor` actor, on the mixed workload (the fixes in stream order, after a warm-up).
func monitorLatency(_ conditions: [Condition], _ fixes: Fixes, policy: MonitoringPolicy, count: Int) async {
    func percentiles(_ samples: [Double]) -> String {
        let s = samples.sorted()
        func p(_ q: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * q))] * 1e6 }
        return String(format: "p50 %.2f µs, p90 %.2f µs, p99 %.2f µs, p99.9 %.2f µs", p(0.5), p(0.9), p(0.99), p(0.999))
    }
    let warm = min(fixes.count / 2, 100_000), n = min(count, fixes.count - warm)
    var engine = MonitoringEngine(policy: policy)
    for (i, c) in conditions.enumerated() { try! engine.add(c, identifier: "k\(i)") }
    engine.prepare()
    let ids = (0..<(Int(fixes.device.max() ?? 0) + 1)).map { engine.deviceID("d\($0)") }
    var events: [MonitorEvent] = []
    for i in 0..<warm { try! engine.process(.fix(fixes.fix(i)), device: ids[Int(fixes.device[i])], cause: i, into: &events); events.removeAll() }
    var samples: [Double] = [], anchored: [Double] = [], nearAnchor: [Double] = [], full: [Double] = []
    samples.reserveCapacity(n)
    for i in warm..<(warm + n) {
        let f = fixes.fix(i), d = ids[Int(fixes.device[i])]
        let anchoredBefore = engine.fixesAnsweredByAnchor, nearBefore = engine.fixesMeasuredNearAnchor
        let start = clock.now
        try! engine.process(.fix(f), device: d, cause: i, into: &events)
        let elapsed = seconds(clock.now - start)
        samples.append(elapsed)
        // Where the tail comes from: fixes their anchor answered, those measured near it (only the
        // conditions whose terms they break), and full evaluations.
        if engine.fixesAnsweredByAnchor > anchoredBefore {
            anchored.append(elapsed)
        } else if engine.fixesMeasuredNearAnchor > nearBefore {
            nearAnchor.append(elapsed)
        } else {
            full.append(elapsed)
        }
        events.removeAll(keepingCapacity: true)
    }
    print("engine.process one fix: \(percentiles(samples))")
    print("  answered by the anchor (\(anchored.count)): \(percentiles(anchored))")
    print("  measured near the anchor (\(nearAnchor.count)): \(percentiles(nearAnchor))")
    print("  evaluated in full (\(full.count)): \(percentiles(full))")

    // Through the actor twice: its events streamed and read as the README's example reads them, by
    // a task of their own (a stream nobody reads keeps every event, and its growth would be timed
    // here), and not streamed, the caller taking what `process` returns.
    for streams in [true, false] {
        let monitor = Monitor(name: "bench", policy: policy, streamsEvents: streams)
        for (i, c) in conditions.enumerated() { try! await monitor.add(c, identifier: "k\(i)") }
        let reader = Task {
            var count = 0
            for await _ in monitor.events { count += 1 }
            return count
        }
        var returned = 0
        let names = (0..<ids.count).map { "d\($0)" }
        for i in 0..<warm { returned += try! await monitor.process(.fix(fixes.fix(i)), device: names[Int(fixes.device[i])]).count }
        samples.removeAll(keepingCapacity: true)
        for i in warm..<(warm + n) {
            let f = fixes.fix(i), name = names[Int(fixes.device[i])]
            let start = clock.now
            returned += try! await monitor.process(.fix(f), device: name).count
            samples.append(seconds(clock.now - start))
        }
        await monitor.finish()
        let read = await reader.value
        print("Monitor.process one fix (await from outside the actor), events \(streams ? "streamed" : "returned only"): "
              + "\(percentiles(samples)); \(returned) events returned, \(read) read from the stream")
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
var repeatCount = 1
var threads = 1
if let r = arguments.firstIndex(of: "--threads"), r + 1 < arguments.count {
    threads = Int(arguments[r + 1]) ?? 1
    arguments.removeSubrange(r...(r + 1))
}
// One query call per point instead of the batch query (P1's way; the default is P2's, all at once).
let perPoint = arguments.contains("--per-point")
arguments.removeAll { $0 == "--per-point" }
if let r = arguments.firstIndex(of: "--repeat"), r + 1 < arguments.count {
    repeatCount = Int(arguments[r + 1]) ?? 1
    arguments.removeSubrange(r...(r + 1))
}
guard arguments.count >= 2 else {
    die("usage: perimeter-bench MODE WORKDIR [NAME] [--repeat R] [--threads T] [--per-point]")
}
let mode = arguments[0], work = arguments[1]
if mode == "monitor" {
    var policy = MonitoringPolicy()
    policy.defaultAssumption = .unsatisfied
    let fixes = Fixes("\(work)/fixes.bin")
    // The mixed conditions by default; `circles` or `polygons` as NAME for one kind alone.
    let kind = arguments.count > 2 ? arguments[2] : "mixed"
    let conditions = (kind == "polygons" ? [] : circles(work)) + (kind == "circles" ? [] : geojson("\(work)/polygons.geojson"))
    print("10k devices' fixes interleaved, in stream order (\(kind), \(conditions.count) conditions):")
    await monitorLatency(conditions, fixes, policy: policy, count: 200_000)
    print("The same fixes device by device:")
    await monitorLatency(conditions, fixes.byDevice(), policy: policy, count: 200_000)
    exit(0)
}
let stateful = mode.hasSuffix("-state")
let baseMode = stateful ? String(mode.dropLast(6)) : mode

// Conditions, in the peers' order (circles, then polygons).
var conditions: [Condition] = []
var name: String?
switch baseMode {
case "circles": conditions = circles(work)
case "polygons": conditions = geojson("\(work)/polygons.geojson")
case "mixed": conditions = circles(work) + geojson("\(work)/polygons.geojson")
case "single":
    guard arguments.count >= 3 else { die("single needs a NAME") }
    name = arguments[2]
    conditions = geojson("\(work)/single/\(arguments[2]).geojson")
case "beacons": conditions = beacons(work)
default: die("unknown mode \(mode)", code: 3)
}

var policy = MonitoringPolicy()
policy.defaultAssumption = .unsatisfied  // a geofencing service: devices start outside everything
let buildStart = clock.now
var engine = MonitoringEngine(policy: policy)
engine.batchThreads = threads  // (the stateless queries are timed on one thread; this builds the grid)
do { try engine.add(contentsOf: conditions.enumerated().map { ($1, "k\($0)", nil) }) } catch { die("\(error)") }
let addSeconds = seconds(clock.now - buildStart)
var query = engine.makeContainmentQuery()
let buildSeconds = seconds(clock.now - buildStart)
FileHandle.standardError.write(Data("perimeter-bench: adding \(addSeconds) s, indexes \(buildSeconds - addSeconds) s\n".utf8))
let storage = engine.conditionStorage
let conditionBytes = storage.reduce(0) { $0 + $1.bytes }
FileHandle.standardError.write(Data(("perimeter-bench: conditions take \(conditionBytes) bytes: "
    + storage.filter { $0.bytes > 0 }.map { "\($0.part) \($0.bytes)" }.joined(separator: ", ") + "\n").utf8))

var containments = 0
var hash: UInt64 = 0
var best = Double.infinity
var records = 0
var events = 0
var anchored = 0, near = 0

if baseMode == "beacons" {
    let uuids = uuids(work)
    var f = BinaryFile("\(work)/sightings.bin", magic: "PSIGHT01")
    let u = f.array(UInt32.self), major = f.array(UInt16.self), minor = f.array(UInt16.self)
    let t = f.array(Int64.self), device = f.array(UInt32.self)
    records = u.count
    let identities = u.indices.map { BeaconIdentity(uuid: uuids[Int(u[$0])], major: major[$0], minor: minor[$0]) }
    var buffers = LocateBuffers()
    for _ in 0..<repeatCount {
        let start = clock.now
        (containments, hash) = perPoint ? matchAll(query, identities) : matchBatch(query, identities, &buffers)
        if !stateful { best = min(best, seconds(clock.now - start)) }
    }
    if stateful {
        for _ in 0..<repeatCount {
            var e = MonitoringEngine(policy: policy)
            for (i, condition) in conditions.enumerated() { try! e.add(condition, identifier: "k\(i)") }
            e.prepare()  // index building is build time, as for the peers
            let ids = (0..<(Int(device.max() ?? 0) + 1)).map { e.deviceID("d\($0)") }
            var out: [MonitorEvent] = []
            out.reserveCapacity(1 << 16)
            events = 0
            e.batchThreads = threads
            let sightings = (0..<records).map { i in
                SightingRecord(device: ids[Int(device[i])], sighting: BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: t[i]),
                                                                                     identity: identities[i], rssi: -60), cause: i)
            }
            let start = clock.now
            if perPoint {
                for record in sightings {
                    try! e.process(.sighting(record.sighting), device: record.device, cause: record.cause, into: &out)
                    if out.count > 60_000 { events += out.count; out.removeAll(keepingCapacity: true) }
                }
            } else {
                var from = 0
                while from < records {
                    let to = min(records, from + 65536)
                    try! e.process(Array(sightings[from..<to]), into: &out)
                    events += out.count
                    out.removeAll(keepingCapacity: true)
                    from = to
                }
            }
            e.finish(into: &out)
            events += out.count
            best = min(best, seconds(clock.now - start))
            anchored = e.fixesAnsweredByAnchor
            near = e.fixesMeasuredNearAnchor
        }
    }
} else {
    var lat: [Double], lon: [Double]
    var fixes: Fixes?
    if baseMode == "single" {
        var f = BinaryFile("\(work)/single/\(name!).points.bin", magic: "PPOINTS1")
        lat = f.array(Double.self); lon = f.array(Double.self)
    } else {
        fixes = Fixes("\(work)/fixes.bin")
        lat = fixes!.lat; lon = fixes!.lon
    }
    records = lat.count
    var buffers = LocateBuffers()
    buffers.points = lat.indices.map { Coordinate(latitude: lat[$0], longitude: lon[$0]) }
    for _ in 0..<repeatCount {
        let start = clock.now
        (containments, hash) = perPoint ? locateAll(&query, lat, lon) : locateBatch(&query, &buffers)
        if !stateful { best = min(best, seconds(clock.now - start)) }
    }
    if stateful {
        guard let fixes else { die("state modes need fixes", code: 3) }
        for _ in 0..<repeatCount {
            var e = MonitoringEngine(policy: policy)
            e.batchThreads = threads
            for (i, condition) in conditions.enumerated() { try! e.add(condition, identifier: "k\(i)") }
            e.prepare()  // index building is build time, as for the peers
            let ids = (0..<(Int(fixes.device.max() ?? 0) + 1)).map { e.deviceID("d\($0)") }
            var out: [MonitorEvent] = []
            out.reserveCapacity(1 << 16)
            events = 0
            // Records as a reader hands them over, in batches.
            let batchSize = 1 << 17
            var batch: [FixRecord] = []
            batch.reserveCapacity(batchSize)
            let start = clock.now
            for i in 0..<records where perPoint {
                // One record at a time, as an embedding app or the `Monitor` actor drives the engine.
                try! e.process(.fix(fixes.fix(i)), device: ids[Int(fixes.device[i])], cause: i, into: &out)
                events += out.count
                out.removeAll(keepingCapacity: true)
            }
            for i in 0..<records where !perPoint {
                batch.append(FixRecord(device: ids[Int(fixes.device[i])], fix: fixes.fix(i), cause: i))
                if batch.count == batchSize || i == records - 1 {
                    try! e.process(batch, into: &out)
                    batch.removeAll(keepingCapacity: true)
                    events += out.count
                    out.removeAll(keepingCapacity: true)
                }
            }
            e.finish(into: &out)
            events += out.count
            best = min(best, seconds(clock.now - start))
            anchored = e.fixesAnsweredByAnchor
            near = e.fixesMeasuredNearAnchor
        }
    }
}

var line = "{\"peer\":\"Perimeter\",\"mode\":\"\(mode)\""
if let name { line += ",\"name\":\"\(name)\"" }
line += ",\"fixes\":\(records),\"conditions\":\(conditions.count),\"seconds\":\(best),\"build_seconds\":\(buildSeconds)"
line += ",\"containments\":\(containments),\"hash\":\(hash),\"condition_bytes\":\(conditionBytes)"
if stateful { line += ",\"events\":\(events),\"anchored\":\(anchored),\"near\":\(near)" }
print(line + "}")
