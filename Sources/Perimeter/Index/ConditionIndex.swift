import Foundation

/// A uniform latitude/longitude grid over geographic conditions' bounding boxes, in flat arrays.
///
/// A query returns every condition whose box meets the box of points within the fix's margin;
/// conditions it leaves out are certainly farther than the margin, so the engine treats them as
/// confidently outside without testing them. Conditions spanning too many cells sit in a short list
/// every query checks by box; conditions added since the last build wait in another, until the grid
/// is rebuilt (amortised, as an array grows).
///
/// The index keeps no boxes: the catalogue derives a condition's box from its shape when the grid is
/// laid out and when a query checks a listed condition (`ConditionCatalog.boxMeets`), which saves 16
/// bytes a condition, for a few multiplications per check on a path few fixes take.
struct ConditionIndex: Sendable {
    /// How many conditions have been inserted (removed ones included).
    private var count = 0

    // The grid: cell (row, column) lists cellItems[cellStart[cell] ..< cellStart[cell + 1]].
    private var minLatitude = -90.0
    private var minLongitude = -180.0
    private var cellSize = 1.0
    private var inverseCellSize = 1.0
    private var rows = 1
    private var columns = 1
    private var cellStart: [Int32] = [0, 0]
    private var cellItems: [Int32] = []
    /// Conditions too large for the grid, and conditions added since it was built: checked by box.
    private var unindexed: [Int32] = []
    private var addedSinceBuild = 0

    /// The heap bytes of the index's arrays.
    var heapBytes: Int { HeapBytes.of(cellStart) + HeapBytes.of(cellItems) + HeapBytes.of(unindexed) }

    static let maximumCellsPerCondition = 64
    static let maximumCells = 1 << 22

    /// Adds condition `index` (the next one), listed apart until the next `rebuild`.
    mutating func insert(_ index: Int32) {
        precondition(Int(index) == count, "conditions are indexed in order")
        count += 1
        unindexed.append(index)
        addedSinceBuild += 1
    }

    var hasUnindexed: Bool { addedSinceBuild > 0 }

    /// Whether enough conditions wait outside the grid that a rebuild pays for itself.
    var needsRebuild: Bool { addedSinceBuild > 32 && addedSinceBuild * 256 > count }

    /// Lays the grid over the conditions present: cells about twice the median box, at most
    /// `maximumCells` of them. (Removed conditions keep their place in the grid until then; the
    /// catalogue's checks skip them.)
    /// - Parameter present: the conditions not removed, with their boxes (longitudes may run past ±180).
    mutating func rebuild(_ present: [(Int32, BoundingBox)]) {
        addedSinceBuild = 0
        unindexed.removeAll()
        guard let first = present.first?.1 else {
            cellStart = [0, 0]; cellItems = []; rows = 1; columns = 1
            return
        }
        var extent = first
        var sides: [Double] = []
        sides.reserveCapacity(present.count)
        for (_, box) in present {
            extent = extent.union(box)
            sides.append(max(box.maxLatitude - box.minLatitude, box.maxLongitude - box.minLongitude))
        }
        extent.minLatitude = max(-90, extent.minLatitude)
        extent.maxLatitude = min(90, extent.maxLatitude)
        extent.minLongitude = max(-180, extent.minLongitude)
        extent.maxLongitude = min(180, extent.maxLongitude)
        sides.sort()
        var size = max(1e-4, sides[sides.count / 2] * 2)
        let height = max(extent.maxLatitude - extent.minLatitude, 1e-9)
        let width = max(extent.maxLongitude - extent.minLongitude, 1e-9)
        while (height / size + 1) * (width / size + 1) > Double(Self.maximumCells) { size *= 2 }
        minLatitude = extent.minLatitude
        minLongitude = extent.minLongitude
        cellSize = size
        inverseCellSize = 1 / size
        rows = Int(height * inverseCellSize) + 1
        columns = Int(width * inverseCellSize) + 1

        // Two passes: count per cell, then fill (CSR).
        var counts = [Int32](repeating: 0, count: rows * columns + 1)
        var placed: [(Int32, BoundingBox)] = []
        var scratch: [Int] = []
        for (i, box) in present {
            var cells = 0
            box.forEachPieceWithinLongitudeRange { cells += cellCount($0) }
            if cells > Self.maximumCellsPerCondition {
                unindexed.append(i)
                continue
            }
            placed.append((i, box))
            forEachDistinctCell(of: box, scratch: &scratch) { counts[$0 + 1] += 1 }
        }
        for c in 0..<(rows * columns) { counts[c + 1] += counts[c] }
        var fill = counts
        var items = [Int32](repeating: 0, count: Int(counts[rows * columns]))
        for (i, box) in placed {
            forEachDistinctCell(of: box, scratch: &scratch) { cell in
                items[Int(fill[cell])] = i
                fill[cell] += 1
            }
        }
        cellStart = counts
        cellItems = items
    }

    @inline(__always)
    private func row(_ latitude: Double) -> Int {
        min(rows - 1, max(0, Int(((latitude - minLatitude) * inverseCellSize).rounded(.down))))
    }

    @inline(__always)
    private func column(_ longitude: Double) -> Int {
        min(columns - 1, max(0, Int(((longitude - minLongitude) * inverseCellSize).rounded(.down))))
    }

    private func cellCount(_ box: BoundingBox) -> Int {
        (row(box.maxLatitude) - row(box.minLatitude) + 1) * (column(box.maxLongitude) - column(box.minLongitude) + 1)
    }

