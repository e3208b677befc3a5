import PerimeterTestSupport
import Testing
@testable import Perimeter

/// The cover grid's four-byte entries: what a query reads back must be the condition, the centre's
/// side, and a clearance that never exceeds the one classified (else a fix would be decided without
/// the test it needs).
@Suite struct CoverGridEntryTests {
    @Test(arguments: [1, 1_000, 1 << 20, (1 << 20) + 1, 1 << 24, CoverGrid.EntryCode.largestCatalogue])
    func entriesKeepTheirConditionSideAndALowerBound(conditions count: Int) {
        var rng = SplitMix64(seed: UInt64(count))
        let largest = 250.0
        let code = CoverGrid.EntryCode(conditions: count, largestClearance: largest)
        let sides: [CoverGrid.Relation] = [.inside, .outside, .crossed]
        for _ in 0..<20_000 {
            let condition = Int32(Int.random(in: 0..<count, using: &rng))
            let side = sides.randomElement(using: &rng)!
            let clearance = side == .crossed ? 0 : Double.random(in: 0...(largest * 1.5), using: &rng)
            let entry = code.unpack(code.pack(condition: condition, side: side, clearance: clearance))
            #expect(entry.condition == condition)
            let stored = code.clearance(entry)
            #expect(stored <= clearance)
            if side != .crossed { #expect(stored > min(clearance, largest) - code.unit * 1.000001) }
            // Decided exactly when the stored clearance is more than what is asked, on the right side.
            let metres = Double.random(in: 0...(largest * 1.2), using: &rng)
            let decides = entry.decides(code.need(metres))
            if decides {
                #expect(stored > metres)
                #expect(entry.isInside == (side == .inside))
            } else if side != .crossed {
                #expect(stored <= metres + code.unit * 1e-9)
            }
            #expect(!entry.decides(code.need(0)) || side != .crossed)
        }
        // The larger the catalogue, the coarser the steps, but never fewer than 127.
        #expect(code.unit <= largest / 127 * 1.000001)
    }

    /// A clearance at the cap decides every point closer than the largest clearance the grid stores
    /// (the cells' half-diagonal plus the reach).
    @Test func cappedClearancesDecideEverythingBelowTheCap() {
        let code = CoverGrid.EntryCode(conditions: 1 << 24, largestClearance: 300)
        let entry = code.unpack(code.pack(condition: 7, side: .outside, clearance: 10_000))
        for metres in stride(from: 0.0, to: 300 - code.unit, by: 0.37) {
            #expect(entry.decides(code.need(metres)), "\(metres)")
        }
        #expect(!entry.decides(code.need(300)))
    }
}
