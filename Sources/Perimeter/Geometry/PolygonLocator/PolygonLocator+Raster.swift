import Foundation

// Building the raster: each cell's state, its centre's side (swept along rows), its clearance and the
// blocks of cells (see docs/design/polygon-locator.md).
extension PolygonLocator {
    /// Each cell's details (`cellDetails`): a boundary cell's reference, any other cell's clearance —
    /// the clearance computed in place from which cells are boundary cells, then the sweep
    /// (`sweep(classifying:details:…)`) giving the other cells their states and the boundary cells
    /// their references.
    static func details(classifying cells: inout [UInt8], columns: Int, rows: Int, minX: Double, minY: Double, scaleX: Double,
                        scaleY: Double, vertices: [Double], cellEdgeStart: [Int32], cellEdges: [Int32],
                        stripeCount: Int, stripeScale: Double, stripeStart: [Int32], stripeEdges: [Int32]) -> [UInt8] {
        var details = chebyshevClearance(cells, columns: columns, rows: rows)
        details.withUnsafeMutableBufferPointer { d in
            for k in 0..<d.count { d[k] = d[k] == 0 ? referenceFlag | noReference : min(d[k], clearanceMask) }
        }
        sweep(classifying: &cells, details: &details, columns: columns, rows: rows, minX: minX, minY: minY, scaleX: scaleX,
              scaleY: scaleY, vertices: vertices, cellEdgeStart: cellEdgeStart, cellEdges: cellEdges,
              stripeCount: stripeCount, stripeScale: stripeScale, stripeStart: stripeStart, stripeEdges: stripeEdges)
        return details
    }

    /// The flag of a boundary cell's details, and the mask of a cell's clearance in them.
    private static let referenceFlag: UInt8 = 0x80, clearanceMask: UInt8 = 0x7F

    /// A cell's clearance from its details: 0 for a boundary cell, whose low bits hold its reference
    /// (masked, a centre on the boundary would read as two cells of clearance).
    @inline(__always)
    static func clearance(_ details: UInt8) -> Int {
        details & referenceFlag != 0 ? 0 : Int(details)
    }

    /// Marks every cell an edge comes near (with a sliver of slack, so that rounding in the point's
    /// cell computation can never put a point in a non-boundary cell the boundary touches).
    static func markBoundary(vertices: [Double], ringEdgeCounts: [Int32], into cells: inout [UInt8],
                                     pairs: inout [(cell: Int32, edge: Int32)],
                                     columns: Int, rows: Int,
                                     minX: Double, minY: Double, scaleX: Double, scaleY: Double) {
        let slackX = 1e-6 / scaleX, slackY = 1e-6 / scaleY
        func column(_ x: Double) -> Int { min(columns - 1, max(0, Int(((x - minX) * scaleX).rounded(.down)))) }
        func row(_ y: Double) -> Int { min(rows - 1, max(0, Int(((y - minY) * scaleY).rounded(.down)))) }
        forEachEdgeNumber(ringEdgeCounts) { e in
            let x1 = vertices[2 * e], y1 = vertices[2 * e + 1], x2 = vertices[2 * e + 2], y2 = vertices[2 * e + 3]
            let r0 = row(min(y1, y2) - slackY), r1 = row(max(y1, y2) + slackY)
            for r in r0...r1 {
                // The edge's x-extent within this row's band (widened by the slack).
                let bandLow = minY + Double(r) / scaleY - slackY
                let bandHigh = minY + Double(r + 1) / scaleY + slackY
                var xa: Double, xb: Double
                if y1 == y2 {
                    xa = min(x1, x2); xb = max(x1, x2)
                } else {
                    let ta = min(1, max(0, (bandLow - y1) / (y2 - y1)))
                    let tb = min(1, max(0, (bandHigh - y1) / (y2 - y1)))
                    let xaRaw = x1 + ta * (x2 - x1), xbRaw = x1 + tb * (x2 - x1)
                    xa = min(xaRaw, xbRaw); xb = max(xaRaw, xbRaw)
                }
                let c0 = column(xa - slackX), c1 = column(xb + slackX)
                for c in c0...c1 {
                    cells[r * columns + c] = boundary
                    pairs.append((Int32(r * columns + c), Int32(e)))
                }
            }
        }
    }

    /// The centre of raster cell (`column`, `row`): the same doubles when the raster is built and
    /// when it is queried.
    @inline(__always)
    static func centre(column: Int, row: Int, minX: Double, minY: Double, scaleX: Double, scaleY: Double) -> (Double, Double) {
        (minX + (Double(column) + 0.5) / scaleX, minY + (Double(row) + 0.5) / scaleY)
    }

