import Foundation

// How fine the locator's indexes are: what its build costs, in time and memory, against what a point
// costs (docs/design/polygon-locator.md, "How fine").
extension PolygonLocator {
    /// How many stripes: about one per edge, so that a stripe lists a handful of edges on real
    /// outlines — but one for a polygon of few edges, whose stripes only serve the rare fallbacks,
    /// and fewer wherever edges are long: an edge is listed in every stripe it spans, and the
    /// listings are kept to about four per edge. (A random 10,000-edge polygon, whose edges span a
    /// tenth of its height on average, listed 7.5 million at one stripe per edge, 30 MB; its stripes
    /// list about as many edges each either way.)
    static func stripeCount(vertices: [Double], ringEdgeCounts: [Int32], edgeCount: Int, height: Double) -> Int {
        guard edgeCount > fewStripedEdges else { return 1 }
        var spans = 0.0
        forEachEdgeNumber(ringEdgeCounts) { e in spans += abs(vertices[2 * e + 3] - vertices[2 * e + 1]) }
        let listings = 3 * Double(edgeCount) * height / max(spans, 1e-300)
        return max(1, min(edgeCount, 1 << 16, Int(min(listings, Double(Int32.max)))))
    }

    /// About how many raster cells to start from: 4 per edge for a polygon of few edges (at least
    /// 128: 256 took 15 % more memory over 10k polygons of 16–64 edges for no time that showed),
    /// 32 per edge from 512 edges — where real outlines leave well under 1 % of the cells on the
    /// boundary (Brazil's 39,913 edges: 0.6 %) — and at most 2048 × 2048.
    static func rasterTarget(edgeCount: Int) -> Int {
        min(max((edgeCount >= manyEdges ? 32 : 4) * edgeCount, 128), largestRaster)
    }

    /// A raster of which more than 1 in `boundaryShare` cells are boundary cells (long edges, as a
    /// star's spikes; many small islands, as the world's land) is built again, once, with this many
    /// times the cells, as far as `largestRaster`: a point in a boundary cell costs some twenty times
    /// one answered by its cell's byte, so past a few percent those points are most of a query's cost.
    /// (At 1 in 4, the world's land and Canada answered a third slower than at 256 cells an edge.)
    static let refinement = 8
    static let boundaryShare = 25

    /// Polygons of at least this many edges get the finer raster.
    static let manyEdges = 512
    static let largestRaster = 1 << 22

    /// The raster's columns and rows for about `target` cells shaped like a box `width` × `height`.
    static func rasterDimensions(target: Int, width: Double, height: Double) -> (columns: Int, rows: Int) {
        let aspect = width / height, cells = Double(target)
        return (max(1, min(2048, Int((cells * aspect).squareRoot().rounded(.up)))),
                max(1, min(2048, Int((cells / aspect).squareRoot().rounded(.up)))))
    }

    /// The numbers a query derives cells from, for a raster of `columns` × `rows` and `stripeCount`
    /// stripes over the box: worked out one way, for a build and for an image read back.
    static func frame(minX: Double, minY: Double, maxX: Double, maxY: Double, stripeCount: Int, columns: Int, rows: Int)
        -> (stripeScale: Double, cellScaleX: Double, cellScaleY: Double, metresPerClearanceCell: Double, largestClearance: Double) {
        let width = max(maxX - minX, 1e-12), height = max(maxY - minY, 1e-12)
        let cellScaleX = Double(columns) / width, cellScaleY = Double(rows) / height
        // A box that reaches a pole has no clearance to speak of: every longitude meets there, so a
        // boundary cell far along the raster's top (or bottom) row can be metres away over the pole.
        let poleward = max(abs(minY), abs(maxY))
        let metresPerClearanceCell = poleward >= 90 ? 0 : min(1 / cellScaleX, 1 / cellScaleY) * Geodesy.metresPerDegree
            * cos(poleward * Geodesy.radiansPerDegree) * 0.99
        return (Double(stripeCount) / height, cellScaleX, cellScaleY, metresPerClearanceCell,
                (25 * cellScaleX).rounded(.down) * metresPerClearanceCell)
    }

    /// Blocks' columns for a raster this size: none when it stays in cache without them.
    static func blockColumns(columns: Int, rows: Int) -> Int {
        columns * rows > largestUnblockedRaster ? (columns + (1 << blockShift) - 1) >> blockShift : 0
    }

    /// The box of `vertices` (`x, y` pairs).
    static func extent(_ vertices: [Double]) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in stride(from: 0, to: vertices.count - 1, by: 2) {
            minX = min(minX, vertices[k]); maxX = max(maxX, vertices[k])
            minY = min(minY, vertices[k + 1]); maxY = max(maxY, vertices[k + 1])
        }
        return (minX, minY, maxX, maxY)
    }

    /// Whether some edge lies on the antimeridian or at a pole (`isSeamEdge`).
    static func hasSeamEdge(_ vertices: [Double], _ ringEdgeCounts: [Int32]) -> Bool {
        var found = false
        forEachEdgeNumber(ringEdgeCounts) { e in
            if isSeamEdge(vertices[2 * e], vertices[2 * e + 1], vertices[2 * e + 2], vertices[2 * e + 3]) { found = true }
        }
        return found
    }
}
