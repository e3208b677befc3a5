import CBuiltins
import Foundation

// A fix's cell and the entries it lists.
extension CoverGrid {
    var isEmpty: Bool { rows == 0 }

    /// A key that orders points cell by cell (row-major), for processing nearby fixes together.
    @inline(__always)
    func sortKey(_ c: Coordinate) -> UInt32 {
        guard rows > 0 else { return 0 }
        let r = min(rows - 1, max(0, Int((c.latitude - minLatitude) / latitudeStep)))
        let col = min(columns - 1, max(0, Int((c.longitude - minLongitude) / longitudeStep)))
        return UInt32(truncatingIfNeeded: r * columns + col)
    }

    /// The positions of the entries of the cell holding `c` (see `entry(_:)`), or an empty range
    /// outside the grid; and `offset`, an upper bound on the distance in metres from `c` to the
    /// cell's centre, so that `c` is at least an entry's clearance less `offset` from its boundary,
    /// on the centre's side (`need(_:)` turns `offset` plus a margin into what an entry must store).
    @inline(__always)
    func entries(at c: Coordinate) -> (range: Range<Int>, offset: Double) {
        guard let (r, col) = rowAndColumn(at: c) else { return (0..<0, 0) }
        let cell = r * columns + col
        // The centre as classified may differ from this one in its last bits: a millimetre more.
        let dPhi = ((minLatitude + (Double(r) + 0.5) * latitudeStep) - c.latitude) * Geodesy.radiansPerDegree
        let dLambda = ((minLongitude + (Double(col) + 0.5) * longitudeStep) - c.longitude) * Geodesy.radiansPerDegree
        let offset = Geodesy.shortDistanceBound(dPhi: dPhi, dLambda: dLambda, cosLatitude: rowCos[r])
            .map { min(rowHalfDiagonal[r], $0 + 0.001) } ?? rowHalfDiagonal[r]
        return (Int(cellStart[cell])..<Int(cellStart[cell + 1]), offset)
    }

    /// The row and column of the cell holding `c`, or nil outside the grid or for a point that is
    /// not a finite position (a batch may ask for any point ahead of its turn).
    @inline(__always)
    private func rowAndColumn(at c: Coordinate) -> (Int, Int)? {
        guard rows > 0, c.latitude >= minLatitude, c.longitude >= minLongitude,
              c.latitude.isFinite, c.longitude.isFinite else { return nil }
        var r = Int((c.latitude - minLatitude) / latitudeStep)
        var col = Int((c.longitude - minLongitude) / longitudeStep)
        // The cell a point rounds into must be the cell whose box was classified: guard the edges.
        // A point on the area's far edge lies on its last cell's box (it would round past it).
        if r == rows && c.latitude <= maxLatitude { r = rows - 1 }
        if col == columns && c.longitude <= maxLongitude { col = columns - 1 }
        guard r < rows, col < columns else { return nil }
        return (r, col)
    }

    /// The cell holding `c`, as `entries(at:)` finds it.
    @inline(__always)
    private func cell(at c: Coordinate) -> Int? {
        rowAndColumn(at: c).map { $0.0 * columns + $0.1 }
    }

    /// Asks for where the entries of the cell holding `c` are, ahead of `prefetchEntries(at:)`.
    @inline(__always)
    func prefetchCell(at c: Coordinate) {
        guard let cell = cell(at: c) else { return }
        cellStart.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + cell) }
    }

    /// Asks for the first entries of the cell holding `c`, ahead of `entries(at:)`.
    @inline(__always)
    func prefetchEntries(at c: Coordinate) {
        guard let cell = cell(at: c) else { return }
        let first = Int(cellStart[cell])
        guard first < entries.count else { return }
        entries.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + first) }
    }

    /// What an entry must store to decide a point `metres` (its offset from the cell's centre plus
    /// its margin) from its cell's centre.
    @inline(__always)
    func need(_ metres: Double) -> Need { packing.need(metres) }

    /// The clearance entry `e` stores, in metres: a lower bound on its condition's distance from the
    /// cell's centre, on the centre's side.
    @inline(__always)
    func clearance(_ e: Entry) -> Double { packing.clearance(e) }

    /// The entry of `condition` among `range` (a cell's, from `entries(at:)`), if the cell lists it:
    /// a cell lists its conditions in ascending order.
    @inline(__always)
    func entry(of condition: Int32, in range: Range<Int>) -> Entry? {
        var low = range.lowerBound, high = range.upperBound
        let shift = packing.codeBits, key = UInt32(bitPattern: condition)
        while low < high {
            let mid = (low + high) / 2
            if entries[mid] >> shift < key { low = mid + 1 } else { high = mid }
        }
        guard low < range.upperBound, entries[low] >> shift == key else { return nil }
        return packing.unpack(entries[low])
    }

    /// Entry `k` of a range `entries(at:)` gave. (Positions rather than a slice: a slice would retain
    /// the array on each fix.)
    @inline(__always)
    func entry(_ k: Int) -> Entry { packing.unpack(entries[k]) }
}
