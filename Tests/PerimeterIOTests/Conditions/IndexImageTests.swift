import Foundation
import PerimeterPropertySupport
import PerimeterTestSupport
import PropertyBased
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// An engine loaded from an index image (`MonitoringEngine.indexImage()`) is the engine the image
/// was taken of: the same conditions, the same indexes, the same events; and a damaged image is
/// refused, never read past its end.
@Suite(.shrinking) struct IndexImageTests {
    /// 400 circles, 60 polygons of 4 to 2,000 edges (small ones in the two-byte lists, large ones
    /// refined), the world's countries, beacon conditions with and without wildcards, private
    /// conditions and every starting state.
    static func engine(threads: Int = 2, small: Bool = false) throws -> MonitoringEngine {
        var rng = SplitMix64(seed: 4040)
        let paris = Coordinate(latitude: 48.85, longitude: 2.35)
        var conditions: [(condition: Condition, identifier: String, assuming: ConditionState?, audience: ConditionAudience)] = []
        let states: [ConditionState?] = [nil, .satisfied, .unknown, .unsatisfied]
        for k in 0..<(small ? 40 : 400) {
            let centre = Coordinate(latitude: paris.latitude + .random(in: -0.1...0.1, using: &rng),
                                    longitude: paris.longitude + .random(in: -0.15...0.15, using: &rng))
            let audience = k % 25 == 0 ? ConditionAudience(devices: ["d\(k % 7)"]) : .everyone
            conditions.append((.circle(try CircularGeographicCondition(center: centre, radius: .random(in: 20...900, using: &rng))),
                               "circle-\(k)", states[k % 4], audience))
        }
        for k in 0..<(small ? 8 : 60) {
            let centre = Coordinate(latitude: paris.latitude + .random(in: -0.1...0.1, using: &rng),
                                    longitude: paris.longitude + .random(in: -0.15...0.15, using: &rng))
            let edges = [4, 12, 300, 2_000][k % 4]
            let polygon = PolygonLocatorTests.spiky(edges, centre: centre, radius: .random(in: 0.002...0.03, using: &rng), rng: &rng)
            let audience = k % 9 == 0 ? ConditionAudience(groups: ["night"]) : .everyone
            conditions.append((.polygon(try PolygonalGeographicCondition(polygons: [polygon])), "polygon-\(k)", states[k % 3], audience))
        }
        for (name, polygons) in try small ? [] : PolygonLocatorTests.countries() {
            conditions.append((.polygon(try PolygonalGeographicCondition(polygons: polygons)), name, nil, .everyone))
        }
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        conditions.append((.beacon(BeaconIdentityCondition(uuid: uuid)), "store", nil, .everyone))
        conditions.append((.beacon(BeaconIdentityCondition(uuid: uuid, major: 3)), "floor-3", .satisfied, .everyone))
        conditions.append((.beacon(BeaconIdentityCondition(uuid: uuid, major: 3, minor: 9)), "till-9", nil, ConditionAudience(devices: ["d1"])))
        var engine = MonitoringEngine(policy: MonitoringPolicy())
        engine.batchThreads = threads
        try engine.add(contentsOf: conditions)
        engine.setGroups(["night": ["d2", "d3"]])
        return engine
    }

    /// Fixes over the circles and polygons, with accuracies from 0 to 150 m, and sightings.
    static func records(count: Int) -> [(device: String, record: Observation)] {
        var rng = SplitMix64(seed: 4041)
        let t0 = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
        let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        return (0..<count).map { n in
            let time = t0.adding(TimeSpan(seconds: Double(n)))
            let device = "d\(n % 7)"
            if n % 50 == 0 {
                let identity = BeaconIdentity(uuid: uuid, major: UInt16(n % 5), minor: 9)
                return (device, .sighting(BeaconSighting(time: time, identity: identity, rssi: -60)))
            }
            let c = Coordinate(latitude: 48.85 + .random(in: -0.11...0.11, using: &rng), longitude: 2.35 + .random(in: -0.16...0.16, using: &rng))
            return (device, .fix(Fix(time: time, coordinate: c, horizontalAccuracy: [0, 5, 40, 150][n % 4])))
        }
    }

