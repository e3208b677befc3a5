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
    /// One edge in the row's frame: its start's offset from (`originLongitude`, the row's latitude)
    /// in metres, its extent in metres, and the reciprocal of that extent's squared length (0 for a
    /// point): a multiplication per edge and cell where a division cost several times as much.
    private struct FrameEdge {
        var startX = 0.0, startY = 0.0, extentX = 0.0, extentY = 0.0, inverseLengthSquared = 0.0
    }

    private var frameEdges: [FrameEdge] = []
    /// The locator loaded (each row of a polygon loads it again), and each of its edges' first
    /// vertex's position among its `vertices`.
    private var loaded: PolygonLocator?
    private var bases: [Int] = []
    private var latitude = 0.0
    private var originLongitude = 0.0
    private var kx = 0.0
    private let ky = Geodesy.metresPerDegree

    /// Sets up the edges of `locator` (in degrees) in the frame of `latitude`, longitudes measured
    /// from `originLongitude`.
    mutating func load(_ locator: PolygonLocator, latitude: Double, originLongitude: Double) {
        if loaded !== locator { take(locator) }
        self.latitude = latitude
        self.originLongitude = originLongitude
        let kx = Geodesy.metresPerDegree * cos(latitude * Geodesy.radiansPerDegree), ky = self.ky
        self.kx = kx
        let v = locator.vertices, bases = self.bases
        if frameEdges.count != bases.count { frameEdges = Array(repeating: FrameEdge(), count: bases.count) }
        frameEdges.withUnsafeMutableBufferPointer { edges in
            for e in edges.indices {
                let b = bases[e]
                let dx = (v[b + 2] - v[b]) * kx, dy = (v[b + 3] - v[b + 1]) * ky
                let l2 = dx * dx + dy * dy
                edges[e] = FrameEdge(startX: (v[b] - originLongitude) * kx, startY: (v[b + 1] - latitude) * ky,
                                     extentX: dx, extentY: dy, inverseLengthSquared: l2 > 0 ? 1 / l2 : 0)
            }
        }
    }

    /// Keeps `locator` and the position of each of its boundary edges' first vertex among its
    /// vertices (seam and pole edges are no boundary: `PolygonLocator.isSeamEdge`).
    private mutating func take(_ locator: PolygonLocator) {
        loaded = locator
        bases.removeAll(keepingCapacity: true)
        locator.forEveryBoundaryEdgeNumber { bases.append(2 * $0) }
    }

    /// The boundary point nearest (in the frame) to the point of the row's latitude at `longitude`;
    /// `nil` if there are no edges.
    func nearestPoint(toLongitude longitude: Double) -> Coordinate? {
        let x = (longitude - originLongitude) * kx
        var best = Double.infinity, bestEdge = -1, bestT = 0.0
        for e in frameEdges.indices {
            let edge = frameEdges[e]
            let ax = edge.startX - x, ay = edge.startY, dx = edge.extentX, dy = edge.extentY
            let t = min(1, max(0, -(ax * dx + ay * dy) * edge.inverseLengthSquared))
            let px = ax + t * dx, py = ay + t * dy
            let d2 = px * px + py * py
            if d2 < best {
                best = d2
                bestEdge = e
                bestT = t
            }
        }
        guard bestEdge >= 0, let vertices = loaded?.vertices else { return nil }
        let b = bases[bestEdge]
        let lon1 = vertices[b], lat1 = vertices[b + 1]
        return Coordinate(latitude: lat1 + bestT * (vertices[b + 3] - lat1),
                          longitude: lon1 + bestT * (vertices[b + 2] - lon1))
    }
}
