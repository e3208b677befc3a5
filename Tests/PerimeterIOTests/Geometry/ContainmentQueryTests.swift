import CGEOS
import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// The stateless containment query against testing every condition on its own: each containing
/// condition exactly once, through the cover grid, the conditions too large for it, conditions
/// added after it was built, removed ones, and the condition index alone when the grid holds nothing.
@Suite struct ContainmentQueryTests {
    /// A box-shaped polygon; `east` may overshoot 180 by the hair Natural Earth's Russia does.
    static func box(south: Double, north: Double, west: Double, east: Double) throws -> Condition {
        let ring = [Coordinate(latitude: south, longitude: west), Coordinate(latitude: south, longitude: east),
                    Coordinate(latitude: north, longitude: east), Coordinate(latitude: north, longitude: west),
                    Coordinate(latitude: south, longitude: west)]
        return .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)]))
    }

    /// `count` circles and small spiky polygons, alternately, within a few kilometres of `origin`.
    static func addSmallConditions(_ count: Int, around origin: Coordinate, to engine: inout MonitoringEngine,
                                   rng: inout SplitMix64) throws {
        for i in 0..<count {
            let c = Coordinate(latitude: origin.latitude + .random(in: -0.02...0.02, using: &rng),
                               longitude: origin.longitude + .random(in: -0.05...0.05, using: &rng))
            if i % 2 == 0 {
                try engine.add(.circle(CircularGeographicCondition(center: c, radius: .random(in: 30...500, using: &rng))), identifier: "c\(i)")
            } else {
                try engine.add(.polygon(PolygonalGeographicCondition(polygons: [PolygonLocatorTests.spiky(
                    Int.random(in: 8...40, using: &rng), centre: c, radius: .random(in: 0.0005...0.004, using: &rng), rng: &rng)])),
                               identifier: "p\(i)")
            }
        }
    }

    static func expectMatchesEveryConditionAlone(_ engine: inout MonitoringEngine, points: [Coordinate]) {
        var query = engine.makeContainmentQuery()
        let catalog = engine.catalog
        var found: [Int32] = []
        var mismatches: [String] = []
        for p in points {
            found.removeAll()
            query.conditions(containing: p, into: &found)
            var expected: [Int32] = []
            for i in 0..<Int32(catalog.geographic.count) where !catalog.geographic[Int(i)].isRemoved {
                var frame = FixFrame(p, margin: 0)
                if catalog.reading(i, &frame) == .inside { expected.append(i) }
            }
            if found.sorted() != expected { mismatches.append("\(p): query \(found.sorted()), alone \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    @Test func eachContainingConditionOnceThroughGridAndIndex() throws {
        var rng = SplitMix64(seed: 21)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 64, longitude: 179.9)
        try Self.addSmallConditions(300, around: origin, to: &engine, rng: &rng)
        // Too large for the grid, and one whose box runs a hair past 180.
        try engine.add(Self.box(south: 60, north: 70, west: 170, east: 180.0000000000001), identifier: "east")
        try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 900_000)), identifier: "huge")
        _ = engine.makeContainmentQuery()
        for i in stride(from: 0, to: 300, by: 7) { engine.remove(i % 2 == 0 ? "c\(i)" : "p\(i)") }
        // Added after the grid was built (too few to rebuild it).
        try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 2_000)), identifier: "late")
        let points = (0..<5_000).map { _ in
            Coordinate(latitude: origin.latitude + .random(in: -0.03...0.03, using: &rng),
                       longitude: min(180, origin.longitude + .random(in: -0.07...0.07, using: &rng)))
        }
        Self.expectMatchesEveryConditionAlone(&engine, points: points)
    }

    /// Conditions all too large for the grid: a few are checked directly, many through the index.
    @Test(arguments: [2, 80])
    func eachContainingConditionOnceWhenTheGridHoldsNothing(count: Int) throws {
        var engine = MonitoringEngine()
        try engine.add(Self.box(south: -50, north: 80, west: -170, east: 180.0000000000001), identifier: "overshoot")
        try engine.add(Self.box(south: -80, north: 10, west: -180, east: 20), identifier: "west")
        var rng = SplitMix64(seed: 22)
        for i in 2..<count {
            // Running past 180 keeps them out of the grid.
            let south = Double.random(in: -80...0, using: &rng), west = Double.random(in: -170...0, using: &rng)
            try engine.add(Self.box(south: south, north: south + 60, west: west, east: 180.0000000000001), identifier: "b\(i)")
        }
        let points = (0..<5_000).map { _ in
            Coordinate(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng))
        }
        #expect(engine.makeContainmentQuery().isUsingConditionIndexOnly == (count > 64))
        Self.expectMatchesEveryConditionAlone(&engine, points: points)
    }
}

