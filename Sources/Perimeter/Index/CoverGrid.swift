import CBuiltins
import Dispatch
import Foundation

/// A fine grid over the geographic conditions in which every cell lists the conditions within
/// `reach` metres of it, each with what is known at the cell's centre: on which side of the boundary
/// it lies, and how far from the boundary it stays.
///
/// For a fix whose margin is at most `reach`, the fix's one cell names every condition it could be
/// near, and most of them need no test at all: the fix is at least the centre's distance less its
/// own distance from the centre away from the boundary, on the centre's side, so with that much to
/// spare beyond its margin it is confidently on that side. Only the rest fall back to the exact
/// predicates. Conditions too large for the grid, and those added since it was built, are listed
/// separately and tested the ordinary way.
struct CoverGrid: Sendable, Equatable {
    /// The largest margin the cells answer for; fixes with a larger margin use the condition index.
    private(set) var reach: Double = 0
    private(set) var minLatitude = 0.0, minLongitude = 0.0
    /// The area's far edges: a point exactly on one (latitude 90 or longitude 180, where the area
    /// reaches them) belongs to the last row or column.
    private(set) var maxLatitude = 0.0, maxLongitude = 0.0
    private(set) var latitudeStep = 1.0, longitudeStep = 1.0
    private(set) var rows = 0, columns = 0
    private(set) var cellStart: [UInt32] = [0]
    private(set) var entries: [UInt32] = []
    /// How `entries` are packed.
    private(set) var packing = EntryCode(conditions: 0, largestClearance: 1)
    /// Per row: cos of the centres' latitude, and a distance within which every point of a cell
    /// lies of its centre (for `entries(at:)`'s offset).
    private(set) var rowCos: [Double] = []
    private(set) var rowHalfDiagonal: [Double] = []
    /// Conditions below this index are in the grid unless listed in `excluded`.
    private(set) var builtThrough: Int32 = 0
    /// Conditions the grid does not hold (too large): test them the ordinary way.
    private(set) var excluded: [Int32] = []

    /// The heap bytes of the grid's arrays.
    var heapBytes: Int {
        HeapBytes.of(cellStart) + HeapBytes.of(entries) + HeapBytes.of(excluded) + HeapBytes.of(rowCos) + HeapBytes.of(rowHalfDiagonal)
    }

    static let maximumCells = 1 << 24
    static let maximumCellsPerCondition = 4096
    /// The entry budget, as `init` estimates entries (a box's worth per condition; a circle takes some
    /// 15 % fewer): it caps the grid at about 28 bytes a condition at a million circles (24 of them entries), where the
    /// grid is the largest part of a circle's memory. 2²⁴ made stateless queries there some 10 %
    /// faster, and stateful ones 3–5 %, for 34 bytes a circle more (RESULTS); smaller catalogues do not
    /// reach the budget.
    static let maximumEntries = 7_000_000

    /// Whether the grid has cells to order fixes by.
    var hasCells: Bool { !isEmpty && rows * columns > 1 }

    /// Whether no cell lists any condition (every condition is in `excluded` or added since).
    var holdsNoEntries: Bool { entries.isEmpty }

    /// An empty grid (nothing built yet).
    init() {}

    /// Works out what follows from the area, `rows`, `columns` and `reach`: the steps, the rows'
    /// `rowCos` and `rowHalfDiagonal`, and the entries' packing for `count` conditions. The build and
    /// an index image both call it, so that a loaded grid's derived values are the build's own.
    /// Returns, per row, the cells' centre latitude, its sine and cosine (for the centres' unit
    /// vectors), and a distance within which every point of a cell lies of its centre (the corners are
    /// farthest; 1 % slack).
    @discardableResult
    private mutating func layOutRows(conditions count: Int) -> [(latitude: Double, sin: Double, cos: Double, halfDiagonal: Double)] {
        latitudeStep = (maxLatitude - minLatitude) / Double(rows)
        longitudeStep = (maxLongitude - minLongitude) / Double(columns)
        let rowCentres: [(latitude: Double, sin: Double, cos: Double, halfDiagonal: Double)] = (0..<rows).map { r in
            let cell = Self.cellBox(r, 0, minLatitude, minLongitude, latitudeStep, longitudeStep)
            let latitude = (cell.minLatitude + cell.maxLatitude) / 2, phi = latitude * Geodesy.radiansPerDegree
            let centre = Coordinate(latitude: latitude, longitude: (cell.minLongitude + cell.maxLongitude) / 2)
            let halfDiagonal = [Coordinate(latitude: cell.minLatitude, longitude: cell.minLongitude),
                                Coordinate(latitude: cell.maxLatitude, longitude: cell.minLongitude)]
                .map { Geodesy.distance(centre, $0) }.max()! * 1.01 + 0.01
            return (latitude, sin(phi), cos(phi), halfDiagonal)
        }
        rowCos = rowCentres.map(\.cos)
        rowHalfDiagonal = rowCentres.map(\.halfDiagonal)
        packing = Self.packing(conditions: count, rowHalfDiagonal: rowHalfDiagonal, reach: reach)
        return rowCentres
    }

