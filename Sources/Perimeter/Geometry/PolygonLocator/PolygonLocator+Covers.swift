import CBuiltins
import Foundation

// The point-in-polygon queries: one point, and batches answered in passes (blocks, cells, edges).
extension PolygonLocator {
    /// Whether the (multi)polygon covers the point (x = longitude, y = latitude), boundary included —
    /// exactly GEOS's answer.
    @inline(__always)
    func covers(_ x: Double, _ y: Double) -> Bool {
        let raster = self.raster
        let (state, cell) = blocks.withUnsafeBufferPointer { blocks in
            cells.withUnsafeBufferPointer { cells in raster.firstLevel(x, y, raster.blockColumns > 0 ? blocks : cells) }
        }
        if state != Self.boundary { return state == Self.inside }
        if raster.blockColumns > 0 {
            let cellState = cells[cell]
            if cellState != Self.boundary { return cellState == Self.inside }
        }
        return cellCovers(x, y, cell: cell)
    }

    /// Asks for the raster data a reading at (x, y) starts from: the cell's state (or its block's),
    /// details (reference or clearance) and edge-list start, which sit in separate arrays, so that
    /// their waits overlap instead of following one another.
    @inline(__always)
    func prefetch(_ x: Double, _ y: Double) {
        let (column, row) = raster.columnAndRow(x, y)
        let cell = row * columns + column
        if blockColumns > 0 {
            blocks.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + (row >> Self.blockShift) * blockColumns + (column >> Self.blockShift)) }
        }
        cells.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + cell) }
        cellDetails.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + cell) }
        if smallEdgeStart.isEmpty {
            cellEdgeStart.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + cell) }
        } else {
            smallEdgeStart.withUnsafeBufferPointer { perimeter_prefetch($0.baseAddress! + cell) }
        }
    }

    /// `covers(_:_:)` for each of `points` (x = longitude, y = latitude), into `covered`: the same
    /// answers, in passes without unpredictable branches. Whether a point is inside or outside is a
    /// coin toss for a branch, so the first pass writes each point's answer from its block (or
    /// cell) as data and lists the points it leaves open; the second reads their cells; the exact
    /// edge tests come last, for the points in boundary cells.
    func covers(_ points: UnsafeBufferPointer<Coordinate>, into covered: UnsafeMutableBufferPointer<Bool>) {
        precondition(covered.count >= points.count && points.count <= Int(Int32.max), "an answer for each of fewer than 2³¹ points")
        let raster = self.raster
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * points.count) { scratch in
            // (Written before read: no need to initialize.)
            covers(points, into: covered, raster: raster, open: UnsafeMutableBufferPointer(rebasing: scratch[..<points.count]),
                   openCells: UnsafeMutableBufferPointer(rebasing: scratch[points.count...]))
        }
    }

    func covers(_ points: UnsafeBufferPointer<Coordinate>, into covered: UnsafeMutableBufferPointer<Bool>, raster: Raster,
                        open: UnsafeMutableBufferPointer<Int32>, openCells: UnsafeMutableBufferPointer<Int32>) {
        var openCount = 0
        blocks.withUnsafeBufferPointer { blocks in
            cells.withUnsafeBufferPointer { cells in
                let first = raster.blockColumns > 0 ? blocks : cells
                for k in points.indices {
                    let (state, cell) = raster.firstLevel(points[k].longitude, points[k].latitude, first)
                    covered[k] = state == Self.inside
                    open[openCount] = Int32(truncatingIfNeeded: k)
                    openCells[openCount] = Int32(truncatingIfNeeded: cell)
                    openCount += state == Self.boundary ? 1 : 0
                }
                if raster.blockColumns > 0 {
                    // Points in mixed blocks: their cells.
                    var stillOpen = 0
                    for n in 0..<openCount {
                        let k = Int(open[n]), cell = Int(openCells[n])
                        let state = cells[cell]
                        covered[k] = state == Self.inside
                        open[stillOpen] = open[n]
                        openCells[stillOpen] = openCells[n]
                        stillOpen += state == Self.boundary ? 1 : 0
                    }
                    openCount = stillOpen
                }
            }
        }
        // Each point's cell data is read from a raster too large for the nearer caches, in a chain
        // (reference and list start, then the list, then the edges): each link of the chain of a
        // point some way ahead is asked for first, so that the waits of several points overlap.
        guard openCount > 0 else { return }
        if smallEdges.isEmpty {
            coversOpen(points, into: covered, open: open, openCells: openCells, openCount: openCount, start: cellEdgeStart, list: cellEdges)
        } else {
            coversOpen(points, into: covered, open: open, openCells: openCells, openCount: openCount, start: smallEdgeStart, list: smallEdges)
        }
    }

    /// The points the batch `covers` left open (in boundary cells), with the cells' edge lists in
    /// `start` and `list` (either width).
    private func coversOpen<Index: FixedWidthInteger>(_ points: UnsafeBufferPointer<Coordinate>,
                                                      into covered: UnsafeMutableBufferPointer<Bool>,
                                                      open: UnsafeMutableBufferPointer<Int32>, openCells: UnsafeMutableBufferPointer<Int32>,
                                                      openCount: Int, start: [Index], list: [Index]) {
        cellDetails.withUnsafeBufferPointer { details in
            start.withUnsafeBufferPointer { start in
                list.withUnsafeBufferPointer { list in
                    // (A point is open only in a boundary cell, which lists its edges: none is empty.)
                    let detailBase = details.baseAddress!, startBase = start.baseAddress!
                    let listBase = list.baseAddress!, edgeBase = vertices.withUnsafeBufferPointer { $0.baseAddress! }
                    for n in 0..<openCount {
                        if n + Self.edgesAhead < openCount {
                            perimeter_prefetch(edgeBase + 2 * Int(list[Int(start[Int(openCells[n + Self.edgesAhead])])]))
                        }
                        if n + Self.listAhead < openCount {
                            perimeter_prefetch(listBase + Int(start[Int(openCells[n + Self.listAhead])]))
                        }
                        if n + Self.cellAhead < openCount {
                            let cell = Int(openCells[n + Self.cellAhead])
                            perimeter_prefetch(detailBase + cell)
                            perimeter_prefetch(startBase + cell)
                        }
                        let k = Int(open[n])
                        covered[k] = cellCovers(points[k].longitude, points[k].latitude, cell: Int(openCells[n]))
                    }
                }
            }
        }
    }

    /// How far ahead of the point being answered its cell's reference and list start, its list, and
    /// its first edge are asked for.
    static let cellAhead = 16, listAhead = 8, edgesAhead = 4

    /// The raster's scalars, as a value that a batch keeps in registers (the compiler reloads a
    /// class's fields around every call it cannot see into).
    struct Raster {
        let minX: Double, minY: Double, maxX: Double, maxY: Double, scaleX: Double, scaleY: Double
        let columns: Int, rows: Int, blockColumns: Int

        /// The state of the point's block, or of its cell when `first` is the raster (an outside
        /// state for a point outside the box or not a number), and the point's cell.
        @inline(__always)
        func firstLevel(_ x: Double, _ y: Double, _ first: UnsafeBufferPointer<UInt8>) -> (UInt8, Int) {
            let inBox = x >= minX && x <= maxX && y >= minY && y <= maxY
            let (c, r) = columnAndRow(x, y)
            let cell = r * columns + c
            let index = blockColumns > 0 ? (r >> PolygonLocator.blockShift) * blockColumns + (c >> PolygonLocator.blockShift) : cell
            return (inBox ? first[index] : PolygonLocator.outside, cell)
        }

        /// The column and row of the cell holding (x, y), clamped both ways, so that a point outside
        /// the box (or NaN) still names a cell.
        @inline(__always)
        func columnAndRow(_ x: Double, _ y: Double) -> (Int, Int) {
            (max(0, min(columns - 1, perimeter_truncate((x - minX) * scaleX))),
             max(0, min(rows - 1, perimeter_truncate((y - minY) * scaleY))))
        }
    }

    var raster: Raster {
        Raster(minX: minX, minY: minY, maxX: maxX, maxY: maxY, scaleX: cellScaleX, scaleY: cellScaleY,
               columns: columns, rows: rows, blockColumns: blockColumns)
    }

    /// The answer for a point p in a boundary cell whose centre q has a reference: q's side, changed
    /// by every edge that crosses the path from p along its row to m (q's column), then along that
    /// column to q. The path stays in the cell, so only the cell's edges can cross it, and each
    /// crossing is decided exactly: an edge that the row (or column) line crosses, by GEOS's
    /// half-open rule, crosses the path's leg when the leg's ends lie on opposite sides of it (two
    /// orientation signs). p on the boundary is found as GEOS finds it; a path through a vertex or
    /// along an edge (m on the boundary) takes the row walk instead.
    @inline(never)
    func cellCovers(_ x: Double, _ y: Double, cell: Int) -> Bool {
        smallEdges.isEmpty ? cellCovers(x, y, cell: cell, start: cellEdgeStart, list: cellEdges)
            : cellCovers(x, y, cell: cell, start: smallEdgeStart, list: smallEdges)
    }

    @inline(__always)
    func cellCovers<Index: FixedWidthInteger>(_ x: Double, _ y: Double, cell: Int, start edgeStart: [Index],
                                                      list edgeList: [Index]) -> Bool {
        let reference = cellDetails[cell] & 3
        guard reference != Self.noReference else { return rowCovers(x, y, cell: cell) }
        let (qx, qy) = Self.centre(column: cell % columns, row: cell / columns, minX: minX, minY: minY, scaleX: cellScaleX, scaleY: cellScaleY)
        let start = Int(edgeStart[cell]), end = Int(edgeStart[cell + 1])
        var inside = reference == Self.inside
        let found: Bool? = vertices.withUnsafeBufferPointer { e in
            edgeList.withUnsafeBufferPointer { list in
                for i in start..<end {
                    let base = Int(list[i]) * 2
                    let x1 = e[base], y1 = e[base + 1], x2 = e[base + 2], y2 = e[base + 3]
                    if (x == x1 && y == y1) || (x == x2 && y == y2) { return true }  // p on a vertex
                    if y1 == y && y2 == y {  // along the row: p or m on it, else it crosses nothing
                        if x >= min(x1, x2) && x <= max(x1, x2) { return true }
                        if qx >= min(x1, x2) && qx <= max(x1, x2) { return nil }
                        continue
                    }
                    var mSide = 0
                    if (y1 > y) != (y2 > y) {  // the row's line crosses the edge (GEOS's half-open rule)
                        let pSide = RobustOrientation.index(x1, y1, x2, y2, x, y)
                        if pSide == 0 { return true }  // p on the edge
                        mSide = RobustOrientation.index(x1, y1, x2, y2, qx, y)
                        if mSide == 0 { return nil }
                        if (pSide > 0) != (mSide > 0) { inside.toggle() }
                    }
                    if (x1 > qx) != (x2 > qx) {  // the column's line crosses the edge
                        if mSide == 0 { mSide = RobustOrientation.index(x1, y1, x2, y2, qx, y) }
                        let qSide = RobustOrientation.index(x1, y1, x2, y2, qx, qy)
                        if mSide == 0 || qSide == 0 { return nil }
                        if (mSide > 0) != (qSide > 0) { inside.toggle() }
                    } else if x1 == qx && x2 == qx && y >= min(y1, y2) && y <= max(y1, y2) {
                        return nil  // m on an edge along the column
                    }
                }
                return false
            }
        }
        guard let found else { return rowCovers(x, y, cell: cell) }
        return found || inside
    }

    /// The answer for a point in a boundary cell, from a ray along its raster row: the ray to the
    /// right crosses edges listed in the boundary cells up to the first cell that is not a boundary
    /// cell (an edge crossing further right would pass through that cell, which no edge comes near),
    /// and from there on crosses as often as that cell's state says (odd inside, none past the last
    /// column). So GEOS's count over those few edges, plus that cell's state, is GEOS's answer — the
    /// stripe's whole width is not needed. The ray to the left serves as well (GEOS's count on the
    /// polygon mirrored east–west, whose orientations are exactly the negated ones), so the shorter
    /// run of boundary cells is taken. An edge is listed in a run of adjacent cells of the row; it
    /// counts in the first of them only. Falls back to the stripe on rows with very many edges.
    /// (Kept out of line, so that `covers` is small enough to be inlined for the common case.)
    @inline(never)
    private func rowCovers(_ x: Double, _ y: Double, cell: Int) -> Bool {
        smallEdges.isEmpty ? rowCovers(x, y, cell: cell, start: cellEdgeStart, list: cellEdges)
            : rowCovers(x, y, cell: cell, start: smallEdgeStart, list: smallEdges)
    }

    @inline(__always)
    private func rowCovers<Index: FixedWidthInteger>(_ x: Double, _ y: Double, cell: Int, start: [Index], list: [Index]) -> Bool {
        let cells = self.cells
        let rowStart = cell - cell % columns, rowEnd = rowStart + columns
        var right = cell + 1, left = cell - 1
        while right < rowEnd && left >= rowStart && cells[right] == Self.boundary && cells[left] == Self.boundary {
            // A long run both ways (a row along a horizontal edge, say): the point's stripe instead.
            if right - cell == Self.longestRun { return stripeCovers(x, y) }
            right += 1
            left -= 1
        }
        let rightward = right >= rowEnd || cells[right] != Self.boundary
        // The run's cells are lo..<hi; `beyond` is the first cell past it, if in the row.
        let (lo, hi) = rightward ? (cell, right) : (left + 1, cell + 1)
        guard Int(start[hi] - start[lo]) <= 256 else { return stripeCovers(x, y) }
        let beyond = rightward ? (right < rowEnd ? right : nil) : (left >= rowStart ? left : nil)
        var crossings = beyond.map { cells[$0] == Self.inside } == true ? 1 : 0
        let sign = rightward ? 1.0 : -1.0
        return vertices.withUnsafeBufferPointer { e in
            for n in 0..<(hi - lo) {
                let k = rightward ? lo + n : hi - 1 - n
                // Both lists ascend by edge number: walk the previous cell's alongside, to skip edges
                // already counted there.
                let previousCell = rightward ? k - 1 : k + 1
                var previous = n > 0 ? Int(start[previousCell]) : 0
                let previousEnd = n > 0 ? Int(start[previousCell + 1]) : 0
                for i in Int(start[k])..<Int(start[k + 1]) {
                    let edge = list[i]
                    while previous < previousEnd && list[previous] < edge { previous += 1 }
                    if previous < previousEnd && list[previous] == edge { continue }
                    let base = Int(edge) * 2
                    switch Self.crossing(sign * x, y, sign * e[base], e[base + 1], sign * e[base + 2], e[base + 3]) {
                    case .onBoundary: return true
                    case .crosses: crossings += 1
                    case .none: break
                    }
                }
            }
            return crossings & 1 == 1
        }
    }

    /// Polygons of at most this many edges have a single stripe.
    static let fewStripedEdges = 64

    /// Boundary cells a row walk takes each way before `rowCovers` uses the stripe instead.
    static let longestRun = 16

    /// What one edge does to GEOS's ray-crossing count for a point.
    private enum Crossing {
        case none, crosses, onBoundary
    }

    /// GEOS's `RayCrossingCounter.countSegment` for one edge.
    @inline(__always)
    private static func crossing(_ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Crossing {
        if x1 < x && x2 < x { return .none }  // wholly left of the point
        if x == x2 && y == y2 { return .onBoundary }  // on a vertex
        if y1 == y && y2 == y {  // horizontal edge: on it, or not counted
            return x >= min(x1, x2) && x <= max(x1, x2) ? .onBoundary : .none
        }
        // Upward edges include their start, downward edges their end.
        guard (y1 > y && y2 <= y) || (y2 > y && y1 <= y) else { return .none }
        var orientation = RobustOrientation.index(x1, y1, x2, y2, x, y)
        if orientation == 0 { return .onBoundary }  // on the edge
        if y2 < y1 { orientation = -orientation }
        return orientation > 0 ? .crosses : .none
    }

    /// The answer without the raster: GEOS's ray-crossing count over the edges of the point's stripe.
    func stripeCovers(_ x: Double, _ y: Double) -> Bool {
        Self.rayCrossingCovers(x, y, vertices: vertices, stripeCount: stripeCount, stripeScale: stripeScale, minY: minY,
                               stripeStart: self.stripeStart, stripeEdges: self.stripeEdges)
    }

    /// GEOS's `RayCrossingCounter.countSegment` over the edges of the point's stripe.
    @inline(__always)
    static func rayCrossingCovers(_ x: Double, _ y: Double, vertices: [Double], stripeCount: Int, stripeScale: Double,
                                          minY: Double, stripeStart: [Int32], stripeEdges: [Int32]) -> Bool {
        rayCrossingLocation(x, y, vertices: vertices, stripeCount: stripeCount, stripeScale: stripeScale, minY: minY,
                            stripeStart: stripeStart, stripeEdges: stripeEdges) != .outside
    }

    /// Where a point lies.
    enum Location {
        case inside, outside, boundary
    }

    /// Where GEOS's count over the edges of the point's stripe puts it.
    static func rayCrossingLocation(_ x: Double, _ y: Double, vertices: [Double], stripeCount: Int, stripeScale: Double,
                                            minY: Double, stripeStart: [Int32], stripeEdges: [Int32]) -> Location {
        let k = min(stripeCount - 1, max(0, Int((y - minY) * stripeScale)))
        var crossings = 0
        return vertices.withUnsafeBufferPointer { e in
            stripeEdges.withUnsafeBufferPointer { list in
                for i in Int(stripeStart[k])..<Int(stripeStart[k + 1]) {
                    let base = Int(list[i]) * 2
                    switch crossing(x, y, e[base], e[base + 1], e[base + 2], e[base + 3]) {
                    case .onBoundary: return .boundary
                    case .crosses: crossings += 1
                    case .none: break
                    }
                }
                return crossings & 1 == 1 ? .inside : .outside
            }
        }
    }
}