    /// Each cell's side, row by row from east to west: a centre's side is its eastern neighbour's
    /// centre's, toggled by each edge (of the two cells) that the row's line crosses between them —
    /// GEOS's half-open rule, and two exact orientation signs. East of the last column is outside.
    /// A cell no edge comes near is wholly on its centre's side: its state, which a run of such cells
    /// shares (no edge between them), so only the run's eastern cell is worked out. A boundary cell's
    /// centre side is its reference, in `details` (where each holds the flag and no reference); a
    /// centre on the boundary has none, and the stripe count (`rayCrossingLocation`) restarts the row
    /// west of it. A stripe count per run, as this once was, cost a star's raster most of its build.
    static func sweep(classifying cells: inout [UInt8], details: inout [UInt8], columns: Int, rows: Int, minX: Double, minY: Double,
                      scaleX: Double, scaleY: Double, vertices e: [Double], cellEdgeStart start: [Int32], cellEdges list: [Int32],
                      stripeCount: Int, stripeScale: Double, stripeStart: [Int32], stripeEdges: [Int32]) {
        func location(_ x: Double, _ y: Double) -> Location {
            rayCrossingLocation(x, y, vertices: e, stripeCount: stripeCount, stripeScale: stripeScale, minY: minY,
                                stripeStart: stripeStart, stripeEdges: stripeEdges)
        }
        for r in 0..<rows {
            // The eastern neighbour's side (nil: its centre is on the boundary); outside east of the row.
            var eastSide: UInt8? = outside
            for c in stride(from: columns - 1, through: 0, by: -1) {
                let cell = r * columns + c
                let isBoundary = cells[cell] == boundary
                if !isBoundary && c + 1 < columns && cells[cell + 1] != boundary {
                    cells[cell] = cells[cell + 1]
                    continue
                }
                // (Centres only where needed: computing one for every cell was most of the sweep.)
                let (qx, qy) = centre(column: c, row: r, minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY)
                let eastX = c + 1 < columns ? centre(column: c + 1, row: r, minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY).0
                    : Double.infinity
                var onBoundary = false
                var side: UInt8
                if let known = eastSide {
                    side = known
                    // The edges of this cell and of the eastern one (each once: both lists ascend).
                    let east = c + 1 < columns ? cell + 1 : cell
                    var i = Int(start[cell]), j = Int(start[east])
                    let iEnd = Int(start[cell + 1]), jEnd = east == cell ? j : Int(start[east + 1])
                    while i < iEnd || j < jEnd {
                        let edge: Int32
                        if j >= jEnd || (i < iEnd && list[i] <= list[j]) {
                            edge = list[i]
                            if j < jEnd && list[j] == edge { j += 1 }
                            i += 1
                        } else {
                            edge = list[j]
                            j += 1
                        }
                        let base = Int(edge) * 2
                        let x1 = e[base], y1 = e[base + 1], x2 = e[base + 2], y2 = e[base + 3]
                        if (qx == x1 && qy == y1) || (qx == x2 && qy == y2) { onBoundary = true; break }
                        if y1 == qy && y2 == qy {
                            if qx >= min(x1, x2) && qx <= max(x1, x2) { onBoundary = true; break }
                            continue
                        }
                        guard (y1 > qy) != (y2 > qy) else { continue }
                        let here = RobustOrientation.index(x1, y1, x2, y2, qx, qy)
                        if here == 0 { onBoundary = true; break }
                        let crossesBetween: Bool
                        if eastX.isInfinite {
                            crossesBetween = (y2 < y1 ? -here : here) > 0  // GEOS's rule: east of the centre
                        } else {
                            crossesBetween = (here > 0) != (RobustOrientation.index(x1, y1, x2, y2, eastX, qy) > 0)
                        }
                        if crossesBetween { side ^= 1 }
                    }
                } else {
                    let found = location(qx, qy)
                    onBoundary = found == .boundary
                    side = found == .inside ? inside : outside
                }
                if isBoundary {
                    eastSide = onBoundary ? nil : side
                    if !onBoundary { details[cell] = referenceFlag | side }
                } else {
                    // (No edge comes near a cell that is not a boundary cell, nor so its centre.)
                    let state = onBoundary ? (location(qx, qy) != .outside ? inside : outside) : side
                    cells[cell] = state
                    eastSide = state
                }
            }
        }
    }

    static let noReference: UInt8 = 2