    /// How a grid of these rows packs its entries. Clearances beyond any cell's half-diagonal plus
    /// the reach decide every fix alike: the entries' steps need go no further.
    static func packing(conditions count: Int, rowHalfDiagonal: [Double], reach: Double) -> EntryCode {
        EntryCode(conditions: count, largestClearance: ((rowHalfDiagonal.max() ?? 0) + reach) * 1.01 + 1)
    }

    /// - Parameters:
    ///   - threads: threads that classify the cells (runs of conditions each).
    ///   - entryBudget: at most about this many entries, as the estimate counts them.
    init<Shapes: CoverGridShapes>(shapes: Shapes, reach: Double = 100, threads: Int = 1, entryBudget: Int = maximumEntries) {
        self.reach = reach
        let count = shapes.geographicCount
        builtThrough = Int32(count)
        // The extent and a typical size, from the live conditions' boxes.
        var extent: BoundingBox?
        var sizes: [Double] = []
        for i in 0..<count where !shapes.isLeftOut(Int32(i)) {
            let box = shapes.boundingBox(Int32(i))
            extent = extent.map { $0.union(box) } ?? box
            sizes.append((box.maxLatitude - box.minLatitude) * Geodesy.metresPerDegree)
        }
        guard var area = extent, !sizes.isEmpty, count <= EntryCode.largestCatalogue else { return }
        sizes.sort()
        let pad = reach / Geodesy.metresPerDegree * 2
        area.minLatitude = max(-90, area.minLatitude - pad); area.maxLatitude = min(90, area.maxLatitude + pad)
        area.minLongitude = max(-180, area.minLongitude - pad * 4); area.maxLongitude = min(180, area.maxLongitude + pad * 4)
        // Cells about a sixth of the median condition across, no finer than 20 m.
        var cellMetres = max(20, sizes[sizes.count / 2] / 6)
        let midLatitude = min(80, max(abs(area.minLatitude), abs(area.maxLatitude)))
        let lonMetres = Geodesy.metresPerDegree * cos(midLatitude * Geodesy.radiansPerDegree)
        func dims(_ m: Double) -> (Int, Int) {
            (Int((area.maxLatitude - area.minLatitude) * Geodesy.metresPerDegree / m) + 1,
             Int((area.maxLongitude - area.minLongitude) * lonMetres / m) + 1)
        }
        while dims(cellMetres).0 * dims(cellMetres).1 > Self.maximumCells { cellMetres *= 1.5 }
        // And at most about `maximumEntries` entries in all: large catalogues get coarser cells, in
        // steps fine enough that the grid ends up near its budget rather than anywhere below it.
        func estimatedEntries(_ m: Double) -> Double {
            let step = max(1, sizes.count / 1024)
            var sum = 0.0
            for k in stride(from: 0, to: sizes.count, by: step) {
                let across = (sizes[k] + 2 * reach) / m + 1
                sum += across * across
            }
            return sum * Double(step)
        }
        while estimatedEntries(cellMetres) > Double(entryBudget) { cellMetres *= 1.05 }
        (rows, columns) = dims(cellMetres)
        minLatitude = area.minLatitude
        minLongitude = area.minLongitude
        maxLatitude = area.maxLatitude
        maxLongitude = area.maxLongitude
        let rowCentres = layOutRows(conditions: count)
        // Per column: the centre longitude, its sine and cosine.
        let columnCentres: [(longitude: Double, sin: Double, cos: Double)] = (0..<columns).map { c in
            let cell = Self.cellBox(0, c, area.minLatitude, area.minLongitude, latitudeStep, longitudeStep)
            let longitude = (cell.minLongitude + cell.maxLongitude) / 2, lambda = longitude * Geodesy.radiansPerDegree
            return (longitude, sin(lambda), cos(lambda))
        }
        // Per condition, the cells within reach, classified: runs of conditions on `threads` threads,
        // concatenated in condition order (so each cell lists its conditions in ascending order).
        let runCount = max(1, min(threads * 8, count / 64))
        let runs = (0..<runCount).map { k in
            CoverRun(start: count * k / runCount, end: count * (k + 1) / runCount) {
                [minLatitude, minLongitude, latitudeStep, longitudeStep, rows, columns, reach, area, rowCentres, columnCentres, packing] run, i in
                guard !shapes.isLeftOut(Int32(i)) else { return }
                let box = Geodesy.expanded(shapes.boundingBox(Int32(i)), metres: reach)
                guard box.minLongitude >= minLongitude, box.maxLongitude <= area.maxLongitude,
                      box.minLatitude >= minLatitude, box.maxLatitude <= area.maxLatitude else {
                    run.excluded.append(Int32(i))
                    return
                }
                let r0 = Self.index(box.minLatitude, minLatitude, latitudeStep, rows)
                let r1 = Self.index(box.maxLatitude, minLatitude, latitudeStep, rows)
                let c0 = Self.index(box.minLongitude, minLongitude, longitudeStep, columns)
                let c1 = Self.index(box.maxLongitude, minLongitude, longitudeStep, columns)
                guard (r1 - r0 + 1) * (c1 - c0 + 1) <= Self.maximumCellsPerCondition else {
                    run.excluded.append(Int32(i))
                    return
                }
                // A small polygon's edges are set up once per row, not once per cell.
                let polygon = shapes.rowFrameShape(Int32(i))
                var rowEdges = RowFrameEdges()
                for r in r0...r1 {
                    let row = rowCentres[r]
                    if let polygon { rowEdges.load(polygon.locator, latitude: row.latitude, originLongitude: minLongitude) }
                    for c in c0...c1 {
                        let column = columnCentres[c]
                        let centre = Coordinate(latitude: row.latitude, longitude: column.longitude)
                        var (side, clearance) = if let polygon {
                            shapes.centreRelation(polygon, centre: centre, edges: rowEdges)
                        } else {
                            shapes.centreRelation(Int32(i), centre: centre, unit: (row.cos * column.cos, row.cos * column.sin, row.sin),
                                                   within: row.halfDiagonal + reach)
                        }
                        if side == .outside && clearance - row.halfDiagonal > reach { continue }
                        // (A millimetre less covers the rounding of the centre and of its distance.)
                        clearance -= 0.001
                        if clearance <= 0 { side = .crossed; clearance = 0 }
                        run.entries.append(packing.pack(condition: Int32(i), side: side, clearance: clearance))
                        run.cellOfEntry.append(Int32(r * columns + c))
                    }
                }
            }
        }
        if threads > 1 {
            DispatchQueue.concurrentPerform(iterations: runs.count) { k in runs[k].classify() }
        } else {
            for run in runs { run.classify() }
        }
        var cellOfEntry: [Int32] = []
        var flat: [UInt32] = []
        var excluded: [Int32] = []
        for run in runs {
            cellOfEntry += run.cellOfEntry
            flat += run.entries
            excluded += run.excluded
        }
        // A grid holding nothing (every condition too large for it) would only cost memory: one
        // empty cell, so that queries check the few excluded conditions directly — or, when there
        // are many, no grid at all, so that they use the condition index.
        guard !flat.isEmpty else {
            guard excluded.count <= 64 else {
                (rows, columns) = (0, 0)
                return
            }
            (rows, columns) = (1, 1)
            latitudeStep = area.maxLatitude - area.minLatitude
            longitudeStep = area.maxLongitude - area.minLongitude
            cellStart = [0, 0]
            self.excluded = excluded
            return
        }
        // Counting sort by cell.
        var start = [UInt32](repeating: 0, count: rows * columns + 1)
        for cell in cellOfEntry { start[Int(cell) + 1] += 1 }
        for k in 0..<(rows * columns) { start[k + 1] += start[k] }
        var fill = start
        var sorted = [UInt32](repeating: 0, count: flat.count)
        for (entry, cell) in zip(flat, cellOfEntry) {
            sorted[Int(fill[Int(cell)])] = entry
            fill[Int(cell)] += 1
        }
        cellStart = start
        entries = sorted
        self.excluded = excluded
    }

