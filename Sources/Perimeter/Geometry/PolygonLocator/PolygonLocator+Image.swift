extension PolygonLocator {
    /// Writes the locator as built, for `init(image:)` in another process: what cannot be worked out
    /// again cheaply, in the order `init(image:)` reads it.
    func write(to image: inout IndexImageWriter) {
        image.write(vertices)
        image.write(ringEdgeCounts)
        image.write(stripeCount)
        image.write(columns)
        image.write(rows)
        image.write(stripeStart); image.write(stripeEdges)
        image.write(cells); image.write(cellDetails)
        image.write(blocks)
        image.write(cellEdgeStart); image.write(cellEdges)
        image.write(smallEdgeStart); image.write(smallEdges)
    }

    /// Throws unless the parts read back fit together as `init(_:)` builds them: every number a
    /// query turns into a cell is finite, every list's starts rise within the list, every edge number
    /// names an edge, the raster's arrays are its size. An image that passes can answer wrongly only
    /// if its numbers were changed on purpose; the file that holds it carries a digest against
    /// everything else.
    func checkParts() throws(IndexImageProblem) {
        let tolerance = Coordinate.vertexTolerance
        guard vertices.allSatisfy(\.isFinite), -180 - tolerance <= minX, maxX <= 180 + tolerance,
              -90 - tolerance <= minY, maxY <= 90 + tolerance else {
            throw IndexImageProblem("a polygon's vertices are not on the sphere")
        }
        let ringVertices = ringEdgeCounts.reduce(0) { $0 + Int($1.magnitude) + 1 }
        let cellCount = columns.multipliedReportingOverflow(by: rows)
        guard vertices.count == 2 * ringVertices, !cellCount.overflow,
              cells.count == cellCount.partialValue, cellDetails.count == cells.count,
              cells.allSatisfy({ $0 <= Self.boundary }), blocks.allSatisfy({ $0 <= Self.boundary }),
              blocks.count == (blockColumns > 0 ? blockColumns * ((rows + (1 << Self.blockShift) - 1) >> Self.blockShift) : 0),
              IndexImageReader.listsFit(stripeStart, stripeEdges, lists: stripeCount, below: ringVertices - 1) else {
            throw IndexImageProblem("a polygon's index does not hold together")
        }
        let small = cellEdgeStart.isEmpty && cellEdges.isEmpty
        let fits = small ? IndexImageReader.listsFit(smallEdgeStart, smallEdges, lists: cells.count, below: ringVertices - 1)
                         : smallEdgeStart.isEmpty && smallEdges.isEmpty && IndexImageReader.listsFit(cellEdgeStart, cellEdges, lists: cells.count, below: ringVertices - 1)
        guard fits else { throw IndexImageProblem("a polygon's cell lists do not hold together") }
    }
}
