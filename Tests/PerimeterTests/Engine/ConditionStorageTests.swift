import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The compact forms the catalogue keeps conditions in, each against the plain one it replaced: the
/// identifier table against a `Dictionary`, and the memory the whole catalogue takes per circle.
@Suite struct ConditionStorageTests {
    /// Random inserts, removals and lookups, with identifiers that share prefixes and long runs of
    /// occupied slots, agree with a dictionary at every step.
    @Test func identifierTableEqualsADictionary() {
        var rng = SplitMix64(seed: 41)
        var table = IdentifierTable()
        var oracle: [String: ConditionCatalog.Entry] = [:]
        var names: [ConditionCatalog.Entry: String] = [:]
        var nextGeographic: Int32 = 0, nextBeacon: Int32 = 0
        let identifierOf: (ConditionCatalog.Entry) -> String = { names[$0]! }
        for step in 0..<20_000 {
            let name = "zone-\(Int.random(in: 0..<3_000, using: &rng))" + (Bool.random(using: &rng) ? "-with-a-longer-tail" : "")
            switch Int.random(in: 0..<3, using: &rng) {
            case 0 where oracle[name] == nil:
                let entry: ConditionCatalog.Entry
                if Bool.random(using: &rng) { entry = .geographic(nextGeographic); nextGeographic += 1 } else { entry = .beacon(nextBeacon); nextBeacon += 1 }
                names[entry] = name
                oracle[name] = entry
                table.insert(entry, identifier: name, identifierOf: identifierOf)
            case 1:
                let removed = table.remove(name, identifierOf: identifierOf)
                let expected = oracle.removeValue(forKey: name)
                #expect(removed == expected, "step \(step): remove \(name)")
            default:
                #expect(table.find(name, identifierOf: identifierOf) == oracle[name], "step \(step): find \(name)")
            }
            #expect(table.count == oracle.count)
        }
        for (name, entry) in oracle { #expect(table.find(name, identifierOf: identifierOf) == entry) }
        #expect(oracle.count > 500)
    }

    /// A polygon condition comes back exactly as added (the catalogue keeps no copy: its locator
    /// gives the rings back from its edges): parts, holes, every coordinate, and a repaired polygon
    /// as repaired.
    @Test func polygonConditionsComeBackAsAdded() throws {
        func ring(_ points: [(Double, Double)]) -> [Coordinate] {
            (points + [points[0]]).map { Coordinate(latitude: $0.0, longitude: $0.1) }
        }
        let twoHoles = GeoPolygon(exterior: ring([(0, 0), (0, 1), (1, 1), (1, 0)].map { ($0.0 + 0.123456789, $0.1 - 0.5) }),
                                  holes: [ring([(0.2, -0.2), (0.4, -0.2), (0.4, -0.4)]), ring([(0.6, -0.4), (0.8, -0.4), (0.8, -0.2)])])
        let plain = GeoPolygon(exterior: ring([(5, 5), (5, 6), (5.5, 6.5), (6, 6), (6, 5)]))
        let multi = try PolygonalGeographicCondition(polygons: [twoHoles, plain, GeoPolygon(exterior: ring([(-3, 3), (-3, 4), (-2, 4)]))])
        // A bow tie, repaired into two triangles.
        let bowTie = try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring([(0, 10), (1, 11), (0, 11), (1, 10)]))],
                                                      repair: true)
        var engine = MonitoringEngine()
        try engine.add(.polygon(multi), identifier: "multi")
        try engine.add(.polygon(bowTie), identifier: "bow tie")
        try engine.add(.circle(0, 0, radius: 10), identifier: "circle")
        #expect(engine.condition(for: "multi") == .polygon(multi))
        #expect(engine.condition(for: "bow tie") == .polygon(bowTie))
        #expect(bowTie.polygons.count == 2)
    }

    /// `identifiers` lists the conditions in addition order across both kinds, without removed ones,
    /// and a removed identifier added again comes last.
    @Test func identifiersKeepAdditionOrderAcrossKindsAndRemovals() throws {
        var engine = MonitoringEngine()
        try engine.add(.circle(0, 0, radius: 10), identifier: "a")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: T.uuid)), identifier: "b")
        try engine.add(.circle(1, 1, radius: 10), identifier: "c")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: T.otherUUID, major: 1)), identifier: "d")
        #expect(engine.identifiers == ["a", "b", "c", "d"])
        #expect(engine.remove("b") && engine.remove("a") && !engine.remove("a"))
        #expect(engine.identifiers == ["c", "d"])
        try engine.add(.circle(2, 2, radius: 10), identifier: "a")
        #expect(engine.identifiers == ["c", "d", "a"])
        #expect(engine.condition(for: "a") == (try .circle(2, 2, radius: 10)))
        // Runs of one kind (the catalogue keeps the order as runs).
        try engine.add(.circle(3, 3, radius: 10), identifier: "e")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: T.uuid, major: 2)), identifier: "f")
        try engine.add(.beacon(BeaconIdentityCondition(uuid: T.uuid, major: 3)), identifier: "g")
        try engine.add(.circle(4, 4, radius: 10), identifier: "h")
        let removedF = engine.remove("f")
        #expect(removedF)
        #expect(engine.identifiers == ["c", "d", "a", "e", "g", "h"])
    }

    /// Circles are stored place by place (the cover grid's cell order), whatever the order they were
    /// added in, and each condition still finds its own circle.
    @Test func circlesAreStoredInCellOrder() throws {
        var rng = SplitMix64(seed: 44)
        var engine = MonitoringEngine()
        let centres = (0..<5_000).map { _ in
            Coordinate(latitude: 48.85 + .random(in: -0.2...0.2, using: &rng), longitude: 2.35 + .random(in: -0.3...0.3, using: &rng))
        }
        try engine.add(contentsOf: try centres.enumerated().map { k, c in
            (try .circle(c.latitude, c.longitude, radius: 100), "circle-\(k)", nil)
        })
        engine.prepare()
        let catalog = engine.catalog, grid = catalog.coverGrid
        #expect(grid.hasCells)
        let keys = catalog.circleCentres.map { grid.sortKey($0) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 })
        for (k, c) in centres.enumerated() {
            #expect(catalog.circle(inSlot: catalog.geographic[k].slot).center == c)
        }
    }

    /// A catalogue whose grid would outgrow its entry budget gets coarser cells instead: it lists
    /// no more entries than the budget, and not far fewer (the cell size is searched in 5 % steps;
    /// the estimate counts a box per circle, some 15 % more than its entries).
    @Test(arguments: [40_000, 120_000, 400_000])
    func coverGridKeepsToItsBudget(budget: Int) throws {
        var rng = SplitMix64(seed: 45)
        var engine = MonitoringEngine()
        try engine.add(contentsOf: (0..<20_000).map { k in
            (try .circle(48.85 + .random(in: -0.2...0.2, using: &rng), 2.35 + .random(in: -0.3...0.3, using: &rng),
                         radius: .random(in: 50...500, using: &rng)), "circle-\(k)", nil)
        })
        engine.prepare()
        let unbudgeted = engine.catalog.coverGrid.entryCount
        let grid = CoverGrid(shapes: engine.catalog, entryBudget: budget)
        #expect(unbudgeted > 400_000)  // (so that every budget here binds)
        #expect(grid.entryCount <= budget)
        #expect(Double(grid.entryCount) >= 0.7 * Double(budget), "\(grid.entryCount) entries for a budget of \(budget)")
        #expect(grid.rows * grid.columns < engine.catalog.coverGrid.rows * engine.catalog.coverGrid.columns)
    }

    /// 20,000 circles take under 80 bytes each besides the cover grid (whose size is set by its
    /// entry budget, not per condition), the lookup table added at once at most 3/4 full and no
    /// more, and lookups still find every one after removals (which move entries back across the
    /// table's end).
    @Test func circlesTakeLittleBesidesTheGrid() throws {
        var rng = SplitMix64(seed: 43)
        var engine = MonitoringEngine()
        let count = 20_000
        try engine.add(contentsOf: (0..<count).map { k in
            (try .circle(48.85 + .random(in: -0.2...0.2, using: &rng), 2.35 + .random(in: -0.3...0.3, using: &rng),
                         radius: .random(in: 50...500, using: &rng)), "circle-\(k)", nil)
        })
        engine.prepare()
        let parts = Dictionary(uniqueKeysWithValues: engine.conditionStorage.map { ($0.part, $0.bytes) })
        let besidesGrid = parts.values.reduce(0, +) - parts["cover grid", default: 0]
        #expect(besidesGrid < 80 * count, "\(parts)")
        #expect(parts["identifier lookup", default: 0] <= 4 * (count * 4 / 3 + 2) + 64)  // (and the array header)
        for k in stride(from: 0, to: count, by: 3) {
            let removed = engine.remove("circle-\(k)")
            #expect(removed)
        }
        for k in 0..<count {
            #expect((engine.condition(for: "circle-\(k)") == nil) == (k % 3 == 0))
        }
    }
}
