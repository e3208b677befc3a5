import Foundation

/// A polygon's edges set up once in the equirectangular frame of one latitude — a cover-grid row's —
/// so that the nearest boundary point to each point of that latitude (each cell centre of the row)
/// costs a few multiplications per edge.
///
/// It finds the point `NearestPointFrame` finds for an origin at that latitude: the same frame (scale
/// east–west from the latitude's cosine, straight edges in raw longitude), only with the scale, the
/// edges' offsets and their lengths computed per row rather than per point. Edges are taken as they
/// are written, never a turn round the antimeridian, so it is for polygons clear of it (the caller
/// checks). `load` reuses its arrays from row to row.
struct RowFrameEdges {
    /// Per edge: its start's offset from (`originLongitude`, the row's latitude) in metres, its
    /// extent in metres, and the reciprocal of that extent's squared length (0 for a point): a
    /// multiplication per edge and cell where a division cost several times as much.
    private var startX: [Double] = [], startY: [Double] = []
    private var extentX: [Double] = [], extentY: [Double] = []
    private var inverseLengthSquared: [Double] = []
    private var edges: [Double] = []
    private var latitude = 0.0
    private var originLongitude = 0.0
    private var kx = 0.0
    private let ky = Geodesy.metresPerDegree

    /// Sets up `edges` (`x1, y1, x2, y2` in degrees, as `PolygonLocator.edges`) in the frame of
    /// `latitude`, longitudes measured from `originLongitude`.
    mutating func load(_ edges: [Double], latitude: Double, originLongitude: Double) {
        self.edges = edges
        self.latitude = latitude
        self.originLongitude = originLongitude
        kx = Geodesy.metresPerDegree * cos(latitude * Geodesy.radiansPerDegree)
        let count = edges.count / 4
        if startX.count != count {
            for k in [\Self.startX, \.startY, \.extentX, \.extentY, \.inverseLengthSquared] { self[keyPath: k] = [Double](repeating: 0, count: count) }
        }
        for e in 0..<count {
            let ax = (edges[4 * e] - originLongitude) * kx, ay = (edges[4 * e + 1] - latitude) * ky
            let dx = (edges[4 * e + 2] - edges[4 * e]) * kx, dy = (edges[4 * e + 3] - edges[4 * e + 1]) * ky
            startX[e] = ax; startY[e] = ay
            extentX[e] = dx; extentY[e] = dy
            let l2 = dx * dx + dy * dy
            inverseLengthSquared[e] = l2 > 0 ? 1 / l2 : 0
        }
    }

    /// The boundary point nearest (in the frame) to the point of the row's latitude at `longitude`;
    /// `nil` if there are no edges.
    func nearestPoint(toLongitude longitude: Double) -> Coordinate? {
        let x = (longitude - originLongitude) * kx
        var best = Double.infinity, bestEdge = -1, bestT = 0.0
        for e in startX.indices {
            let ax = startX[e] - x, ay = startY[e], dx = extentX[e], dy = extentY[e]
            let t = min(1, max(0, -(ax * dx + ay * dy) * inverseLengthSquared[e]))
            let px = ax + t * dx, py = ay + t * dy
            let d2 = px * px + py * py
            if d2 < best {
                best = d2
                bestEdge = e
                bestT = t
            }
        }
        guard bestEdge >= 0 else { return nil }
        let lon1 = edges[4 * bestEdge], lat1 = edges[4 * bestEdge + 1]
        return Coordinate(latitude: lat1 + bestT * (edges[4 * bestEdge + 3] - lat1),
                          longitude: lon1 + bestT * (edges[4 * bestEdge + 2] - lon1))
    }
}
