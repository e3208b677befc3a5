import CBuiltins
import Foundation

/// Exact point-in-polygon (boundary included) for a polygon or multipolygon, answering exactly as
/// GEOS's `covers` does — same ray-crossing rules, same orientation predicate — without GEOS.
///
/// Its indexes make it fast: a raster over the bounding box whose cells are known to be wholly inside,
/// wholly outside, or crossed by the boundary (with the edges through each), so most points need one
/// lookup and a point in a boundary cell tests only the edges of a few cells of its row; and
/// horizontal stripes, each listing the edges that reach into it, for rows too crowded for that and for
/// distance queries over larger boxes. Immutable once built: thread-safe, no allocation per query.
///
/// A class, so that a shape is one reference: a polygon condition's reading then borrows it for a
/// retain, where a struct of these fields was copied whole (a value-witness call) for every reading.
final class PolygonLocator: Sendable {
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    let stripeCount: Int
    let stripeScale: Double
    let columns: Int
    let rows: Int
    let cellScaleX: Double
    let cellScaleY: Double
    /// Metres that k − 1 cells of clearance guarantee, per cell: the smaller cell side at the
    /// latitude of the box nearest a pole, with 1 % to spare for the sphere.
    let metresPerClearanceCell: Double
    /// The most metres a clearance may show: k − 1 cells count in full only while they span at most
    /// 25° of longitude, within which cos(φ) × Δλ stays below the sphere's distance (beyond, the
    /// haversine's sine bends away from the straight line, and over a pole it is far shorter).
    let largestClearance: Double
    /// Vertices as `x, y` (longitude, latitude), every ring of every part, each ring closed (its
    /// first vertex again at its end). Edge `e` runs from vertex `e` to vertex `e + 1`: an edge is
    /// named by its first vertex, and a ring's closing vertex starts none. (Each vertex once: 16
    /// bytes an edge, where edges kept whole took 32.)
    let vertices: [Double]
    /// How many edges there are.
    let edgeCount: Int
    /// Whether some edge lies on the antimeridian or at a pole (`isSeamEdge`): such an edge is kept
    /// for `covers`, but is no boundary anyone can stand on, so the distance to the boundary leaves
    /// it out. Polygons without one (nearly all) measure every edge, as they always did; those with
    /// one take the plain measure (`nearestBoundaryDistance`), which filters them.
    let hasSeamEdges: Bool
    /// How many edges each ring has, in `vertices`' order; negated for a part's exterior (each part's
    /// first ring). With the vertices, the rings themselves (`polygons`): the catalogue keeps no copy.
    let ringEdgeCounts: [Int32]
    /// Horizontal stripes: edges whose latitude range reaches stripe k are
    /// stripeEdges[stripeStart[k] ..< stripeStart[k + 1]] (edge numbers: their first vertices).
    let stripeStart: [Int32]
    let stripeEdges: [Int32]
    /// Raster: cells[row * columns + column] is outside (0), inside (1) or boundary (2).
    let cells: [UInt8]
    /// What else a reading needs of a cell, in one byte. The low seven bits are its clearance, the
    /// Chebyshev distance in cells to the nearest boundary cell (capped at 127: 0 for a boundary
    /// cell). A boundary cell sets the top bit, and its low two bits are its reference, where its
    /// centre lies (outside 0, inside 1, on the boundary 2), with which a point in the cell is
    /// answered from the cell's edges alone (`cellCovers`). One array serves both, and a boundary
    /// cell's clearance reads as 0 without a look at its state.
    let cellDetails: [UInt8]
    /// Blocks of 8 × 8 cells: inside or outside when all of a block's cells are, else boundary. Small
    /// enough to stay in cache when the raster does not (a continent's is megabytes), so that most
    /// points far from the boundary are answered without reading the raster.
    let blocks: [UInt8]
    let blockColumns: Int
    static let blockShift = 3
    /// Rasters of at most this many cells have no blocks.
    static let largestUnblockedRaster = 1 << 16
    /// The edges passing through each cell: cellEdges[cellEdgeStart[cell] ..< cellEdgeStart[cell + 1]];
    /// for a polygon of at most `fewEdges` edges, in two bytes each instead (`smallEdgeStart`,
    /// `smallEdges`: half the memory, and half the cache lines), the other pair then empty. The
    /// readers are generic over the width, so each is compiled for both.
    let cellEdgeStart: [Int32]
    let cellEdges: [Int32]
    let smallEdgeStart: [UInt16]
    let smallEdges: [UInt16]

