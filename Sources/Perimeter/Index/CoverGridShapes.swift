import Foundation

/// What the cover grid needs to know of the geographic conditions it lays out, numbered densely from
/// 0: their boxes, which are gone, and on which side of each boundary a cell's centre lies. The
/// catalogue answers it; the grid names no catalogue, so it can be built and tested from any shapes.
protocol CoverGridShapes: Sendable {
    /// How many geographic conditions are numbered, removed ones included.
    var geographicCount: Int { get }
    /// Whether the grid leaves condition `i` out (removed, or kept elsewhere).
    func isLeftOut(_ i: Int32) -> Bool
    /// Condition `i`'s bounding box.
    func boundingBox(_ i: Int32) -> BoundingBox
    /// Condition `i`'s shape when it is a polygon whose cells can be classified row by row.
    func rowFrameShape(_ i: Int32) -> PolygonShape?
    /// Which side of polygon `shape`'s boundary `centre` is on, and how far it stays from it, with
    /// the shape's edges already set up in the frame of the centre's row.
    func centreRelation(_ shape: PolygonShape, centre: Coordinate, edges: RowFrameEdges) -> (CoverGrid.Relation, Double)
    /// Which side of condition `i`'s boundary `centre` (also given as a unit vector) is on, and a
    /// lower bound on its distance to it; exact up to `within`.
    func centreRelation(_ i: Int32, centre: Coordinate, unit: (x: Double, y: Double, z: Double),
                        within: Double) -> (CoverGrid.Relation, Double)
}
