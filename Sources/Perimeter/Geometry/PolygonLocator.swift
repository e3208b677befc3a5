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
    private let rows: Int
    let cellScaleX: Double
    let cellScaleY: Double
    /// Metres that k − 1 cells of clearance guarantee, per cell: the smaller cell side at the
    /// latitude of the box nearest a pole, with 1 % to spare for the sphere.
    private let metresPerClearanceCell: Double
    /// The most metres a clearance may show: k − 1 cells count in full only while they span at most
    /// 25° of longitude, within which cos(φ) × Δλ stays below the sphere's distance (beyond, the
    /// haversine's sine bends away from the straight line, and over a pole it is far shorter).
    private let largestClearance: Double
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
    private let ringEdgeCounts: [Int32]
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
    private let blocks: [UInt8]
    private let blockColumns: Int
    static let blockShift = 3
    /// Rasters of at most this many cells have no blocks.
    static let largestUnblockedRaster = 1 << 16
    /// The edges passing through each cell: cellEdges[cellEdgeStart[cell] ..< cellEdgeStart[cell + 1]];
    /// for a polygon of at most `fewEdges` edges, in two bytes each instead (`smallEdgeStart`,
    /// `smallEdges`: half the memory, and half the cache lines), the other pair then empty. The
    /// readers are generic over the width, so each is compiled for both.
    private let cellEdgeStart: [Int32]
    private let cellEdges: [Int32]
    private let smallEdgeStart: [UInt16]
    private let smallEdges: [UInt16]

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
        var hasSeamEdges = false
        Self.forEachEdgeNumber(ringEdgeCounts) { e in
            if Self.isSeamEdge(vertices[2 * e], vertices[2 * e + 1], vertices[2 * e + 2], vertices[2 * e + 3]) { hasSeamEdges = true }
        }
        self.hasSeamEdges = hasSeamEdges

        // Stripes: about one per edge, so that a stripe lists a handful of edges on real outlines —
        // but one for a polygon of few edges, whose edges each span many stripes (a 40-edge polygon
        // listed each edge in six), and whose stripes only serve the rare fallbacks.
        let height = max(maxY - minY, 1e-12)
        stripeCount = edgeCount <= Self.fewStripedEdges ? 1 : min(edgeCount, 1 << 16)
        stripeScale = Double(stripeCount) / height
        var counts = [Int32](repeating: 0, count: stripeCount + 1)
        func stripe(_ y: Double, count: Int, scale: Double, origin: Double) -> Int {
            min(count - 1, max(0, Int((y - origin) * scale)))
        }
        // (Locals: the edge loops' closures may not read `self` before it is initialized.)
        let stripes = stripeCount, scale = stripeScale, bottom = minY
        Self.forEachEdgeNumber(ringEdgeCounts) { e in
            let (y1, y2) = (vertices[2 * e + 1], vertices[2 * e + 3])
            let k0 = stripe(min(y1, y2), count: stripes, scale: scale, origin: bottom)
            let k1 = stripe(max(y1, y2), count: stripes, scale: scale, origin: bottom)
            for k in k0...k1 { counts[k + 1] += 1 }
        }
        for k in 0..<stripeCount { counts[k + 1] += counts[k] }
        var fill = counts
        var stripeEdges = [Int32](repeating: 0, count: Int(counts[stripeCount]))
        Self.forEachEdgeNumber(ringEdgeCounts) { e in
            let (y1, y2) = (vertices[2 * e + 1], vertices[2 * e + 3])
            let k0 = stripe(min(y1, y2), count: stripes, scale: scale, origin: bottom)
            let k1 = stripe(max(y1, y2), count: stripes, scale: scale, origin: bottom)
            for k in k0...k1 {
                stripeEdges[Int(fill[k])] = Int32(e)
                fill[k] += 1
            }
        }

        // Raster: about 4 cells per edge (at least 128 cells, at most 2048 × 2048), shaped like the box.
        // (A minimum of 256 cells took 15 % more memory over 10k polygons of 16–64 edges for no
        // time that showed; 1.2 % fewer instructions.)
        let width = max(maxX - minX, 1e-12)
        let target = Double(min(max((edgeCount >= 512 ? 256 : 4) * edgeCount, 128), 1 << 22))
        let aspect = width / height
        let columns = max(1, min(2048, Int((target * aspect).squareRoot().rounded(.up))))
        let rows = max(1, min(2048, Int((target / aspect).squareRoot().rounded(.up))))
        self.columns = columns
        self.rows = rows
        cellScaleX = Double(columns) / width
        cellScaleY = Double(rows) / height
        // A box that reaches a pole has no clearance to speak of: every longitude meets there, so a
        // boundary cell far along the raster's top (or bottom) row can be metres away over the pole.
        let poleward = max(abs(minY), abs(maxY))
        metresPerClearanceCell = poleward >= 90 ? 0 : min(1 / cellScaleX, 1 / cellScaleY) * Geodesy.metresPerDegree
            * cos(poleward * Geodesy.radiansPerDegree) * 0.99
        largestClearance = (25 * cellScaleX).rounded(.down) * metresPerClearanceCell
        var cells = [UInt8](repeating: Self.outside, count: columns * rows)
        var pairs: [(cell: Int32, edge: Int32)] = []
        Self.markBoundary(vertices: vertices, ringEdgeCounts: ringEdgeCounts, into: &cells, pairs: &pairs, columns: columns, rows: rows, minX: minX, minY: minY,
                          scaleX: cellScaleX, scaleY: cellScaleY)
        var edgeStart = [Int32](repeating: 0, count: columns * rows + 1)
        for p in pairs { edgeStart[Int(p.cell) + 1] += 1 }
        for k in 0..<(columns * rows) { edgeStart[k + 1] += edgeStart[k] }
        var edgeFill = edgeStart
        var cellEdges = [Int32](repeating: 0, count: pairs.count)
        for p in pairs {
            cellEdges[Int(edgeFill[Int(p.cell)])] = p.edge
            edgeFill[Int(p.cell)] += 1
        }
        // Each run of non-boundary cells in a row is free of edges, so one test of its first cell's
        // centre classifies it whole.
        for r in 0..<rows {
            var c = 0
            while c < columns {
                if cells[r * columns + c] == Self.boundary { c += 1; continue }
                let runStart = c
                while c < columns && cells[r * columns + c] != Self.boundary { c += 1 }
                let x = minX + (Double(runStart) + 0.5) / cellScaleX
                let y = minY + (Double(r) + 0.5) / cellScaleY
                let state = Self.rayCrossingCovers(x, y, vertices: vertices, stripeCount: stripeCount, stripeScale: stripeScale,
                                                   minY: minY, stripeStart: counts, stripeEdges: stripeEdges)
                    ? Self.inside : Self.outside
                for k in runStart..<c { cells[r * columns + k] = state }
            }
        }
        // (A raster that stays in cache gains nothing from blocks: none, and no lookup.)
        blockColumns = columns * rows > Self.largestUnblockedRaster ? (columns + (1 << Self.blockShift) - 1) >> Self.blockShift : 0
        blocks = blockColumns > 0 ? Self.blocks(of: cells, columns: columns, rows: rows, blockColumns: blockColumns) : []
        let references = Self.sweptReferences(cells: cells, columns: columns, rows: rows, minX: minX, minY: minY, scaleX: cellScaleX,
                                              scaleY: cellScaleY, vertices: vertices, cellEdgeStart: edgeStart, cellEdges: cellEdges,
                                              stripeCount: stripeCount, stripeScale: stripeScale, stripeStart: counts,
                                              stripeEdges: stripeEdges)
        self.vertices = vertices
        self.stripeStart = counts
        self.stripeEdges = stripeEdges
        cellDetails = Self.details(states: cells, references: references,
                                   clearance: Self.chebyshevClearance(cells, columns: columns, rows: rows))
        self.cells = cells
        let small = edgeCount <= Self.fewEdges && cellEdges.count <= Int(UInt16.max)
        cellEdgeStart = small ? [] : edgeStart
        self.cellEdges = small ? [] : cellEdges
        smallEdgeStart = small ? edgeStart.map { UInt16(truncatingIfNeeded: $0) } : []
        smallEdges = small ? cellEdges.map { UInt16(truncatingIfNeeded: $0) } : []
    }

    /// Each cell's details (`cellDetails`): a boundary cell's reference, any other cell's clearance.
    private static func details(states: [UInt8], references: [UInt8], clearance: [UInt8]) -> [UInt8] {
        states.indices.map { k in states[k] == boundary ? referenceFlag | references[k] : min(clearance[k], clearanceMask) }
    }

    /// The flag of a boundary cell's details, and the mask of a cell's clearance in them.
    private static let referenceFlag: UInt8 = 0x80, clearanceMask: UInt8 = 0x7F

    /// A cell's clearance from its details: 0 for a boundary cell, whose low bits hold its reference
    /// (masked, a centre on the boundary would read as two cells of clearance).
    @inline(__always)
    private static func clearance(_ details: UInt8) -> Int {
        details & referenceFlag != 0 ? 0 : Int(details)
    }

    /// Marks every cell an edge comes near (with a sliver of slack, so that rounding in the point's
    /// cell computation can never put a point in a non-boundary cell the boundary touches).
    private static func markBoundary(vertices: [Double], ringEdgeCounts: [Int32], into cells: inout [UInt8],
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
    private static func sweptReferences(cells: [UInt8], columns: Int, rows: Int, minX: Double, minY: Double, scaleX: Double,
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
    private static func blocks(of cells: [UInt8], columns: Int, rows: Int, blockColumns: Int) -> [UInt8] {
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
    private static func chebyshevClearance(_ cells: [UInt8], columns: Int, rows: Int) -> [UInt8] {
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

    // MARK: Queries

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

    private func covers(_ points: UnsafeBufferPointer<Coordinate>, into covered: UnsafeMutableBufferPointer<Bool>, raster: Raster,
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
    private struct Raster {
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

    private var raster: Raster {
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
    private func cellCovers(_ x: Double, _ y: Double, cell: Int) -> Bool {
        smallEdges.isEmpty ? cellCovers(x, y, cell: cell, start: cellEdgeStart, list: cellEdges)
            : cellCovers(x, y, cell: cell, start: smallEdgeStart, list: smallEdges)
    }

    @inline(__always)
    private func cellCovers<Index: FixedWidthInteger>(_ x: Double, _ y: Double, cell: Int, start edgeStart: [Index],
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
    private static func rayCrossingCovers(_ x: Double, _ y: Double, vertices: [Double], stripeCount: Int, stripeScale: Double,
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

    /// Whether some boundary point lies within `metres` of `c` (strictly closer than `metres`, or also
    /// at exactly `metres` when `inclusive`), by the same distance as `PolygonShape.distanceToBoundary`:
    /// the haversine distance to the nearest boundary point found in a frame centred on `c`.
    func boundary(within metres: Double, of c: Coordinate, inclusive: Bool) -> Bool {
        var frame = FixFrame(c, margin: metres)
        return boundary(withinMarginOf: &frame, inclusive: inclusive)
    }

    /// `boundary(within:of:inclusive:)` for a fix's frame and margin, reusing what the frame computed
    /// once per fix. Most answers need neither the nearest point nor the haversine formula: the
    /// frame's distance is within 0.05 % of the haversine one at these sizes, so an edge clearly
    /// inside the margin answers at once, and edges all clearly beyond it answer no; only a nearest
    /// distance within 0.2 % of the margin takes the full measure.
    func boundary(withinMarginOf frame: inout FixFrame, inclusive: Bool) -> Bool {
        let c = frame.coordinate, metres = frame.margin
        // Cells far from any boundary cell answer without looking at edges.
        if c.longitude >= minX, c.longitude <= maxX, c.latitude >= minY, c.latitude <= maxY {
            let (column, row) = raster.columnAndRow(c.longitude, c.latitude)
            let k = Self.clearance(cellDetails[row * columns + column])
            // The point may sit at its cell's edge: k − 1 whole cells separate it from the boundary.
            if k >= 2 && min(Double(k - 1) * metresPerClearanceCell, largestClearance) > metres { return false }
        }
        let box = frame.marginBox
        // (A polygon with seam edges takes the plain measure, which leaves them out.)
        guard metres <= 1000, abs(c.latitude) <= 80, !hasSeamEdges else {
            let best = nearestBoundaryDistance(from: c, within: box)
            return inclusive ? best <= metres : best < metres
        }
        // (A micrometre more either way covers rounding, which dominates at tiny distances.)
        let near = metres * (1 - 2e-3) - 1e-6, far = metres * (1 + 2e-3) + 1e-6
        let nearSquared = near > 0 ? near * near : -1, farSquared = far * far
        var nearest = NearestPointFrame(c, metresPerDegreeLongitude: frame.metresPerDegreeLongitude)
        // First without the nearest point (no division per edge): an edge inside `near` answers yes;
        // none inside `far` answers no. Only the band between needs the nearest point and the haversine.
        var closest = NearestPointFrame.Closeness.beyond
        forEachEdge(near: box) { x1, y1, x2, y2 in
            switch nearest.closeness(x1, y1, x2, y2, near: nearSquared, far: farSquared) {
            case .near: closest = .near; return false
            case .band: closest = .band
            case .beyond: break
            }
            return true
        }
        if closest == .near { return true }
        if closest == .beyond { return false }
        forEachEdge(near: box) { x1, y1, x2, y2 in
            nearest.consider(x1, y1, x2, y2)
            return true
        }
        if nearest.bestSquared < nearSquared { return true }
        if nearest.bestSquared > farSquared { return false }
        let best = nearest.nearest.map { Geodesy.distance(c, $0) } ?? .infinity
        return inclusive ? best <= metres : best < metres
    }

    /// The smallest boundary distance (as `PolygonShape.distanceToBoundary` measures it) over the edges
    /// that reach into `box` — or, for a polygon of few edges, over all of them, which differs only
    /// when the nearest lies beyond the box; infinity if none do. Seam and pole edges
    /// (`isSeamEdge`) are left out.
    func nearestBoundaryDistance(from c: Coordinate, within box: BoundingBox) -> Double {
        func edges(_ body: (Double, Double, Double, Double) -> Void) {
            if edgeCount <= Self.fewEdges {
                // A few edges: all of them, each once, cost less than finding those in the box (which,
                // for the cover grid's boxes, are most of them, some several times over). Edges beyond
                // the box can only lower the result: still the nearest boundary distance.
                forEveryEdge(body)
            } else {
                forEachEdge(near: box) { x1, y1, x2, y2 in
                    body(x1, y1, x2, y2)
                    return true
                }
            }
        }
        guard hasSeamEdges else { return Self.nearestDistance(from: c, edges: edges) }
        return Self.nearestDistance(from: c) { body in
            edges { x1, y1, x2, y2 in
                if !Self.isSeamEdge(x1, y1, x2, y2) { body(x1, y1, x2, y2) }
            }
        }
    }

    /// The distance in metres from `c` to the nearest of the edges `edges` calls its body with: the
    /// haversine distance to the point an equirectangular frame centred on `c` finds nearest. Where
    /// that frame can mislead — the frame's scale east–west differs from the edges' own by up to
    /// tan φ × the distance, which picks a point measurably farther (0.5 % from about 90 km of
    /// tan φ × distance: 50 km at 60°) beyond `frameTrusted` times less; and within 10° of a pole,
    /// where the frame measures round the pole rather than across it — the edges that may hold
    /// the nearest point (all of them near a pole) are measured on the sphere itself instead
    /// (`sphericalDistance`). Always the distance to a real boundary point: never below the true one.
    static func nearestDistance(from c: Coordinate, edges: ((Double, Double, Double, Double) -> Void) -> Void) -> Double {
        var frame = NearestPointFrame(c)
        edges { x1, y1, x2, y2 in frame.consider(x1, y1, x2, y2) }
        guard let nearest = frame.nearest else { return .infinity }
        let framed = Geodesy.distance(c, nearest)
        let nearPole = abs(c.latitude) > 80
        guard nearPole || (framed > frameTrusted
                           && framed * abs(tan(c.latitude * Geodesy.radiansPerDegree)) > frameTrusted * 10) else { return framed }
        // Edges whose frame distance is within three times the best's: the frame is off by far less
        // within 100 km below 80° (SPEC's 0.5 % asks no more).
        let far = 9 * frame.bestSquared
        var best = framed
        edges { x1, y1, x2, y2 in
            // (No nearer than its latitudes allow: edges that cannot beat the best cost no search.)
            guard Geodesy.metresPerDegree * max(0, min(y1, y2) - c.latitude, c.latitude - max(y1, y2)) < best else { return }
            if nearPole || frame.closeness(x1, y1, x2, y2, near: 0, far: far) != .beyond {
                best = min(best, sphericalDistance(from: c, x1, y1, x2, y2))
            }
        }
        return best
    }

    /// Up to here the frame's nearest point is within 0.1 % of the nearest on the sphere below 80°
    /// (the margin test's fast path relies on the frame alone up to 1 km margins), and up to ten
    /// times it of tan φ × distance within a tenth of SPEC's 0.5 %.
    static let frameTrusted = 1050.0

    /// The least haversine distance from `c` to the edge from (`x1`, `y1`) to (`x2`, `y2`), straight in
    /// longitude and latitude (moved a turn round as the frame moves it): the best of 16 samples,
    /// then a golden-section search between its neighbours.
    static func sphericalDistance(from c: Coordinate, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        var a = x1 - c.longitude, b = x2 - c.longitude
        if min(a, b) > 180 { a -= 360; b -= 360 } else if max(a, b) < -180 { a += 360; b += 360 }
        let lon1 = c.longitude + a, lon2 = c.longitude + b
        func at(_ t: Double) -> Double {
            Geodesy.distance(c, Coordinate(latitude: y1 + t * (y2 - y1), longitude: lon1 + t * (lon2 - lon1)))
        }
        let samples = 16
        var bestT = 0.0, best = at(0)
        for k in 1...samples {
            let t = Double(k) / Double(samples), d = at(t)
            if d < best { best = d; bestT = t }
        }
        var low = max(0, bestT - 1 / Double(samples)), high = min(1, bestT + 1 / Double(samples))
        let ratio = (5.0.squareRoot() - 1) / 2
        var m1 = high - ratio * (high - low), m2 = low + ratio * (high - low)
        var d1 = at(m1), d2 = at(m2)
        for _ in 0..<48 {
            if d1 < d2 {
                high = m2; m2 = m1; d2 = d1
                m1 = high - ratio * (high - low); d1 = at(m1)
            } else {
                low = m1; m1 = m2; d1 = d2
                m2 = low + ratio * (high - low); d2 = at(m2)
            }
        }
        return min(best, d1, d2)
    }

    /// Polygons with at most this many edges scan them all for `nearestBoundaryDistance`.
    static let fewEdges = 256

    /// `forEachEdge`'s walk over the edge lists of the cells `rows` × `columns`, either width.
    @inline(__always)
    private func forEachListedEdge<Index: FixedWidthInteger>(rows: ClosedRange<Int>, columns cellColumns: ClosedRange<Int>,
                                                            start: [Index], list: [Index],
                                                            _ body: (Double, Double, Double, Double) -> Bool) {
        let v = vertices
        // An edge runs through several adjacent cells: a polygon whose edges are numbered below 64
        // (by their first vertex) marks those it has given, so that each is measured once.
        let marksEdges = v.count <= 2 * 64
        var given: UInt64 = 0
        for r in rows {
            for col in cellColumns {
                let cell = r * columns + col
                for i in Int(start[cell])..<Int(start[cell + 1]) {
                    let edge = Int(list[i])
                    if marksEdges {
                        let bit: UInt64 = 1 << UInt64(edge)
                        if given & bit != 0 { continue }
                        given |= bit
                    }
                    let base = edge * 2
                    if !body(v[base], v[base + 1], v[base + 2], v[base + 3]) { return }
                }
            }
        }
    }

    /// Calls `body` with every edge that reaches into `box` (and possibly a few more; edges may repeat),
    /// until it returns false.
    @inline(__always)
    private func forEachEdge(near box: BoundingBox, _ body: (Double, Double, Double, Double) -> Bool) {
        let lowY = max(box.minLatitude, minY), highY = min(box.maxLatitude, maxY)
        guard lowY <= highY else { return }
        let v = vertices
        // A box over few raster cells: the edges through those cells are every edge inside it.
        if box.minLongitude >= -180, box.maxLongitude <= 180 {
            let lowX = max(box.minLongitude, minX), highX = min(box.maxLongitude, maxX)
            guard lowX <= highX else { return }
            let raster = self.raster
            let (c0, r0) = raster.columnAndRow(lowX, lowY), (c1, r1) = raster.columnAndRow(highX, highY)
            if (c1 - c0 + 1) * (r1 - r0 + 1) <= 64 {
                if smallEdges.isEmpty {
                    forEachListedEdge(rows: r0...r1, columns: c0...c1, start: cellEdgeStart, list: cellEdges, body)
                } else {
                    forEachListedEdge(rows: r0...r1, columns: c0...c1, start: smallEdgeStart, list: smallEdges, body)
                }
                return
            }
        }
        let k0 = min(stripeCount - 1, max(0, Int((lowY - minY) * stripeScale)))
        let k1 = min(stripeCount - 1, max(0, Int((highY - minY) * stripeScale)))
        let stripeStart = self.stripeStart, stripeEdges = self.stripeEdges
        for k in k0...k1 {
            for i in Int(stripeStart[k])..<Int(stripeStart[k + 1]) {
                let base = Int(stripeEdges[i]) * 2
                let x1 = v[base], y1 = v[base + 1], x2 = v[base + 2], y2 = v[base + 3]
                // Edges wholly outside the box in longitude (either way round) cannot come closer.
                if max(x1, x2) < box.minLongitude - 360 || min(x1, x2) > box.maxLongitude + 360 { continue }
                if !box.overlapsLongitudes(min(x1, x2), max(x1, x2)) { continue }
                if !body(x1, y1, x2, y2) { return }
            }
        }
    }
}

/// Finds the nearest point of a set of lon/lat edges to a point, in an equirectangular frame centred
/// on it (edges straight in lon/lat stay straight there).
struct NearestPointFrame {
    let origin: Coordinate
    private let kx: Double
    private let ky = Geodesy.metresPerDegree
    /// The squared frame distance to `nearest`.
    private(set) var bestSquared = Double.infinity
    private(set) var nearest: Coordinate?

    init(_ origin: Coordinate) {
        self.init(origin, metresPerDegreeLongitude: Geodesy.metresPerDegree * cos(origin.latitude * Geodesy.radiansPerDegree))
    }

    /// - Parameter metresPerDegreeLongitude: the frame's scale east–west, metresPerDegree × cos(latitude).
    init(_ origin: Coordinate, metresPerDegreeLongitude: Double) {
        self.origin = origin
        kx = metresPerDegreeLongitude
    }

    /// Where an edge's frame distance from the origin lies against two squared distances.
    enum Closeness {
        /// Below `near`.
        case near
        /// From `near` up to `far`.
        case band
        /// Beyond `far`.
        case beyond
    }

    /// Where the edge's squared frame distance (as `consider` measures it) lies against `near` and
    /// `far`, compared without dividing by the edge's length. Rounding may place a distance within a
    /// few ulps of `near` or `far` on either side of it, which callers' thresholds leave room for.
    @inline(__always)
    func closeness(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double, near: Double, far: Double) -> Closeness {
        var alon = lon1 - origin.longitude, blon = lon2 - origin.longitude
        if min(alon, blon) > 180 {
            alon -= 360; blon -= 360
        } else if max(alon, blon) < -180 {
            alon += 360; blon += 360
        }
        let ax = alon * kx, ay = (lat1 - origin.latitude) * ky
        let dx = (blon - alon) * kx, dy = (lat2 - lat1) * ky
        let along = -(ax * dx + ay * dy), lengthSquared = dx * dx + dy * dy
        // The nearest point is an end (t ≤ 0 or t ≥ 1), or the foot of the perpendicular, whose
        // squared distance is cross² / length².
        let scaled: Double, scale: Double
        if along <= 0 || lengthSquared == 0 {
            scaled = ax * ax + ay * ay; scale = 1
        } else if along >= lengthSquared {
            let bx = ax + dx, by = ay + dy
            scaled = bx * bx + by * by; scale = 1
        } else {
            let cross = ax * dy - ay * dx
            scaled = cross * cross; scale = lengthSquared
        }
        if scaled < near * scale { return .near }
        return scaled > far * scale ? .beyond : .band
    }

    mutating func consider(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) {
        // The edge is straight in raw longitude; only the whole edge may be moved a turn round, to
        // its copy nearest the origin (an edge near the antimeridian, seen from the other side).
        var alon = lon1 - origin.longitude, blon = lon2 - origin.longitude
        if min(alon, blon) > 180 {
            alon -= 360; blon -= 360
        } else if max(alon, blon) < -180 {
            alon += 360; blon += 360
        }
        let alat = lat1 - origin.latitude, blat = lat2 - origin.latitude
        let ax = alon * kx, ay = alat * ky
        let dx = (blon - alon) * kx, dy = (blat - alat) * ky
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(ax * dx + ay * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let px = ax + t * dx, py = ay + t * dy
        let distanceSquared = px * px + py * py
        if distanceSquared < bestSquared {
            bestSquared = distanceSquared
            nearest = Coordinate(latitude: origin.latitude + alat + t * (blat - alat),
                                 longitude: origin.longitude + alon + t * (blon - alon))
        }
    }
}

extension BoundingBox {
    /// Whether [low, high] meets the box's longitudes directly or one turn round.
    func overlapsLongitudes(_ low: Double, _ high: Double) -> Bool {
        (low <= maxLongitude && high >= minLongitude)
            || (low + 360 <= maxLongitude && high + 360 >= minLongitude)
            || (low - 360 <= maxLongitude && high - 360 >= minLongitude)
    }
}