extension ContainmentQueryTests {
    enum BatchCase: String, CaseIterable, Sendable {
        /// Many small conditions, points in cell order.
        case grid
        /// A polygon and a circle the grid holds, points in input order.
        case box
        /// Two polygons the grid holds and nothing else: each point tested against each.
        case fewInGrid
        /// A few polygons too large for the grid (and one removed): each point tested against each.
        case fewLarge
        /// One such polygon (the batch's one-polygon loop).
        case oneLarge
    }

    /// The batch query (points taken in cell order, or tested directly against a few large polygons)
    /// gives each point exactly the one-point answer, and nothing for points that are not positions;
    /// the one-point answer is each condition's alone.
    @Test(arguments: BatchCase.allCases)
    func batchQueryEqualsOnePointAtATime(_ batch: BatchCase) throws {
        var rng = SplitMix64(seed: 23)
        var engine = MonitoringEngine()
        let origin = Coordinate(latitude: 48.85, longitude: 2.35)
        switch batch {
        case .grid:
            try Self.addSmallConditions(600, around: origin, to: &engine, rng: &rng)
        case .box:
            try engine.add(Self.box(south: 40, north: 55, west: -5, east: 10), identifier: "box")
            try engine.add(.circle(CircularGeographicCondition(center: origin, radius: 2_000)), identifier: "circle")
        case .fewInGrid:
            try engine.add(Self.box(south: 48.84, north: 48.87, west: 2.3, east: 2.36), identifier: "small")
            try engine.add(Self.box(south: 40, north: 55, west: -5, east: 10), identifier: "box")
        case .fewLarge:
            // Running past 180 keeps them out of the grid.
            try engine.add(Self.box(south: 48.83, north: 80, west: 2.33, east: 180.0000000000001), identifier: "north-east")
            try engine.add(Self.box(south: -80, north: 48.86, west: -170, east: 180.0000000000001), identifier: "south")
            try engine.add(Self.box(south: -80, north: 80, west: -170, east: 180.0000000000001), identifier: "removed")
            engine.prepare()
            engine.remove("removed")  // (after the grid was laid out: still listed there)
        case .oneLarge:
            try engine.add(Self.box(south: 48.83, north: 80, west: 2.33, east: 180.0000000000001), identifier: "north-east")
        }
        var points = (0..<20_000).map { _ in
            Coordinate(latitude: origin.latitude + .random(in: -0.04...0.04, using: &rng),
                       longitude: origin.longitude + .random(in: -0.06...0.06, using: &rng))
        }
        points += [Coordinate(latitude: .nan, longitude: 2.35), Coordinate(latitude: 48.85, longitude: .infinity)]
        var query = engine.makeContainmentQuery()
        #expect(query.testsPolygonsDirectly == [.fewLarge, .oneLarge, .fewInGrid].contains(batch))
        query.ordersBatchesByCell = batch == .grid  // (the conditions here are few: order by cell regardless)
        var conditions: [Int32] = [], offsets: [Int] = []
        query.conditions(containing: points, conditions: &conditions, offsets: &offsets)
        #expect(offsets.count == points.count + 1)
        var mismatches = 0, found: [Int32] = [], total = 0
        for (k, p) in points.enumerated() {
            found.removeAll()
            query.conditions(containing: p, into: &found)
            total += found.count
            if Array(conditions[offsets[k]..<offsets[k + 1]]) != found { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(total > 5_000)
        // And one point at a time against each condition alone (a few polygons are tested directly
        // by both the batch and the one-point query).
        Self.expectMatchesEveryConditionAlone(&engine, points: Array(points.prefix(3_000)))
    }
}
