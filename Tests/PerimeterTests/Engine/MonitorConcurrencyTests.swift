import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The `Monitor` actor fed by many tasks at once, one device each, while another task reads its event
/// stream: whatever the interleaving, each device's events must be those a plain engine gives for that
/// device's records alone (devices are independent), the stream must carry exactly the events the
/// calls returned, in the actor's order (causes rising), and `record(for:device:)` must end at each
/// pair's true state and latest event.
@Suite struct MonitorConcurrencyTests {
    static let centre = Coordinate(latitude: 45.76, longitude: 4.835)
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    static func conditions() throws -> [(Condition, String, ConditionState?)] {
        var rng = SplitMix64(seed: 4242)
        var list: [(Condition, String, ConditionState?)] = (0..<30).map { k in
            let c = Coordinate(latitude: centre.latitude + .random(in: -0.004...0.004, using: &rng),
                               longitude: centre.longitude + .random(in: -0.006...0.006, using: &rng))
            return (.circle(try! CircularGeographicCondition(center: c, radius: .random(in: 40...300, using: &rng))), "c\(k)",
                    [nil, .satisfied, .unsatisfied].randomElement(using: &rng)!)
        }
        list.append((.beacon(BeaconIdentityCondition(uuid: uuid)), "any", nil))
        list.append((.beacon(BeaconIdentityCondition(uuid: uuid, major: 1)), "major1", .unsatisfied))
        return list
    }

    /// Device `d`'s records: a walk round the centre with sightings now and then, 1–40 s apart.
    static func records(device d: Int, count: Int) -> [Observation] {
        var rng = SplitMix64(seed: 900 + UInt64(d))
        var t = 1_772_352_000.0 + Double(d)
        var p = (centre.latitude + .random(in: -0.003...0.003, using: &rng), centre.longitude + .random(in: -0.004...0.004, using: &rng))
        return (0..<count).map { _ in
            t += [1, 2, 5, 12, 40].randomElement(using: &rng)!
            let time = Timestamp(nanosecondsSinceEpoch: Int64(t * 1e9))
            if Int.random(in: 0..<5, using: &rng) == 0 {
                let identity = BeaconIdentity(uuid: uuid, major: .random(in: 0...2, using: &rng), minor: .random(in: 0...3, using: &rng))
                return .sighting(BeaconSighting(time: time, identity: identity, rssi: -60))
            }
            p.0 += .random(in: -0.0004...0.0004, using: &rng)
            p.1 += .random(in: -0.0006...0.0006, using: &rng)
            return .fix(Fix(time: time, coordinate: Coordinate(latitude: p.0, longitude: p.1),
                            horizontalAccuracy: [0, 5, 20, 60].randomElement(using: &rng)!))
        }
    }

    /// An event without its cause (the monitor numbers records across devices as they arrive).
    struct Seen: Hashable {
        var device: String, identifier: String, state: ConditionState, date: Timestamp, refinement: BeaconIdentity?
        var delivery: Delivery

        init(_ e: MonitorEvent) {
            (device, identifier, state, date, refinement, delivery) = (e.device, e.identifier, e.state, e.date, e.refinement, e.delivery)
        }
    }

    @Test(arguments: [true, false])
    func devicesOnTasksOfTheirOwn(batches: Bool) async throws {
        let devices = 16, count = 300
        let monitor = Monitor(name: "concurrent")
        for (condition, id, assuming) in try Self.conditions() { try await monitor.add(condition, identifier: id, assuming: assuming) }
        let reader = Task {
            var all: [MonitorEvent] = []
            for await event in monitor.events { all.append(event) }
            return all
        }
        // Each task returns its device's events as the calls returned them.
        let returned = try await withThrowingTaskGroup(of: (Int, [MonitorEvent]).self) { group in
            for d in 0..<devices {
                group.addTask {
                    var events: [MonitorEvent] = []
                    let records = Self.records(device: d, count: count)
                    if batches {
                        for chunk in stride(from: 0, to: records.count, by: 7) {
                            events += try await monitor.process(Array(records[chunk..<min(chunk + 7, records.count)]), device: "d\(d)")
                        }
                    } else {
                        for r in records { events += try await monitor.process(r, device: "d\(d)") }
                    }
                    return (d, events)
                }
            }
            var byDevice = [[MonitorEvent]](repeating: [], count: devices)
            for try await (d, events) in group { byDevice[d] = events }
            return byDevice
        }
        let tail = await monitor.finish()
        let streamed = await reader.value

        // The plain engine, device after device (devices are independent).
        var engine = MonitoringEngine()
        for (condition, id, assuming) in try Self.conditions() { try engine.add(condition, identifier: id, assuming: assuming) }
        var plain = [[MonitorEvent]](repeating: [], count: devices)
        for d in 0..<devices {
            for (k, r) in Self.records(device: d, count: count).enumerated() {
                try engine.process(r, device: "d\(d)", cause: k, into: &plain[d])
            }
        }
        var plainTail: [MonitorEvent] = []
        engine.finish(into: &plainTail)

        var total = 0
        for d in 0..<devices {
            total += returned[d].count
            #expect(firstDifference(returned[d].map(Seen.init), plain[d].map(Seen.init)) == nil, "device d\(d)")
        }
        #expect(total > 1_000, "the walks must cross many boundaries: \(total) events")
        // The end of input: the same events (devices in the order their first records reached the actor).
        #expect(Set(tail.map(Seen.init)) == Set(plainTail.map(Seen.init)) && tail.count == plainTail.count)
        // The stream: everything returned, in the actor's order.
        #expect(streamed.count == total + tail.count)
        #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $0.cause <= $1.cause }, "causes rise along the stream")
        for d in 0..<devices {
            let mine = streamed.filter { $0.device == "d\(d)" }.prefix(returned[d].count)
            #expect(Array(mine) == returned[d], "device d\(d)'s streamed events are those its calls returned")
        }
        // Each pair's record: the engine's state, and the latest event streamed for it.
        for d in 0..<devices {
            for (_, id, _) in try Self.conditions() {
                let record = await monitor.record(for: id, device: "d\(d)")
                #expect(record?.state == engine.state(of: id, device: "d\(d)"), "d\(d) \(id)")
                let last = streamed.last { $0.device == "d\(d)" && $0.identifier == id }
                #expect(record?.lastEvent == last, "d\(d) \(id)")
            }
        }
    }
}
