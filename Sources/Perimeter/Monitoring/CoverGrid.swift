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
    /// What a cell knows of one condition near it, as a query reads it.
    struct Entry: Sendable, Equatable {
        let condition: Int32
        /// The centre's side (lowest bit: 1 inside) above its clearance in steps; 0 when the side is
        /// unknown (see `EntryCode`).
        fileprivate let code: UInt32

        /// Whether the cell's centre keeps far enough from the boundary that every point `need` was
        /// asked for is on the centre's side (`isInside`).
        @inline(__always)
        func decides(_ need: Need) -> Bool { code >= need.code }

        /// Whether the cell's centre is inside the condition (meaningful once `decides` says so).
        @inline(__always)
        var isInside: Bool { code & 1 == 1 }
    }

    /// How far from the boundary a cell's centre must stay to decide a point: the least code
    /// (`Entry.decides(_:)`), from `CoverGrid.need(_:)`.
    struct Need {
        fileprivate let code: UInt32
    }

    /// How an entry is packed into a `UInt32`: the condition's number in the high bits, and in the low
    /// `codeBits` 0 when the centre's side is unknown, else the side (lowest bit: 1 inside) above which
    /// the clearance counts whole `unit`s, rounded down so that it stays a lower bound.
    ///
    /// The condition takes as many bits as the catalogue needs, at least 20: up to a million
    /// conditions the clearance has 2,047 steps (some 0.1 m each), at 16 million still 127. Clearances
    /// past the last step are capped there, at `unit × maxStep`, which the grid makes larger than any
    /// cell's half-diagonal plus its reach: enough to decide every point the cell answers for.
    /// Decided by comparing codes, an entry costs a query no conversion to floating point.
    struct EntryCode: Sendable, Equatable {
        let codeBits: UInt32
        let unit: Double
        private let stepsPerMetre: Double
        private let maxStep: UInt32

        /// The most conditions any grid packs, so that at least 127 steps remain; a larger catalogue
        /// goes without a cover grid (the condition index answers for it).
        static let largestCatalogue = 1 << 24

        /// A packing for conditions `0 ..< count` that stores clearances up to `largestClearance`.
        init(conditions count: Int, largestClearance: Double) {
            precondition(count <= Self.largestCatalogue)
            let conditionBits = max(20, Int.bitWidth - max(0, count - 1).leadingZeroBitCount)
            codeBits = UInt32(32 - conditionBits)
            maxStep = (1 << (codeBits - 1)) - 1
            unit = largestClearance / Double(maxStep)
            stepsPerMetre = 1 / unit
        }

        /// `clearance`: metres, a lower bound (rounded down to a step).
        @inline(__always)
        func pack(condition: Int32, side: Relation, clearance: Double) -> UInt32 {
            let step = side == .crossed ? 0 : UInt32(min(Double(maxStep), max(0, (clearance / unit).rounded(.down))))
            let code = step == 0 ? 0 : step << 1 | (side == .inside ? 1 : 0)
            return UInt32(bitPattern: condition) << codeBits | code
        }

        @inline(__always)
        func unpack(_ packed: UInt32) -> Entry {
            Entry(condition: Int32(bitPattern: packed >> codeBits), code: packed & ((1 << codeBits) - 1))
        }

        /// The clearance an entry stores, in metres.
        @inline(__always)
        func clearance(_ entry: Entry) -> Double { Double(entry.code >> 1) * unit }

        /// The least code whose clearance is more than `metres`: step ⌊metres / unit⌋ + 1, so that
        /// step × unit > metres (a product's rounding rather than a division's is far inside the
        /// millimetre the grid takes off every clearance); past the last step, one no entry reaches.
        @inline(__always)
        func need(_ metres: Double) -> Need {
            let step = min(Double(maxStep) + 1, max(0, metres * stepsPerMetre).rounded(.down) + 1)
            return Need(code: UInt32(step) << 1)
        }
    }

    enum Relation: UInt8, Sendable {
        case inside
        case outside
        case crossed
    }

    /// The largest margin the cells answer for; fixes with a larger margin use the condition index.
    private(set) var reach: Double = 0
    private(set) var minLatitude = 0.0, minLongitude = 0.0
    /// The area's far edges: a point exactly on one (latitude 90 or longitude 180, where the area
    /// reaches them) belongs to the last row or column.
    private(set) var maxLatitude = 0.0, maxLongitude = 0.0
    private(set) var latitudeStep = 1.0, longitudeStep = 1.0
    private(set) var rows = 0, columns = 0
    private var cellStart: [UInt32] = [0]
    private(set) var entries: [UInt32] = []
    /// How `entries` are packed.
    private(set) var packing = EntryCode(conditions: 0, largestClearance: 1)
    /// Per row: cos of the centres' latitude, and a distance within which every point of a cell
    /// lies of its centre (for `entries(at:)`'s offset).
    private var rowCos: [Double] = []
    private var rowHalfDiagonal: [Double] = []
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

    /// - Parameters:
    ///   - threads: threads that classify the cells (runs of conditions each).
    ///   - entryBudget: at most about this many entries, as the estimate counts them.
    init(shapes catalog: ConditionCatalog, reach: Double = 100, threads: Int = 1, entryBudget: Int = maximumEntries) {
        self.reach = reach
        let count = catalog.geographic.count
        builtThrough = Int32(count)
        // The extent and a typical size, from the live conditions' boxes.
        var extent: BoundingBox?
        var sizes: [Double] = []
        for i in 0..<count where !catalog.geographic[i].isRemoved {
            let box = catalog.boundingBox(Int32(i))
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
        latitudeStep = (area.maxLatitude - area.minLatitude) / Double(rows)
        longitudeStep = (area.maxLongitude - area.minLongitude) / Double(columns)

        // Per row: the cells' centre latitude, its sine and cosine (for the centres' unit vectors), and
        // a distance h within which every point of a cell lies of its centre (the corners are
        // farthest; 1 % slack).
        let rowCentres: [(latitude: Double, sin: Double, cos: Double, halfDiagonal: Double)] = (0..<rows).map { r in
            let cell = Self.cellBox(r, 0, area.minLatitude, area.minLongitude, latitudeStep, longitudeStep)
            let latitude = (cell.minLatitude + cell.maxLatitude) / 2, phi = latitude * Geodesy.radiansPerDegree
            let centre = Coordinate(latitude: latitude, longitude: (cell.minLongitude + cell.maxLongitude) / 2)
            let halfDiagonal = [Coordinate(latitude: cell.minLatitude, longitude: cell.minLongitude),
                                Coordinate(latitude: cell.maxLatitude, longitude: cell.minLongitude)]
                .map { Geodesy.distance(centre, $0) }.max()! * 1.01 + 0.01
            return (latitude, sin(phi), cos(phi), halfDiagonal)
        }
        rowCos = rowCentres.map(\.cos)
        rowHalfDiagonal = rowCentres.map(\.halfDiagonal)
        // Clearances beyond any cell's half-diagonal plus the reach decide every fix alike: the
        // entries' steps need go no further.
        packing = EntryCode(conditions: count, largestClearance: ((rowHalfDiagonal.max() ?? 0) + reach) * 1.01 + 1)
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
                guard !catalog.geographic[i].isRemoved else { return }
                let box = Geodesy.expanded(catalog.boundingBox(Int32(i)), metres: reach)
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
                let polygon = catalog.rowFrameShape(Int32(i))
                var rowEdges = RowFrameEdges()
                for r in r0...r1 {
                    let row = rowCentres[r]
                    if let polygon { rowEdges.load(polygon.locator, latitude: row.latitude, originLongitude: minLongitude) }
                    for c in c0...c1 {
                        let column = columnCentres[c]
                        let centre = Coordinate(latitude: row.latitude, longitude: column.longitude)
                        var (side, clearance) = if let polygon {
                            catalog.centreRelation(polygon, centre: centre, edges: rowEdges)
                        } else {
                            catalog.centreRelation(Int32(i), centre: centre, unit: (row.cos * column.cos, row.cos * column.sin, row.sin),
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
