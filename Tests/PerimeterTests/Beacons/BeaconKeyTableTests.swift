import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The bucketed key table and the matcher built on it, against dictionaries.
@Suite struct BeaconKeyTableTests {
    /// Keys shaped as the matcher's (UUID number << 32 | major << 16 | minor), many more than fit
    /// in their home buckets: every key gives its value back, and keys it lacks give `absent`.
    @Test func tableEqualsADictionary() {
        var rng = SplitMix64(seed: 71)
        var expected: [UInt64: Int32] = [:]
        while expected.count < 50_000 {
            let key = UInt64.random(in: 0..<40, using: &rng) << 32 | UInt64.random(in: 0...0xFFFF_FFFF, using: &rng)
            expected[key] = Int32(expected.count)
        }
        let table = BeaconKeyTable(expected.map { ($0.key, $0.value) }, absent: .max)
        #expect(table.overflowedBuckets > 100)  // (the probes past the home bucket are exercised)
        var wrong = 0
        for (key, value) in expected where table.value(key, home: table.hash(key)) != value { wrong += 1 }
        #expect(wrong == 0)
        var found = 0
        for _ in 0..<50_000 {
            let key = UInt64.random(in: 0..<48, using: &rng) << 32 | UInt64.random(in: 0...0xFFFF_FFFF, using: &rng)
            if expected[key] == nil && table.value(key, home: table.hash(key)) != .max { found += 1 }
        }
        #expect(found == 0)
    }

    /// Keys that all start in the first or the last bucket: a chain of full buckets that wraps
    /// past the end, probed for keys it has and keys it lacks.
    @Test func longChainWrapsAround() {
        var rng = SplitMix64(seed: 72)
        // 64 keys: 32 buckets. (A table of one key shows which bucket each key starts at.)
        let probe = BeaconKeyTable((0..<64).map { (UInt64($0), Int32($0)) }, absent: -1)
        var keys: [UInt64] = []
        var lacking: [UInt64] = []
        while keys.count < 40 || lacking.count < 100 {
            let key = UInt64.random(in: 0..<(1 << 40), using: &rng)
            let home = probe.hash(key)
            if home == 31 || home == 0 {
                if keys.count < 40 { keys.append(key) } else { lacking.append(key) }
            }
        }
        keys += (0..<24).map { _ in UInt64.random(in: (1 << 40)..<(1 << 41), using: &rng) }
        let table = BeaconKeyTable(keys.enumerated().map { ($0.element, Int32($0.offset)) }, absent: -1)
        #expect(table.hash(keys[0]) == probe.hash(keys[0]))
        #expect(keys.indices.allSatisfy { table.value(keys[$0], home: table.hash(keys[$0])) == Int32($0) })
        #expect(lacking.allSatisfy { table.value($0, home: table.hash($0)) == -1 })
    }

    /// 30,000 mostly distinct identities, so that the keyed tables' buckets overflow, and sightings
    /// half drawn from them: one at a time and in batches, the matches are those of a dictionary of
    /// identities (wildcards as nil), in addition order.
    @Test func matcherEqualsADictionaryOfIdentities() throws {
        var rng = SplitMix64(seed: 73)
        let uuids = (0..<50).map { _ in UUID() }
        struct Identity: Hashable { var uuid: UUID, major: UInt16?, minor: UInt16? }
        var byIdentity: [Identity: [Int32]] = [:]
        var engine = MonitoringEngine()
        var conditions: [BeaconIdentityCondition] = []
        for i in 0..<30_000 {
            let uuid = uuids[Int.random(in: 0..<50, using: &rng)]
            let major = UInt16.random(in: 0...UInt16.max, using: &rng), minor = UInt16.random(in: 0...UInt16.max, using: &rng)
            let c: BeaconIdentityCondition = switch Int.random(in: 0..<100, using: &rng) {
            case 0: BeaconIdentityCondition(uuid: uuid)
            case 1..<50: BeaconIdentityCondition(uuid: uuid, major: major)
            default: BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
            }
            conditions.append(c)
            byIdentity[Identity(uuid: c.uuid, major: c.major, minor: c.minor), default: []].append(Int32(i))
            try engine.add(.beacon(c), identifier: "b\(i)")
        }
        engine.prepare()
        #expect(engine.catalog.beaconMatcher.overflowedBuckets > 100)
        let query = engine.makeContainmentQuery()
        let identities = (0..<40_000).map { _ in
            if Bool.random(using: &rng) {
                let c = conditions[Int.random(in: 0..<conditions.count, using: &rng)]
                return BeaconIdentity(uuid: c.uuid, major: c.major ?? .random(in: 0...UInt16.max, using: &rng),
                                      minor: c.minor ?? .random(in: 0...UInt16.max, using: &rng))
            }
            return BeaconIdentity(uuid: Int.random(in: 0..<10, using: &rng) == 0 ? UUID() : uuids[Int.random(in: 0..<50, using: &rng)],
                                  major: .random(in: 0...UInt16.max, using: &rng), minor: .random(in: 0...UInt16.max, using: &rng))
        }
        var batch: [Int32] = [], offsets: [Int] = [], found: [Int32] = []
        query.conditions(matching: identities, conditions: &batch, offsets: &offsets)
        var mismatches = 0, batchMismatches = 0, matched = 0
        for (k, s) in identities.enumerated() {
            let expected = ([Identity(uuid: s.uuid, major: nil, minor: nil), Identity(uuid: s.uuid, major: s.major, minor: nil),
                             Identity(uuid: s.uuid, major: s.major, minor: s.minor)].flatMap { byIdentity[$0] ?? [] }).sorted()
            found.removeAll()
            query.conditions(matching: s, into: &found)
            if found != expected { mismatches += 1 }
            if Array(batch[offsets[k]..<offsets[k + 1]]) != expected { batchMismatches += 1 }
            if !expected.isEmpty { matched += 1 }
        }
        #expect(mismatches == 0)
        #expect(batchMismatches == 0)
        #expect(matched > 20_000)
    }
}