    /// The heap bytes of the locator: itself (a 16-byte header, fifteen scalars and eleven array
    /// references) and its arrays.
    var heapBytes: Int {
        16 + 15 * 8 + 11 * 8
            + HeapBytes.of(vertices) + HeapBytes.of(ringEdgeCounts) + HeapBytes.of(blocks)
            + HeapBytes.of(stripeStart) + HeapBytes.of(stripeEdges)
            + HeapBytes.of(cells) + HeapBytes.of(cellDetails) + HeapBytes.of(cellEdgeStart) + HeapBytes.of(cellEdges)
            + HeapBytes.of(smallEdgeStart) + HeapBytes.of(smallEdges)
    }

    /// The polygons the locator was built from, read back from its vertices: the same coordinates.
    var polygons: [GeoPolygon] {
        var result: [GeoPolygon] = [], first = 0
        for count in ringEdgeCounts {
            let n = Int(count.magnitude)
            let ring = (first...(first + n)).map { Coordinate(latitude: vertices[2 * $0 + 1], longitude: vertices[2 * $0]) }
            first += n + 1
            if count < 0 { result.append(GeoPolygon(exterior: ring)) } else { result[result.count - 1].holes.append(ring) }
        }
        return result
    }

    /// Calls `body` with the number of every edge (its first vertex), ring by ring.
    @inline(__always)
    static func forEachEdgeNumber(_ ringEdgeCounts: [Int32], _ body: (Int) -> Void) {
        var first = 0
        for count in ringEdgeCounts {
            let n = Int(count.magnitude)
            for e in first..<(first + n) { body(e) }
            first += n + 1
        }
    }

    /// Calls `body` with the number of every edge (its first vertex), ring by ring.
    @inline(__always)
    func forEveryEdgeNumber(_ body: (Int) -> Void) {
        Self.forEachEdgeNumber(ringEdgeCounts, body)
    }

    /// Calls `body` with every edge, `x1, y1, x2, y2`.
    @inline(__always)
    func forEveryEdge(_ body: (Double, Double, Double, Double) -> Void) {
        vertices.withUnsafeBufferPointer { v in
            Self.forEachEdgeNumber(ringEdgeCounts) { e in body(v[2 * e], v[2 * e + 1], v[2 * e + 2], v[2 * e + 3]) }
        }
    }