    static func events(_ engine: inout MonitoringEngine, _ records: [(device: String, record: Observation)]) throws -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        for (n, r) in records.enumerated() { try engine.process(r.record, device: r.device, cause: n + 1, into: &events) }
        engine.finish(into: &events)
        return events
    }

    /// The loaded engine has the same conditions and cover grid, gives the same events for 6,000
    /// records, and images to the same bytes (so every part is read back in the order it was written).
    @Test func aLoadedEngineIsTheEngineItWasTakenOf() throws {
        var original = try Self.engine()
        let image = try original.indexImage()
        var loaded = try image.withUnsafeBytes { try MonitoringEngine(policy: original.policy, indexImage: $0) }
        loaded.setGroups(["night": ["d2", "d3"]])
        #expect(try loaded.indexImage() == image)
        #expect(loaded.identifiers == original.identifiers)
        let listed = loaded.identifiersWithAudiences
        #expect(listed.map(\.identifier) == original.identifiers)
        #expect(listed.allSatisfy { original.audience(of: $0.identifier) == $0.audience })
        #expect(listed.filter { $0.audience != .everyone }.count == 16 + 7 + 1)  // circles, polygons, a beacon
        #expect(loaded.audience(of: "polygon-0") == ConditionAudience(groups: ["night"]))
        #expect(loaded.condition(for: "polygon-5") == original.condition(for: "polygon-5"))
        #expect(loaded.condition(for: "circle-3") == original.condition(for: "circle-3"))
        #expect(loaded.condition(for: "till-9") == original.condition(for: "till-9"))

        let records = Self.records(count: 6_000)
        let expected = try Self.events(&original, records)
        let got = try Self.events(&loaded, records)
        #expect(loaded.catalog.coverGrid == original.catalog.coverGrid)
        #expect(loaded.catalog.coverGrid.hasCells)
        #expect(firstDifference(got, expected) == nil, "\(firstDifference(got, expected) ?? "")")
        #expect(expected.count > 1_000)
    }

    /// The image does not depend on the threads that built the indexes.
    @Test func theImageIsTheSameForAnyThreadCount() throws {
        #expect(try Self.engine(threads: 1, small: true).indexImage() == Self.engine(threads: 2, small: true).indexImage())
    }

    /// Over random scenarios (a few conditions of every kind, random policies: catalogues too small
    /// for a cover grid), an engine loaded from the image of the scenario's engine gives the whole
    /// stream's events, authorization changes and refusals.
    @Test func aLoadedEngineGoesAsTheFirstWould() async {
        await propertyCheck(count: 200, input: ScenarioGen.scenario(), Gen.int(in: 0...1)) { scenario, feeding in
            let expected = try ScenarioRun.whole(scenario, Feeding.allCases[feeding])
            var run = try ScenarioRun(scenario)
            let image = try run.engine.indexImage()
            run.engine = try image.withUnsafeBytes { try MonitoringEngine(policy: run.engine.policy, indexImage: $0) }
            try run.feed(ScenarioRun.numbered(scenario), Feeding.allCases[feeding])
            run.finish()
            #expect(firstDifference(run.events, expected.events) == nil, "\(firstDifference(run.events, expected.events) ?? "")")
            #expect(firstDifference(run.changes, expected.changes) == nil)
            #expect(run.refused == expected.refused)
        }
    }

    /// Every prefix of an image (of 40 circles, 8 polygons and 3 beacons, with a cover grid), and
    /// images with a byte changed in the header or in a count, are refused with a reason; none is
    /// read past its end.
    @Test func aDamagedImageIsRefused() throws {
        let image = try Self.engine(small: true).indexImage()
        let policy = MonitoringPolicy()
        #expect(try image.withUnsafeBytes { try MonitoringEngine(policy: policy, indexImage: $0) }.catalog.coverGrid.hasCells)
        func refusal(_ bytes: [UInt8]) -> String? {
            do {
                _ = try bytes.withUnsafeBytes { try MonitoringEngine(policy: policy, indexImage: $0) }
                return nil
            } catch let problem as IndexImageProblem {
                return problem.description
            } catch {
                return "\(error)"
            }
        }
        var rng = SplitMix64(seed: 4042)
        let cuts = (0..<400).map { _ in Int.random(in: 0..<image.count, using: &rng) } + [0, 1, 21, 22, 30, image.count - 1]
        for cut in cuts {
            #expect(refusal(Array(image[..<cut])) != nil, "a prefix of \(cut) bytes was read")
        }
        #expect(refusal(image + [0]) == "bytes after the index image's end")
        var versioned = image
        versioned[22] &+= 1
        #expect(refusal(versioned)?.contains("version") == true)
        var foreign = image
        foreign[26] ^= 0xFF
        #expect(refusal(foreign)?.contains("byte order") == true)
        var notAnImage = image
        notAnImage[0] = UInt8(ascii: "P")
        #expect(refusal(notAnImage) == "not an index image")
        // The first count (circles), made far larger than the image.
        var counted = image
        counted[41] = 0x7F
        #expect(refusal(counted) != nil)
    }

    /// A catalogue with a history (a condition removed) has no image.
    @Test func aCatalogueWithARemovalHasNoImage() throws {
        var engine = try Self.engine()
        engine.remove("circle-1")
        #expect(throws: IndexImageProblem.self) { try engine.indexImage() }
    }
}
