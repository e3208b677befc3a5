import Foundation
import Testing
@testable import Perimeter
@testable import PerimeterIO
import PerimeterTestSupport

/// `BeaconRanging`'s batch path — constraints matched in groups, devices in shards on several
/// threads, results merged in record order — gives exactly the results of one record at a time.
@Suite struct RangingBatchTests {
    @Test(arguments: [1, 2, 3])
    func batchesGiveTheResultsOfOneRecordAtATime(threads: Int) throws {
        var random = SplitMix64(seed: UInt64(52 + threads))
        let museum = try #require(UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5"))
        let constraints = (0..<40).map { RangingConstraint(identifier: "room-\($0)", identity: BeaconIdentityCondition(uuid: museum, major: UInt16($0))) }
            + [RangingConstraint(identifier: "museum", identity: BeaconIdentityCondition(uuid: museum))]
        var policy = MonitoringPolicy()
        policy.initialAuthorization = .notDetermined
        // Sightings of 60 devices, about one a second each, in runs broken by an app record (and the
        // first time in the foreground a request and an answer), so that verdicts change on the way.
        var records: [(device: String, observation: Observation)] = []
        var time = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
        var asked = Set<String>()
        for n in 0..<12_000 {
            time = time.adding(TimeSpan(nanoseconds: Int64(random.next() % 40_000_000)))
            let device = "v\(random.next() % 60)"
            // (Every 1,500th: runs longer than `BeaconRanging.shardedRecords`, which go to shards.)
            if n % 1_500 == 1_499 {
                let state: AppState = [.foreground, .background, .indicator][Int(random.next() % 3)]
                records.append((device, .app(AppStateChange(time: time, state: state))))
                if state == .foreground && asked.insert(device).inserted {
                    records.append((device, .request(AuthorizationRequest(time: time, kind: .whenInUse))))
                    records.append((device, .answer(PromptAnswer(time: time, choice: .allowWhileUsing))))
                }
                continue
            }
            let identity = BeaconIdentity(uuid: museum, major: UInt16(random.next() % 45), minor: UInt16(random.next() % 6))
            records.append((device, .sighting(BeaconSighting(time: time, identity: identity, rssi: -40 - Int(random.next() % 60)))))
        }

        var single = BeaconRanging(monitoring: MonitoringEngine(policy: policy), constraints: constraints)
        var expected: [RangingResult] = [], events: [MonitorEvent] = []
        for (k, record) in records.enumerated() {
            try single.process(record.observation, device: record.device, cause: k + 1, events: &events, results: &expected)
        }
        single.finish(events: &events, results: &expected)
        #expect(expected.count > 10_000 && expected.contains { $0.delivery.verdict == .delivered }
                && expected.contains { $0.delivery.verdict == .dropped })

        var engine = MonitoringEngine(policy: policy)
        engine.batchThreads = threads
        var batched = BeaconRanging(monitoring: engine, constraints: constraints)
        var results: [RangingResult] = [], run: [SightingRecord] = []
        for (k, record) in records.enumerated() {
            let id = batched.deviceID(record.device)
            if case .sighting(let sighting) = record.observation {
                run.append(SightingRecord(device: id, sighting: sighting, cause: k + 1))
                continue
            }
            try batched.process(run, events: &events, results: &results)
            run = []
            try batched.process(record.observation, device: id, name: record.device, cause: k + 1, events: &events, results: &results)
        }
        try batched.process(run, events: &events, results: &results)
        batched.finish(events: &events, results: &results)
        // (Compared here rather than by `#expect(results == expected)`, whose message would print both.)
        let first = zip(results.indices, expected.indices).first { results[$0.0] != expected[$0.1] }?.0
        #expect(results.count == expected.count && first == nil,
                "\(results.count) results, \(expected.count) one at a time; the first difference at \(first.map(String.init) ?? "none")")
        #expect(batched.resultCount == single.resultCount && batched.droppedCount == single.droppedCount)
    }
}