    /// Whether the edge from (`x1`, `y1`) to (`x2`, `y2`) lies on the antimeridian (both ends at
    /// longitude +180, or both at −180) or along a pole (both ends at latitude +90, or both at −90),
    /// each within `Coordinate.vertexTolerance` (real data overshoot by float noise: Natural Earth's
    /// Russia reaches 180.00000000000006, its Antarctica −179.99999999999994). Such an edge is where
    /// a polygon split at ±180 (RFC 7946 §3.1.9) was cut, or a pole drawn as a line: it counts for
    /// `covers`, never for the distance to the boundary *(our rule)*.
    @inline(__always)
    static func isSeamEdge(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Bool {
        func at(_ v: Double, _ limit: Double) -> Bool { abs(v - limit) <= Coordinate.vertexTolerance }
        return (at(x1, 180) && at(x2, 180)) || (at(x1, -180) && at(x2, -180))
            || (at(y1, 90) && at(y2, 90)) || (at(y1, -90) && at(y2, -90))
    }

    /// Calls `body` with the number of every edge that counts as boundary for distance: every edge
    /// but those on the seam or a pole (`isSeamEdge`).
    @inline(__always)
    func forEveryBoundaryEdgeNumber(_ body: (Int) -> Void) {
        guard hasSeamEdges else { return forEveryEdgeNumber(body) }
        let v = vertices
        forEveryEdgeNumber { e in
            if !Self.isSeamEdge(v[2 * e], v[2 * e + 1], v[2 * e + 2], v[2 * e + 3]) { body(e) }
        }
    }

    /// Calls `body` with every edge that counts as boundary for distance (`forEveryBoundaryEdgeNumber`),
    /// `x1, y1, x2, y2`.
    @inline(__always)
    func forEveryBoundaryEdge(_ body: (Double, Double, Double, Double) -> Void) {
        guard hasSeamEdges else { return forEveryEdge(body) }
        forEveryEdge { x1, y1, x2, y2 in
            if !Self.isSeamEdge(x1, y1, x2, y2) { body(x1, y1, x2, y2) }
        }
    }

    static let outside: UInt8 = 0
    static let inside: UInt8 = 1
    static let boundary: UInt8 = 2

    /// The locator `write(to:)` wrote: its vertices, rings, raster and lists as they were, and what
    /// follows from them (the box, the scales, the edge count, the seam edges) worked out again as in
    /// `init(_:)`, then checked (`checkParts`) so that no query reads past an array.
    init(image: inout IndexImageReader) throws(IndexImageProblem) {
        vertices = try image.readArray()
        ringEdgeCounts = try image.readArray()
        stripeCount = try image.readInt()
        columns = try image.readInt()
        rows = try image.readInt()
        stripeStart = try image.readArray(); stripeEdges = try image.readArray()
        cells = try image.readArray(); cellDetails = try image.readArray()
        blocks = try image.readArray()
        cellEdgeStart = try image.readArray(); cellEdges = try image.readArray()
        smallEdgeStart = try image.readArray(); smallEdges = try image.readArray()
        // (As `stripeCount` and `rasterDimensions` bound them.)
        guard vertices.count >= 2, vertices.count.isMultiple(of: 2), (1...(1 << 16)).contains(stripeCount),
              (1...2048).contains(columns), (1...2048).contains(rows) else {
            throw IndexImageProblem("a polygon's index has no vertices, or cells or stripes out of range")
        }
        (minX, minY, maxX, maxY) = Self.extent(vertices)
        edgeCount = ringEdgeCounts.reduce(0) { $0 + Int($1.magnitude) }
        hasSeamEdges = vertices.count == 2 * (edgeCount + ringEdgeCounts.count) && Self.hasSeamEdge(vertices, ringEdgeCounts)
        let frame = Self.frame(minX: minX, minY: minY, maxX: maxX, maxY: maxY, stripeCount: stripeCount, columns: columns, rows: rows)
        (stripeScale, cellScaleX, cellScaleY, metresPerClearanceCell, largestClearance) = frame
        blockColumns = Self.blockColumns(columns: columns, rows: rows)
        try checkParts()
    }

    init(_ polygons: [GeoPolygon]) {
        // Exactly as many as there are vertices: appending one at a time left up to half the
        // capacity unused, the largest part of a small polygon's memory.
        var vertices: [Double] = []
        vertices.reserveCapacity(2 * polygons.reduce(0) { count, polygon in
            polygon.rings.reduce(count) { $0 + ($1.count > 1 ? $1.count : 0) }
        })
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var ringEdgeCounts: [Int32] = []
        ringEdgeCounts.reserveCapacity(polygons.reduce(0) { $0 + 1 + $1.holes.count })
        for polygon in polygons {
            for (k, ring) in polygon.rings.enumerated() where ring.count > 1 {
                ringEdgeCounts.append(Int32(ring.count - 1) * (k == 0 ? -1 : 1))
                for c in ring {
                    vertices.append(c.longitude); vertices.append(c.latitude)
                    minX = min(minX, c.longitude); maxX = max(maxX, c.longitude)
                    minY = min(minY, c.latitude); maxY = max(maxY, c.latitude)
                }
            }
        }
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
        self.ringEdgeCounts = ringEdgeCounts
        let edgeCount = ringEdgeCounts.reduce(0) { $0 + Int($1.magnitude) }
        self.edgeCount = edgeCount
        hasSeamEdges = Self.hasSeamEdge(vertices, ringEdgeCounts)

        let height = max(maxY - minY, 1e-12)
        stripeCount = Self.stripeCount(vertices: vertices, ringEdgeCounts: ringEdgeCounts, edgeCount: edgeCount, height: height)
        // Raster: shaped like the box, as fine as `rasterTarget` and `refinement` say.
        let width = max(maxX - minX, 1e-12)
        var target = Self.rasterTarget(edgeCount: edgeCount)
        var cells: [UInt8] = [], pairs: [(cell: Int32, edge: Int32)] = []
        var (columns, rows) = (0, 0), refined = false
        while true {
            (columns, rows) = Self.rasterDimensions(target: target, width: width, height: height)
            cells = [UInt8](repeating: Self.outside, count: columns * rows)
            pairs.removeAll(keepingCapacity: true)
            Self.markBoundary(vertices: vertices, ringEdgeCounts: ringEdgeCounts, into: &cells, pairs: &pairs, columns: columns, rows: rows,
                              minX: minX, minY: minY, scaleX: Double(columns) / width, scaleY: Double(rows) / height)
            let boundaryCells = cells.reduce(0) { $0 + ($1 == Self.boundary ? 1 : 0) }
            guard !refined, edgeCount >= Self.manyEdges, boundaryCells * Self.boundaryShare > cells.count, target < Self.largestRaster else { break }
            target = min(target * Self.refinement, Self.largestRaster)
            refined = true
        }
        self.columns = columns
        self.rows = rows
        let frame = Self.frame(minX: minX, minY: minY, maxX: maxX, maxY: maxY, stripeCount: stripeCount, columns: columns, rows: rows)
        (stripeScale, cellScaleX, cellScaleY, metresPerClearanceCell, largestClearance) = frame

        // (Locals: the edge loops' closures may not read `self` before it is initialized.)
        let stripes = stripeCount, scale = stripeScale, bottom = minY
        var counts = [Int32](repeating: 0, count: stripeCount + 1)
        var stripeEdges: [Int32] = []
        vertices.withUnsafeBufferPointer { v in
            // Each edge's first and last stripe.
            func span(_ e: Int) -> ClosedRange<Int> {
                let (y1, y2) = (v[2 * e + 1], v[2 * e + 3])
                func stripe(_ y: Double) -> Int { min(stripes - 1, max(0, Int((y - bottom) * scale))) }
                return stripe(min(y1, y2))...stripe(max(y1, y2))
            }
            counts.withUnsafeMutableBufferPointer { counts in
                Self.forEachEdgeNumber(ringEdgeCounts) { e in
                    for k in span(e) { counts[k + 1] &+= 1 }
                }
                for k in 0..<stripes { counts[k + 1] &+= counts[k] }
                var fill = Array(counts)
                stripeEdges = [Int32](repeating: 0, count: Int(counts[stripes]))
                stripeEdges.withUnsafeMutableBufferPointer { list in
                    Self.forEachEdgeNumber(ringEdgeCounts) { e in
                        for k in span(e) {
                            list[Int(fill[k])] = Int32(e)
                            fill[k] &+= 1
                        }
                    }
                }
            }
        }
        // The cells' edge lists, by a counting sort of the pairs (unchecked: millions of cells).
        var edgeStart = [Int32](repeating: 0, count: columns * rows + 1)
        var cellEdges = [Int32](repeating: 0, count: pairs.count)
        edgeStart.withUnsafeMutableBufferPointer { start in
            cellEdges.withUnsafeMutableBufferPointer { list in
                // Counts at cell + 2, summed: start[cell + 1] is then where the cell's list begins,
                // and placing the pairs moves it to where the list ends, that is to start[cell + 2]'s
                // place — no second array of starts.
                for p in pairs where Int(p.cell) + 2 < start.count { start[Int(p.cell) + 2] &+= 1 }
                for k in stride(from: 2, to: start.count, by: 1) { start[k] &+= start[k - 1] }
                for p in pairs {
                    list[Int(start[Int(p.cell) + 1])] = p.edge
                    start[Int(p.cell) + 1] &+= 1
                }
            }
        }
        // The other cells' states and the boundary cells' references, swept along the rows.
        cellDetails = Self.details(classifying: &cells, columns: columns, rows: rows, minX: minX, minY: minY, scaleX: cellScaleX,
                                   scaleY: cellScaleY, vertices: vertices, cellEdgeStart: edgeStart, cellEdges: cellEdges,
                                   stripeCount: stripeCount, stripeScale: stripeScale, stripeStart: counts, stripeEdges: stripeEdges)
        // (A raster that stays in cache gains nothing from blocks: none, and no lookup.)
        blockColumns = Self.blockColumns(columns: columns, rows: rows)
        blocks = blockColumns > 0 ? Self.blocks(of: cells, columns: columns, rows: rows, blockColumns: blockColumns) : []
        self.vertices = vertices
        self.stripeStart = counts
        self.stripeEdges = stripeEdges
        self.cells = cells
        let small = edgeCount <= Self.fewEdges && cellEdges.count <= Int(UInt16.max)
        cellEdgeStart = small ? [] : edgeStart
        self.cellEdges = small ? [] : cellEdges
        smallEdgeStart = small ? edgeStart.map { UInt16(truncatingIfNeeded: $0) } : []
        smallEdges = small ? cellEdges.map { UInt16(truncatingIfNeeded: $0) } : []
    }
}
