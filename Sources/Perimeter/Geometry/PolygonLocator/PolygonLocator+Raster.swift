import Foundation

// Building the raster: each cell's state, its centre's side (swept along rows), its clearance and the
// blocks of cells (see docs/design/polygon-locator.md).
extension PolygonLocator {
    /// Each cell's details (`cellDetails`): a boundary cell's reference, any other cell's clearance.
    static func details(states: [UInt8], references: [UInt8], clearance: [UInt8]) -> [UInt8] {
        states.indices.map { k in states[k] == boundary ? referenceFlag | references[k] : min(clearance[k], clearanceMask) }
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

    /// Each boundary cell's reference, row by row from east to west: a centre's side is its eastern
    /// neighbour's centre's, toggled by each edge (of the two cells) that the row's line crosses
    /// between them — GEOS's half-open rule, and two exact orientation signs. East of the last
    /// column is outside. A centre on the boundary has no reference, and the stripe count (as in
    /// `references`, the plain version) restarts the row west of it. Cheaper than a stripe count per
    /// cell on polygons whose stripes list many edges (a 4,096-vertex star: 0.7 s).
    static func sweptReferences(cells: [UInt8], columns: Int, rows: Int, minX: Double, minY: Double, scaleX: Double,
                                        scaleY: Double, vertices e: [Double], cellEdgeStart start: [Int32], cellEdges list: [Int32],
                                        stripeCount: Int, stripeScale: Double, stripeStart: [Int32], stripeEdges: [Int32]) -> [UInt8] {
        var references = [UInt8](repeating: noReference, count: cells.count)
        for r in 0..<rows {
            // The eastern neighbour's centre: its x and side (nil: on the boundary); none east of the row.
            var eastX = Double.infinity
            var eastSide: UInt8? = outside
            for c in stride(from: columns - 1, through: 0, by: -1) {
                let cell = r * columns + c
                let (qx, qy) = centre(column: c, row: r, minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY)
                defer { eastX = qx }
                if cells[cell] != boundary {
                    eastSide = cells[cell]
                    continue
                }
                guard var side = eastSide else {
                    switch rayCrossingLocation(qx, qy, vertices: e, stripeCount: stripeCount, stripeScale: stripeScale, minY: minY,
                                               stripeStart: stripeStart, stripeEdges: stripeEdges) {
                    case .inside: eastSide = inside
                    case .outside: eastSide = outside
                    case .boundary: eastSide = nil
                    }
                    if let known = eastSide { references[cell] = known }
                    continue
                }
                // The edges of this cell and of the eastern one (each once: both lists ascend).
                var onBoundary = false
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
                if onBoundary {
                    eastSide = nil
                } else {
                    references[cell] = side
                    eastSide = side
                }
            }
        }
        return references
    }

    static let noReference: UInt8 = 2

    /// Each block's state: its cells' if they all agree (inside or outside), else boundary.
    static func blocks(of cells: [UInt8], columns: Int, rows: Int, blockColumns: Int) -> [UInt8] {
        let blockRows = (rows + (1 << blockShift) - 1) >> blockShift
        var blocks = [UInt8](repeating: 255, count: blockColumns * blockRows)  // (255: no cell seen yet)
        for r in 0..<rows {
            for c in 0..<columns {
                let b = (r >> blockShift) * blockColumns + (c >> blockShift), state = cells[r * columns + c]
                if blocks[b] == 255 { blocks[b] = state } else if blocks[b] != state { blocks[b] = boundary }
            }
        }
        return blocks
    }

    /// Chebyshev distance (in cells) from each cell to the nearest boundary cell, two passes.
    static func chebyshevClearance(_ cells: [UInt8], columns: Int, rows: Int) -> [UInt8] {
        var d = cells.map { $0 == boundary ? 0 : 255 }
        for r in 0..<rows {
            for c in 0..<columns {
                var v = d[r * columns + c]
                if v == 0 { continue }
                if c > 0 { v = min(v, d[r * columns + c - 1] + 1) }
                if r > 0 {
                    v = min(v, d[(r - 1) * columns + c] + 1)
                    if c > 0 { v = min(v, d[(r - 1) * columns + c - 1] + 1) }
                    if c + 1 < columns { v = min(v, d[(r - 1) * columns + c + 1] + 1) }
                }
                d[r * columns + c] = v
            }
        }
        for r in stride(from: rows - 1, through: 0, by: -1) {
            for c in stride(from: columns - 1, through: 0, by: -1) {
                var v = d[r * columns + c]
                if v == 0 { continue }
                if c + 1 < columns { v = min(v, d[r * columns + c + 1] + 1) }
                if r + 1 < rows {
                    v = min(v, d[(r + 1) * columns + c] + 1)
                    if c > 0 { v = min(v, d[(r + 1) * columns + c - 1] + 1) }
                    if c + 1 < columns { v = min(v, d[(r + 1) * columns + c + 1] + 1) }
                }
                d[r * columns + c] = v
            }
        }
        return d.map { UInt8(min($0, 255)) }
    }
}