    /// Each block's state: its cells' if they all agree (inside or outside), else boundary.
    static func blocks(of cells: [UInt8], columns: Int, rows: Int, blockColumns: Int) -> [UInt8] {
        let blockRows = (rows + (1 << blockShift) - 1) >> blockShift
        var blocks = [UInt8](repeating: 255, count: blockColumns * blockRows)  // (255: no cell seen yet)
        let width = 1 << blockShift
        blocks.withUnsafeMutableBufferPointer { blocks in
            cells.withUnsafeBufferPointer { cells in
                let raw = UnsafeRawPointer(cells.baseAddress!)
                for r in 0..<rows {
                    let blockRow = (r >> blockShift) * blockColumns, row = r * columns
                    for b in 0..<blockColumns {
                        let first = row + b * width, count = min(width, columns - b * width)
                        // A whole row of a block in one load: all inside, all outside, or mixed.
                        let state: UInt8
                        if count == width {
                            let eight = raw.loadUnaligned(fromByteOffset: first, as: UInt64.self)
                            state = eight == 0 ? outside : eight == 0x0101_0101_0101_0101 ? inside : boundary
                        } else {
                            let s = cells[first]
                            state = (first..<(first + count)).allSatisfy { cells[$0] == s } ? s : boundary
                        }
                        let k = blockRow + b
                        if blocks[k] == 255 { blocks[k] = state } else if blocks[k] != state { blocks[k] = boundary }
                    }
                }
            }
        }
        return blocks
    }

    /// Chebyshev distance (in cells) from each cell to the nearest boundary cell, capped at 254 (a
    /// reading uses at most 127): two passes, each row first from the row before it (its three
    /// nearest cells, sixteen cells at a time) and then along itself, where each cell waits on the
    /// one before, skipping sixteen cells at once where that changes none. The same values as the
    /// plain two-pass transform — a cell's west neighbour is final before it is read — at a fraction
    /// of its time: on [Int], cell by cell, it was a tenth of the airspace workload's set-up.
    static func chebyshevClearance(_ cells: [UInt8], columns: Int, rows: Int) -> [UInt8] {
        var result = cells.map { $0 == boundary ? 0 : 254 as UInt8 }
        result.withUnsafeMutableBufferPointer { d in
            // Each row from a neighbouring row `from` (its three cells nearest each cell), then along
            // the row from `first` by `step` (±1).
            func sweep(_ row: Int, from neighbour: Int?, first: Int, step: Int) {
                let base = row * columns
                if let neighbour {
                    let other = neighbour * columns, last = columns - 1
                    // (The ends apart, so that the loop between has no branch.)
                    let west = min(d[base], d[other] &+ 1, d[other + min(1, last)] &+ 1)
                    let east = min(d[base + last], d[other + last] &+ 1, d[other + max(0, last - 1)] &+ 1)
                    // Sixteen cells at a time (the compiler cannot tell the two rows apart, and kept
                    // this loop scalar), then the rest one by one.
                    var c = 1
                    if let p = UnsafeMutableRawPointer(d.baseAddress) {
                        let one = SIMD16<UInt8>(repeating: 1)
                        while c + 16 <= last {
                            var v = p.loadUnaligned(fromByteOffset: base + c, as: SIMD16<UInt8>.self)
                            v = pointwiseMin(v, p.loadUnaligned(fromByteOffset: other + c - 1, as: SIMD16<UInt8>.self) &+ one)
                            v = pointwiseMin(v, p.loadUnaligned(fromByteOffset: other + c, as: SIMD16<UInt8>.self) &+ one)
                            v = pointwiseMin(v, p.loadUnaligned(fromByteOffset: other + c + 1, as: SIMD16<UInt8>.self) &+ one)
                            p.storeBytes(of: v, toByteOffset: base + c, as: SIMD16<UInt8>.self)
                            c += 16
                        }
                    }
                    while c < last {
                        d[base + c] = min(d[base + c], d[other + c - 1] &+ 1, d[other + c] &+ 1, d[other + c + 1] &+ 1)
                        c += 1
                    }
                    d[base] = west
                    d[base + last] = east
                }
                // Along the row, sixteen cells at a time where none is more than one above the cell
                // before it (the cell before the sixteen already final): the chain changes none of
                // them, which far from the boundary is every cell. Else one by one.
                var c = first + step
                let end = step > 0 ? columns : -1
                let raw = UnsafeMutableRawPointer(d.baseAddress!)
                let one = SIMD16<UInt8>(repeating: 1)
                while c != end {
                    let low = step > 0 ? c : c - 15
                    if low >= 0 && low + 16 <= columns {
                        let cells16 = raw.loadUnaligned(fromByteOffset: base + low, as: SIMD16<UInt8>.self)
                        let before16 = raw.loadUnaligned(fromByteOffset: base + low - step, as: SIMD16<UInt8>.self)
                        if all(cells16 .<= before16 &+ one) {
                            c += 16 * step
                            continue
                        }
                    }
                    let stop = step > 0 ? min(c + 16, end) : max(c - 16, end)
                    while c != stop {
                        d[base + c] = min(d[base + c], d[base + c - step] &+ 1)
                        c += step
                    }
                }
            }
            for r in 0..<rows { sweep(r, from: r > 0 ? r - 1 : nil, first: 0, step: 1) }
            for r in stride(from: rows - 1, through: 0, by: -1) {
                sweep(r, from: r + 1 < rows ? r + 1 : nil, first: columns - 1, step: -1)
            }
        }
        return result
    }
}