    @inline(__always)
    private static func index(_ v: Double, _ origin: Double, _ step: Double, _ count: Int) -> Int {
        min(count - 1, max(0, Int(((v - origin) / step).rounded(.down))))
    }

    private static func cellBox(_ r: Int, _ c: Int, _ lat0: Double, _ lon0: Double, _ dLat: Double, _ dLon: Double) -> BoundingBox {
        BoundingBox(minLatitude: lat0 + Double(r) * dLat, maxLatitude: lat0 + Double(r + 1) * dLat,
                    minLongitude: lon0 + Double(c) * dLon, maxLongitude: lon0 + Double(c + 1) * dLon)
    }
}

/// One run of conditions' cover-grid entries, classified by one thread.
///
/// `@unchecked Sendable`: each run is written by exactly one thread inside `CoverGrid.init`, and read
/// only after every thread has finished.
private final class CoverRun: @unchecked Sendable {
    let start: Int, end: Int
    let body: @Sendable (CoverRun, Int) -> Void
    // (Written by one thread only: the runtime's exclusivity checks cost more than the appends.)
    @exclusivity(unchecked) var entries: [UInt32] = []
    @exclusivity(unchecked) var cellOfEntry: [Int32] = []
    @exclusivity(unchecked) var excluded: [Int32] = []

