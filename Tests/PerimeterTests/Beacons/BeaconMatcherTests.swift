import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
/// The matcher's hash tables against scanning every condition with `matches`.
@Suite struct BeaconMatcherTests {
    /// With 3,000 conditions a known UUID matches dozens (the sort of many matches); with 300, a few
    /// (sorted in place).
    @Test(arguments: [3_000, 300])
    func matcherEqualsAScanOfEveryCondition(count: Int) throws {
        var rng = SplitMix64(seed: 5)
        let uuids = (0..<20).map { _ in UUID() }
        var engine = MonitoringEngine()
        var conditions: [BeaconIdentityCondition] = []
        for i in 0..<count {
            let uuid = uuids[Int.random(in: 0..<20, using: &rng)]
            let major = UInt16.random(in: 0..<30, using: &rng), minor = UInt16.random(in: 0..<5, using: &rng)
            let c: BeaconIdentityCondition = switch i % 3 {
            case 0: BeaconIdentityCondition(uuid: uuid)
            case 1: BeaconIdentityCondition(uuid: uuid, major: major)
            default: BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
            }
            conditions.append(c)
            try engine.add(.beacon(c), identifier: "b\(i)")
        }
        for i in stride(from: 0, to: count, by: 7) { engine.remove("b\(i)") }
        let query = engine.makeContainmentQuery()
        var found: [Int32] = []
        // (A count that is not a whole number of the batch's groups.)
        let identities = (0..<20_003).map { _ in
            BeaconIdentity(uuid: Int.random(in: 0..<25, using: &rng) < 20 ? uuids[Int.random(in: 0..<20, using: &rng)] : UUID(),
                           major: .random(in: 0..<32, using: &rng), minor: .random(in: 0..<6, using: &rng))
        }
        var batch: [Int32] = [], offsets: [Int] = []
        query.conditions(matching: identities, conditions: &batch, offsets: &offsets)
        #expect(offsets.count == identities.count + 1)
        var mismatches = 0, batchMismatches = 0, several = 0, matchCounts = Set<Int>()
        for (k, identity) in identities.enumerated() {
            found.removeAll()
            query.conditions(matching: identity, into: &found)
            let expected = conditions.indices.filter { $0 % 7 != 0 && conditions[$0].matches(identity) }.map(Int32.init)
            if found != expected { mismatches += 1 }
            if Array(batch[offsets[k]..<offsets[k + 1]]) != expected { batchMismatches += 1 }
            if expected.count > 1 { several += 1 }
            matchCounts.insert(expected.count)
        }
        #expect(mismatches == 0)
        #expect(batchMismatches == 0)
        #expect(several > 5_000)  // (the forms' answers merged in order, not just one each)
        #expect(matchCounts.contains { $0 > 32 } == (count == 3_000))
    }
}

extension BeaconMatcherTests {
    /// With no beacon condition (no room to write into), a batch matches nothing, and says so.
    @Test func batchWithoutBeaconConditionsMatchesNothing() throws {
        var engine = MonitoringEngine()
        try engine.add(.circle(CircularGeographicCondition(center: Coordinate(latitude: 48.85, longitude: 2.35), radius: 100)),
                       identifier: "circle")
        let query = engine.makeContainmentQuery()
        let identities = (0..<40).map { BeaconIdentity(uuid: UUID(), major: UInt16($0), minor: 1) }
        var conditions: [Int32] = [], offsets: [Int] = []
        query.conditions(matching: identities, conditions: &conditions, offsets: &offsets)
        #expect(conditions.isEmpty)
        #expect(offsets == [Int](repeating: 0, count: identities.count + 1))
    }
}