    /// Each cell `box` covers, once: the pieces of a box running past ±180 may share cells, and a
    /// cell's items must be distinct (the single-cell query takes them without de-duplication).
    private func forEachDistinctCell(of box: BoundingBox, scratch: inout [Int], _ body: (Int) -> Void) {
        scratch.removeAll(keepingCapacity: true)
        box.forEachPieceWithinLongitudeRange { piece in forEachCell(of: piece) { scratch.append($0) } }
        scratch.sort()
        for (k, cell) in scratch.enumerated() where k == 0 || scratch[k - 1] != cell { body(cell) }
    }

    private func forEachCell(of piece: BoundingBox, _ body: (Int) -> Void) {
        for r in row(piece.minLatitude)...row(piece.maxLatitude) {
            for c in column(piece.minLongitude)...column(piece.maxLongitude) { body(r * columns + c) }
        }
    }

    /// Appends to `result` every condition whose box comes within `margin` metres of `c` (each once):
    /// of those the grid lists there, those `meets` (a condition, the query box) accepts.
    @inline(__always)
    func collect(around c: Coordinate, margin: Double, stamps: inout [UInt32], stamp: UInt32, into result: inout [Int32],
                 meets: (Int32, BoundingBox) -> Bool) {
        let query = BoundingBox.marginBox(around: c, metres: margin)
        if query.minLongitude < -180 || query.maxLongitude > 180 || query.minLatitude < -90 || query.maxLatitude > 90 {
            // Near the antimeridian or a pole: the general path.
            collect(in: query, stamps: &stamps, stamp: stamp, into: &result, meets: meets)
            return
        }
        for i in unindexed { consider(i, query, &stamps, stamp, &result, meets) }
        let r0 = row(query.minLatitude), r1 = row(query.maxLatitude)
        let c0 = column(query.minLongitude), c1 = column(query.maxLongitude)
        if r0 == r1 && c0 == c1 {
            // One cell (the common case): its items are distinct, no stamps needed.
            let cell = r0 * columns + c0
            for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                let i = cellItems[k]
                if meets(i, query) { result.append(i) }
            }
            return
        }
        for r in r0...r1 {
            for col in c0...c1 {
                let cell = r * columns + col
                for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    consider(cellItems[k], query, &stamps, stamp, &result, meets)
                }
            }
        }
    }

    /// Appends to `result` every condition whose box meets `query` (each once), as `meets` decides of
    /// those the grid lists there; `query` may run past ±180 in longitude.
    func collect(in query: BoundingBox, stamps: inout [UInt32], stamp: UInt32, into result: inout [Int32],
                 meets: (Int32, BoundingBox) -> Bool) {
        for i in unindexed { consider(i, query, &stamps, stamp, &result, meets) }
        query.forEachPieceWithinLongitudeRange { piece in
            guard piece.maxLatitude >= minLatitude, piece.minLatitude <= minLatitude + Double(rows) * cellSize,
                  piece.maxLongitude >= minLongitude, piece.minLongitude <= minLongitude + Double(columns) * cellSize else { return }
            forEachCell(of: piece) { cell in
                for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    consider(cellItems[k], query, &stamps, stamp, &result, meets)
                }
            }
        }
    }

    @inline(__always)
    private func consider(_ i: Int32, _ query: BoundingBox, _ stamps: inout [UInt32], _ stamp: UInt32,
                          _ result: inout [Int32], _ meets: (Int32, BoundingBox) -> Bool) {
        guard stamps[Int(i)] != stamp else { return }
        stamps[Int(i)] = stamp
        if meets(i, query) { result.append(i) }
    }
}

extension ConditionIndex {
    /// Writes the index as laid out, for `init(image:conditions:)` in another process.
    func write(to image: inout IndexImageWriter) {
        image.write(count)
        for value in [minLatitude, minLongitude, cellSize] { image.write(value) }
        image.write(rows)
        image.write(columns)
        image.write(cellStart)
        image.write(cellItems)
        image.write(unindexed)
        image.write(addedSinceBuild)
    }

    /// The index `write(to:)` wrote over `conditions` conditions: its grid on the sphere, its cells
    /// no smaller than `rebuild` makes them, its lists within each other and naming conditions there
    /// are, so that no query reads past one or turns a coordinate into a cell out of range.
    init(image: inout IndexImageReader, conditions: Int) throws(IndexImageProblem) {
        count = try image.readInt()
        minLatitude = try image.read(); minLongitude = try image.read(); cellSize = try image.read()
        rows = try image.readInt()
        columns = try image.readInt()
        cellStart = try image.readArray()
        cellItems = try image.readArray()
        unindexed = try image.readArray()
        addedSinceBuild = try image.readInt()
        inverseCellSize = 1 / cellSize
        let cells = rows.multipliedReportingOverflow(by: columns)
        func isCondition(_ i: Int32) -> Bool { i >= 0 && Int(i) < conditions }
        guard count == conditions, (0...count).contains(addedSinceBuild), (-90...90).contains(minLatitude), (-180...180).contains(minLongitude),
              cellSize.isFinite, cellSize >= 1e-4, rows >= 1, columns >= 1, !cells.overflow, cells.partialValue <= Self.maximumCells,
              IndexImageReader.listsFit(cellStart, cellItems, lists: cells.partialValue, below: conditions),
              unindexed.allSatisfy(isCondition) else {
            throw IndexImageProblem("the condition index's parts do not fit together")
        }
    }
}