    init(start: Int, end: Int, body: @escaping @Sendable (CoverRun, Int) -> Void) {
        (self.start, self.end, self.body) = (start, end, body)
    }

    func classify() {
        for i in start..<end { body(self, i) }
    }
}

extension CoverGrid {
    /// Writes the grid as built, for `init(image:)` in another process: its area and cells; what
    /// follows from them (steps, rows' geometry, packing) is worked out again as it is read.
    func write(to image: inout IndexImageWriter) {
        image.write(reach)
        for value in [minLatitude, minLongitude, maxLatitude, maxLongitude] { image.write(value) }
        image.write(rows)
        image.write(columns)
        image.write(cellStart)
        image.write(entries)
        image.write(builtThrough)
        image.write(excluded)
    }

    /// The grid `write(to:)` wrote, for a catalogue of `geographicCount` conditions (built through
    /// all of them, or none when the catalogue was too small to want one). Its area must lie on the
    /// sphere and be no thinner than a metre in 10 km, and its arrays must fit each other, so that no
    /// query reads past one or turns a coordinate into a cell number out of range.
    init(image: inout IndexImageReader, geographicCount: Int) throws(IndexImageProblem) {
        reach = try image.read()
        minLatitude = try image.read(); minLongitude = try image.read()
        maxLatitude = try image.read(); maxLongitude = try image.read()
        rows = try image.readInt()
        columns = try image.readInt()
        cellStart = try image.readArray()
        entries = try image.readArray()
        builtThrough = try image.read()
        excluded = try image.readArray()
        let cellCount = rows.multipliedReportingOverflow(by: columns)
        guard (0...1_000_000).contains(reach), rows >= 0, columns >= 0, !cellCount.overflow, cellCount.partialValue <= Self.maximumCells,
              (rows == 0) == (columns == 0), builtThrough >= 0, Int(builtThrough) <= geographicCount,
              // (Entries are checked below, once the packing that holds their conditions is known.)
              IndexImageReader.listsFit(cellStart, entries, lists: cellCount.partialValue, below: 1 << 32),
              excluded.allSatisfy({ $0 >= 0 && Int($0) < geographicCount }) else {
            throw IndexImageProblem("the cover grid's parts do not fit together")
        }
        guard rows > 0 else { return }
        guard -90 <= minLatitude, minLatitude + 1e-4 <= maxLatitude, maxLatitude <= 90,
              -180 <= minLongitude, minLongitude + 1e-4 <= maxLongitude, maxLongitude <= 180 else {
            throw IndexImageProblem("the cover grid's area is not one on the sphere")
        }
        layOutRows(conditions: Int(builtThrough))
        let conditionShift = packing.codeBits
        guard entries.allSatisfy({ Int($0 >> conditionShift) < Int(builtThrough) }) else {
            throw IndexImageProblem("the cover grid lists a condition the image does not have")
        }
    }
}
