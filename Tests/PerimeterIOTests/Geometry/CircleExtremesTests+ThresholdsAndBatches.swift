import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// Sections 4–6 of `CircleExtremesTests`: exact thresholds and cells, many devices three ways, and
/// adding and removing between batches.
extension CircleExtremesTests {
    // MARK: 4. Exact thresholds and cells

    /// Fixes exactly at radius, radius ± margin (as exactly as doubles allow), just beyond the
    /// tolerance either side of those, and exactly on cover-grid cell centres and corners, after
    /// fixes that settle the pair inside or outside first.
    @Test(arguments: [(0.0, 0.5, 0.0), (0, 0.5, 10), (0, 2, 0), (0, 2, 10), (150, 0.5, 0), (150, 0.5, 10), (150, 2, 0), (150, 2, 10)])
    func exactThresholdsAndCells(hysteresis: Double, weight: Double, confirmation: Double) throws {
        var rng = SplitMix64(seed: 4000 + UInt64(hysteresis) + UInt64(weight * 10) + UInt64(confirmation) * 3)
        let policy = Oracle.policy((hysteresis, weight, confirmation))
        var circles = Self.parisCluster(36, rng: &rng)
        let tinyCentre = Oracle.destination(Self.paris, metres: 700, bearing: 200)
        circles.append(Circle(id: "tiny1cm", lat: tinyCentre.0, lon: tinyCentre.1, radius: 0.01))
        circles.append(Circle(id: "tiny1m", lat: tinyCentre.0, lon: tinyCentre.1, radius: 1, assuming: .satisfied))
        circles.append(Circle(id: "big100k", lat: Self.paris.0 - 0.3, lon: Self.paris.1 + 0.2, radius: 100_000))
        let rimCentre = Oracle.destination(Self.paris, metres: 1_000_000, bearing: 123)
        circles.append(Circle(id: "max1000k", lat: rimCentre.0, lon: rimCentre.1, radius: 1_000_000))
        circles.append(Circle(id: "max1000kAtPole", lat: 90, lon: 0, radius: 1_000_000))
        let probe = try Self.preparedEngine(policy, circles)
        let grid = probe.catalog.coverGrid
        #expect(grid.hasCells)

        let accuracies = [0.0, 5, 65, 1000, 100_000]
        let devices = 24
        var perDevice: [[FixSpec]] = Array(repeating: [], count: devices)
        for d in 0..<devices {
            var t = 0.0
            var fixes: [FixSpec] = []
            for _ in 0..<25 {
                let c = circles.randomElement(using: &rng)!
                // Settle the pair: twice, the confirmation time apart, at the centre (accuracy 0) or far away.
                let setup: (Double, Double) = Bool.random(using: &rng) ? (c.lat, c.lon) : (c.lat - 40, Oracle.normalised(c.lon + 100))
                for _ in 0..<2 {
                    fixes.append(FixSpec(device: d, lat: setup.0, lon: setup.1, accuracy: 0, seconds: t))
                    t += confirmation + 1
                }
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let accuracy = Int.random(in: 0..<12, using: &rng) == 0 ? -1 : accuracies.randomElement(using: &rng)!
                    let margin = max(hysteresis, weight * max(0, accuracy))
                    let p: (Double, Double)
                    if c.radius < 1000 && Int.random(in: 0..<4, using: &rng) == 0 {
                        // A cover-grid cell's centre or corner near the circle.
                        let row = grid.row(of: c.lat) + Int.random(in: -2...2, using: &rng)
                        let column = grid.column(of: c.lon) + Int.random(in: -2...2, using: &rng)
                        let half = [0.5, 0, 0].randomElement(using: &rng)!
                        p = (grid.minLatitude + (Double(row) + half) * grid.latitudeStep,
                             grid.minLongitude + (Double(column) + half) * grid.longitudeStep)
                    } else {
                        let rho = Self.thresholdDistance(c.radius, margin, &rng)
                        if Bool.random(using: &rng) {  // along the meridian: exact as doubles allow
                            let north = c.lat + rho / Oracle.earthRadius / (Double.pi / 180)
                            p = north <= 90 ? (north, c.lon) : (c.lat - rho / Oracle.earthRadius / (Double.pi / 180), c.lon)
                        } else {
                            p = Oracle.destination((c.lat, c.lon), metres: rho, bearing: .random(in: 0..<360, using: &rng))
                        }
                    }
                    fixes.append(FixSpec(device: d, lat: p.0, lon: p.1, accuracy: accuracy, seconds: t))
                    t += Double(Int.random(in: 0...Int(confirmation) + 1, using: &rng))
                }
                t += 1
            }
            perDevice[d] = fixes
        }
        // Interleaved, each device's fixes in order.
        var fixes: [FixSpec] = []
        var next = [Int](repeating: 0, count: devices)
        while fixes.count < perDevice.reduce(0, { $0 + $1.count }) {
            let d = Int.random(in: 0..<devices, using: &rng)
            guard next[d] < perDevice[d].count else { continue }
            fixes.append(perDevice[d][next[d]])
            next[d] += 1
        }
        // Grid corners far off: the grid's own edges, and beyond them.
        for (k, (row, column)) in [(0, 0), (grid.rows, grid.columns), (grid.rows, 0), (0, grid.columns), (grid.rows - 1, grid.columns - 1)].enumerated() {
            let lat = grid.minLatitude + Double(row) * grid.latitudeStep, lon = grid.minLongitude + Double(column) * grid.longitudeStep
            fixes.append(FixSpec(device: k % devices, lat: lat, lon: lon, accuracy: 0, seconds: 1e6 + Double(k)))
        }
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .prepare, .fixes(fixes)], devices: devices)
        #expect(stats.nearThreshold > 150)
        #expect(stats.decided > 50_000)
    }

    // MARK: 5. Many devices, three ways

    /// Forty devices interleaved, each walking by steps of 1 cm to 50 km round Svalbard, across the
    /// 80th parallel (beyond which no anchor is kept), with jumps onto rims and centres; a catalogue
    /// of small and huge circles. Batches large enough for four workers.
    @Test func manyDevicesThreeWays() throws {
        var rng = SplitMix64(seed: 5000)
        let policy = Oracle.policy((0, 1, 4))
        let home = (79.95, 15.0)
        var circles: [Circle] = []
        for k in 0..<50 {
            let centre = Oracle.destination(home, metres: .random(in: 0...3000, using: &rng), bearing: .random(in: 0..<360, using: &rng))
            circles.append(Circle(id: "s\(k)", lat: centre.0, lon: centre.1, radius: Oracle.logUniform(0.01, 2000, &rng),
                                  assuming: [.unknown, .satisfied, .unsatisfied].randomElement(using: &rng)!))
        }
        for (k, radius) in [100_000.0, 1_000_000, 100_000, 1_000_000].enumerated() {
            let centre = Oracle.destination(home, metres: radius + .random(in: -1000...1000, using: &rng), bearing: Double(k) * 97)
            circles.insert(Circle(id: "h\(k)", lat: centre.0, lon: centre.1, radius: radius), at: 8 + k * 12)
        }
        let devices = 40
        var positions = (0..<devices).map { _ in home }
        var fixes: [FixSpec] = []
        var t = [Double](repeating: 0, count: devices)
        for _ in 0..<20_480 {
            let d = Int.random(in: 0..<devices, using: &rng)
            var p = positions[d]
            let accuracy = [0.0, 5, 5, 20, 65, 65, 200, 1000, 100_000, -1].randomElement(using: &rng)!
            switch Int.random(in: 0..<20, using: &rng) {
            case 0:
                let c = circles.randomElement(using: &rng)!
                p = Oracle.destination((c.lat, c.lon), metres: Self.thresholdDistance(c.radius, max(0, accuracy), &rng) * .random(in: 0.5...1.5, using: &rng),
                                     bearing: .random(in: 0..<360, using: &rng))
                if Oracle.haversine(p.0, p.1, home.0, home.1) > 20_000 { p = home }
            case 1:
                p = Oracle.destination(home, metres: .random(in: 0...3000, using: &rng), bearing: .random(in: 0..<360, using: &rng))
            default:
                p = Oracle.destination(p, metres: Oracle.logUniform(0.01, Int.random(in: 0..<10, using: &rng) == 0 ? 50_000 : 30, &rng),
                                     bearing: .random(in: 0..<360, using: &rng))
                if Oracle.haversine(p.0, p.1, home.0, home.1) > 150_000 { p = home }
            }
            positions[d] = p
            fixes.append(FixSpec(device: d, lat: p.0, lon: p.1, accuracy: accuracy, seconds: t[d]))
            t[d] += [0, 0.5, 1, 2, 5].randomElement(using: &rng)!
        }
        let stats = try Oracle.check(policy: policy, steps: [.add(circles), .fixes(Array(fixes[..<16_384])), .fixes(Array(fixes[16_384...]))],
                                   devices: devices, threads: 4)
        #expect(stats.decided > 800_000)
        #expect(stats.satisfiedEvents > 300)
        #expect(stats.anchorAnswered > 2000, "steps must keep anchors as well as break them")
        #expect(stats.anchorAnswered < fixes.count / 2)
    }

    // MARK: 6. Adding and removing between batches

    /// Circles added round devices that are inside them, removed while devices are inside (or waiting
    /// for a confirmation), an identifier re-added, 40 added at once (the cover grid is rebuilt), a
    /// huge circle added and removed; batches in between.
    @Test(arguments: [0.0, 10])
    func addingAndRemovingBetweenBatches(confirmation: Double) throws {
        var rng = SplitMix64(seed: 6000 + UInt64(confirmation))
        let policy = Oracle.policy((0, 1, confirmation))
        let devices = 20
        var live = Self.parisCluster(40, rng: &rng)
        var steps: [Step] = [.add(live)]
        var positions = (0..<devices).map { _ in
            let c = live.randomElement(using: &rng)!
            return Oracle.destination((c.lat, c.lon), metres: c.radius * .random(in: 0...0.5, using: &rng), bearing: .random(in: 0..<360, using: &rng))
        }
        var t = 0.0
        func walk(_ count: Int, rng: inout SplitMix64) -> Step {
            var fixes: [FixSpec] = []
            for n in 0..<count {
                let d = n % devices
                positions[d] = Oracle.destination(positions[d], metres: Oracle.logUniform(0.01, 8, &rng), bearing: .random(in: 0..<360, using: &rng))
                let accuracy = [0.0, 5, 10, 65, -1].randomElement(using: &rng)!
                fixes.append(FixSpec(device: d, lat: positions[d].0, lon: positions[d].1, accuracy: accuracy, seconds: t))
                if d == devices - 1 { t += 1 }
            }
            return .fixes(fixes)
        }
        func containing(_ p: (Double, Double)) -> [Circle] {
            live.filter { Oracle.haversine($0.lat, $0.lon, p.0, p.1) < $0.radius - 20 }
        }
        var fresh = 0
        func around(_ d: Int, radius: Double, assuming: ConditionState, id: String? = nil) -> Circle {
            fresh += 1
            return Circle(id: id ?? "new\(fresh)", lat: positions[d].0, lon: positions[d].1, radius: radius, assuming: assuming)
        }

        steps.append(walk(2000, rng: &rng))
        // Remove circles devices are inside; add circles round devices; re-add a removed identifier elsewhere.
        var removed = Set<String>()
        for d in 0..<6 { for c in containing(positions[d]).prefix(1) where !removed.contains(c.id) { removed.insert(c.id) } }
        live.removeAll { removed.contains($0.id) }
        steps.append(.remove(removed.sorted()))
        var added = (0..<8).map { d in around(d, radius: .random(in: 20...200, using: &rng), assuming: [.unknown, .satisfied, .unsatisfied][d % 3]) }
        added.append(around(9, radius: 150, assuming: .unsatisfied, id: removed.sorted().first))
        added.append(Circle(id: "huge", lat: Self.paris.0, lon: Self.paris.1, radius: 1_000_000, assuming: .unknown))
        added.append(around(10, radius: 0.01, assuming: .unknown))
        live += added
        steps.append(.add(added))
        steps.append(walk(1500, rng: &rng))
        // The huge circle goes, and half the rest; 40 come at once (the grid is rebuilt).
        let gone = ["huge"] + live.filter { $0.id != "huge" }.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.id)
        live.removeAll { gone.contains($0.id) }
        steps.append(.remove(gone))
        var many = Self.parisCluster(40, rng: &rng, prefix: "m")
        many += (0..<devices).map { d in around(d, radius: .random(in: 10...400, using: &rng), assuming: .unknown) }
        live += many
        steps.append(.add(many))
        steps.append(walk(9000, rng: &rng))
        // Everything removed but the devices' own circles; re-added under the old names.
        let keep = Set(many.suffix(devices).map(\.id))
        let rest = live.filter { !keep.contains($0.id) }.map(\.id)
        steps.append(.remove(rest))
        live.removeAll { !keep.contains($0.id) }
        steps.append(.prepare)
        let back = (0..<devices).map { d in around(d, radius: 50, assuming: .satisfied, id: rest[d % rest.count] + (d < rest.count ? "" : "x\(d)")) }
        live += back
        steps.append(.add(back))
        steps.append(walk(3000, rng: &rng))

        let stats = try Oracle.check(policy: policy, steps: steps, devices: devices, threads: 3)
        #expect(stats.satisfiedEvents > 40)
        #expect(stats.decided > 300_000)
    }
}

extension CoverGrid {
    /// The row holding latitude `lat` (unclamped), for placing test fixes on cells.
    fileprivate func row(of lat: Double) -> Int { Int(((lat - minLatitude) / latitudeStep).rounded(.down)) }
    fileprivate func column(of lon: Double) -> Int { Int(((lon - minLongitude) / longitudeStep).rounded(.down)) }
}
