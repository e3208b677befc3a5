import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// `MonitoringEngine.process(_: [SightingRecord], into:)` against one `process` call per sighting:
/// the same events in the same order, the same authorization changes, and a sighting older than its
/// device's previous record stops the batch where one at a time would refuse it.
@Suite struct SightingBatchTests {
    static func engine(threads: Int) throws -> MonitoringEngine {
        var rng = SplitMix64(seed: 31)
        var engine = MonitoringEngine()
        engine.batchThreads = threads
        for i in 0..<90 {
            let uuid = i % 2 == 0 ? T.uuid : T.otherUUID
            let major = UInt16.random(in: 0..<12, using: &rng), minor = UInt16.random(in: 0..<4, using: &rng)
            let c: BeaconIdentityCondition = switch i % 3 {
            case 0: BeaconIdentityCondition(uuid: uuid)
            case 1: BeaconIdentityCondition(uuid: uuid, major: major)
            default: BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
            }
            try engine.add(.beacon(c), identifier: "b\(i)", assuming: [nil, .satisfied, .unsatisfied][i % 3])
        }
        return engine
    }

    /// 13,000 sightings of 60 devices, seconds to minutes apart (so exits fire in between); one
    /// sighting at `outOfOrder` goes back in time.
    static func sightings(_ engine: inout MonitoringEngine, outOfOrder: Int?) -> [SightingRecord] {
        var rng = SplitMix64(seed: 32)
        let devices = (0..<60).map { engine.deviceID("d\($0)") }
        var time = [Double](repeating: 0, count: 60)
        return (0..<13_000).map { k in
            let d = Int.random(in: 0..<60, using: &rng)
            time[d] += Bool.random(using: &rng) ? .random(in: 0...5, using: &rng) : .random(in: 20...90, using: &rng)
            let at = k == outOfOrder ? time[d] - 100 : time[d]
            let identity = BeaconIdentity(uuid: Int.random(in: 0..<5, using: &rng) == 0 ? UUID() : (Bool.random(using: &rng) ? T.uuid : T.otherUUID),
                                          major: .random(in: 0..<14, using: &rng), minor: .random(in: 0..<5, using: &rng))
            return SightingRecord(device: devices[d], sighting: BeaconSighting(time: T.at(at), identity: identity, rssi: -60), cause: k)
        }
    }

    @Test(arguments: [1, 3], [nil, 2_000, 9_001])
    func batchEqualsOneSightingAtATime(threads: Int, outOfOrder: Int?) throws {
        var oracle = try Self.engine(threads: 1)
        let records = Self.sightings(&oracle, outOfOrder: outOfOrder)
        var expected: [MonitorEvent] = []
        var refusedAt: Int?
        for (k, record) in records.enumerated() {
            do throws(ObservationProblem) {
                try oracle.process(.sighting(record.sighting), device: record.device, cause: record.cause, into: &expected)
            } catch {
                refusedAt = k
                break
            }
        }
        var expectedChanges: [AuthorizationChange] = []
        oracle.takeAuthorizationChanges(into: &expectedChanges)

        var engine = try Self.engine(threads: threads)
        _ = Self.sightings(&engine, outOfOrder: outOfOrder)
        var events: [MonitorEvent] = []
        var problem: BatchProblem?
        do throws(BatchProblem) {
            try engine.process(records, into: &events)
        } catch {
            problem = error
        }
        var changes: [AuthorizationChange] = []
        engine.takeAuthorizationChanges(into: &changes)
        #expect(problem?.index == refusedAt)
        #expect(refusedAt == outOfOrder)
        #expect(expected.count > 3_000)
        #expect(firstDifference(events, expected) == nil)
        #expect(firstDifference(changes, expectedChanges) == nil)
        // And the stream goes on the same way after the batch.
        var later: [MonitorEvent] = [], expectedLater: [MonitorEvent] = []
        engine.finish(into: &later)
        oracle.finish(into: &expectedLater)
        #expect(firstDifference(later, expectedLater) == nil)
    }
}

extension SightingBatchTests {
    /// A batch checks each device against its latest record before the batch, even when that record
    /// came one at a time after an earlier batch (the batch's own per-device times are not carried
    /// over).
    @Test func aBatchSeesRecordsAppliedSinceTheLastBatch() throws {
        var engine = try Self.engine(threads: 1)
        let d = engine.deviceID("d"), e = engine.deviceID("e")
        func sighting(_ device: DeviceID, at seconds: Double, cause: Int) -> SightingRecord {
            SightingRecord(device: device, sighting: BeaconSighting(time: T.at(seconds), identity: BeaconIdentity(uuid: T.uuid, major: 1, minor: 1),
                                                                    rssi: -60), cause: cause)
        }
        var events: [MonitorEvent] = []
        try engine.process([sighting(d, at: 10, cause: 1), sighting(e, at: 10, cause: 2)], into: &events)
        try engine.process(.sighting(sighting(d, at: 20, cause: 3).sighting), device: d, cause: 3, into: &events)
        #expect(throws: BatchProblem.self) { try engine.process([sighting(e, at: 12, cause: 4), sighting(d, at: 15, cause: 5)], into: &events) }
        do throws(BatchProblem) {
            try engine.process([sighting(e, at: 13, cause: 6), sighting(d, at: 16, cause: 7)], into: &events)
        } catch {
            #expect(error.index == 1)
        }
    }
}

extension SightingBatchTests {
    /// Batch after batch, the engine reuses its shards: each batch's events are its own, and a copy of
    /// the engine made between batches goes on exactly as the original does.
    @Test func batchAfterBatchAndACopyGoOnAsOneAtATime() throws {
        var oracle = try Self.engine(threads: 1)
        let records = Self.sightings(&oracle, outOfOrder: nil)
        var expected: [MonitorEvent] = []
        for record in records {
            try oracle.process(.sighting(record.sighting), device: record.device, cause: record.cause, into: &expected)
        }
        var engine = try Self.engine(threads: 1)
        _ = Self.sightings(&engine, outOfOrder: nil)
        var events: [MonitorEvent] = []
        try engine.process(Array(records[..<2_500]), into: &events)
        try engine.process(Array(records[2_500..<5_000]), into: &events)
        var copy = engine, copyEvents = events
        for start in stride(from: 5_000, to: records.count, by: 2_500) {
            let chunk = Array(records[start..<min(start + 2_500, records.count)])
            try engine.process(chunk, into: &events)
            var fresh: [MonitorEvent] = []  // an empty array takes the shard's events whole
            try copy.process(chunk, into: &fresh)
            copyEvents += fresh
        }
        #expect(expected.count > 3_000)
        #expect(firstDifference(events, expected) == nil)
        #expect(firstDifference(copyEvents, expected) == nil)
    }
}
