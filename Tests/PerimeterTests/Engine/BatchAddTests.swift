import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// `MonitoringEngine.add(contentsOf:)` against one `add` after another: the same catalogue, the same
/// events, and a duplicate identifier stops it in the same place.
@Suite struct BatchAddTests {
    static func conditions(_ count: Int, seed: UInt64) throws -> [(condition: Condition, identifier: String, assuming: ConditionState?)] {
        var rng = SplitMix64(seed: seed)
        var result: [(condition: Condition, identifier: String, assuming: ConditionState?)] = []
        for k in 0..<count {
            let lat = 48.85 + .random(in: -0.02...0.02, using: &rng), lon = 2.35 + .random(in: -0.03...0.03, using: &rng)
            let size = Double.random(in: 0.0005...0.004, using: &rng)
            let condition: Condition = Bool.random(using: &rng)
                ? try .circle(lat, lon, radius: .random(in: 50...400, using: &rng))
                : try .rectangle(lat, lon, lat + size, lon + size * 1.5,
                                 hole: Bool.random(using: &rng) ? (lat + size / 4, lon + size / 4, lat + size / 2, lon + size / 2) : nil)
            let assuming: ConditionState? = [nil, .unknown, .satisfied, .unsatisfied][Int.random(in: 0..<4, using: &rng)]
            result.append((condition, "c\(k)", assuming))
        }
        return result
    }

    static func events(_ engine: inout MonitoringEngine, seed: UInt64) throws -> [MonitorEvent] {
        var rng = SplitMix64(seed: seed)
        var events: [MonitorEvent] = []
        for k in 0..<3000 {
            let fix = T.fix(48.85 + .random(in: -0.025...0.025, using: &rng), 2.35 + .random(in: -0.035...0.035, using: &rng),
                            accuracy: .random(in: 5...60, using: &rng), at: Double(k))
            try engine.process(fix, device: "d\(k % 7)", cause: k, into: &events)
        }
        return events
    }

    @Test(arguments: [1, 3])
    func addingAllAtOnceEqualsOneByOne(threads: Int) throws {
        let conditions = try Self.conditions(300, seed: 8)
        var oneByOne = MonitoringEngine()
        for c in conditions { try oneByOne.add(c.condition, identifier: c.identifier, assuming: c.assuming) }
        var atOnce = MonitoringEngine()
        atOnce.batchThreads = threads
        try atOnce.add(contentsOf: conditions)
        #expect(atOnce.identifiers == oneByOne.identifiers)
        for c in conditions { #expect(atOnce.condition(for: c.identifier) == c.condition) }
        let expected = try Self.events(&oneByOne, seed: 9)
        #expect(expected.count > 100)
        #expect(try Self.events(&atOnce, seed: 9) == expected)
    }

    @Test func aDuplicateStopsWhereOneByOneWould() throws {
        var conditions = try Self.conditions(40, seed: 10)
        conditions[25].identifier = "c7"
        var engine = MonitoringEngine()
        engine.batchThreads = 3
        #expect(throws: ConditionCatalogError.duplicateIdentifier("c7")) { try engine.add(contentsOf: conditions) }
        #expect(engine.identifiers == conditions[..<25].map(\.identifier))
    }
}
