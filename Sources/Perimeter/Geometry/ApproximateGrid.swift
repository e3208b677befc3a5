import Foundation

/// The fixed grid of cells in which a reduced-accuracy app sees its location (SPEC §5.3): a fix is
/// reported as its cell's centre, with an accuracy that is the radius of the smallest circle about
/// that centre holding the whole cell, so the circle always contains the fix.
///
/// *(Our rule for the cells.)* Rows are bands of latitude `cellKilometres` high (on the mean Earth
/// sphere), from the south pole up; the last band ends at the north pole. Each band is cut into as
/// few equal columns of longitude, from −180°, as keep its widest parallel (the one nearest the
/// equator) at most `cellKilometres` per column. A cell's centre is the middle of its latitudes and
/// of its longitudes, and its radius the largest distance from the centre to a corner, in whole
/// metres rounded up: on a sphere the farthest point of such a cell from its centre is a corner.
///
/// ```swift
/// let grid = ApproximateGrid(cellKilometres: 5)!
/// let cell = grid.cell(containing: Coordinate(latitude: 48.8606, longitude: 2.3376))
/// print(grid.centre(of: cell), grid.radius(of: cell))   // the centre, and about 3,500 m
/// ```
public struct ApproximateGrid: Sendable, Hashable {
    /// How far across a cell is, at most, in kilometres.
    public let cellKilometres: Double
    /// A band's height in degrees of latitude, and how many bands there are.
    let bandDegrees: Double
    let bands: Int

    /// The largest cell there may be: a band then still has a few columns at the equator.
    public static let largestCellKilometres = 2_000.0

    /// `nil` unless 0 < `cellKilometres` ≤ `largestCellKilometres`.
    public init?(cellKilometres: Double) {
        guard cellKilometres > 0 && cellKilometres <= Self.largestCellKilometres else { return nil }
        self.cellKilometres = cellKilometres
        bandDegrees = cellKilometres * 1000 / Geodesy.metresPerDegree
        bands = Int((180 / bandDegrees).rounded(.up))
    }

    /// A cell: its band (0 at the south pole) and its column in the band (0 from −180°).
    public struct Cell: Sendable, Hashable {
        public var band: Int
        public var column: Int
    }

    /// The cell a coordinate is in (a coordinate on a line between cells is in the cell north or east
    /// of it; 90° in the last band, 180° in the last column).
    public func cell(containing coordinate: Coordinate) -> Cell {
        let band = min(bands - 1, max(0, Int(((coordinate.latitude + 90) / bandDegrees).rounded(.down))))
        let columns = columnCount(band)
        let column = min(columns - 1, max(0, Int(((coordinate.longitude + 180) / (360 / Double(columns))).rounded(.down))))
        return Cell(band: band, column: column)
    }

    /// The band's latitudes, south to north.
    func latitudes(_ band: Int) -> (south: Double, north: Double) {
        (-90 + Double(band) * bandDegrees, min(90, -90 + Double(band + 1) * bandDegrees))
    }

    /// How many columns the band has: its widest parallel at most `cellKilometres` a column.
    func columnCount(_ band: Int) -> Int {
        let (south, north) = latitudes(band)
        let widest = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
        let metres = 360 * Geodesy.metresPerDegree * cos(widest * Geodesy.radiansPerDegree)
        return max(1, Int((metres / (cellKilometres * 1000)).rounded(.up)))
    }

    /// The cell's corners: south-west, south-east, north-west, north-east.
    func corners(of cell: Cell) -> [Coordinate] {
        let (south, north) = latitudes(cell.band)
        let width = 360 / Double(columnCount(cell.band))
        let west = -180 + Double(cell.column) * width, east = west + width
        return [Coordinate(latitude: south, longitude: west), Coordinate(latitude: south, longitude: east),
                Coordinate(latitude: north, longitude: west), Coordinate(latitude: north, longitude: east)]
    }

    /// The middle of the cell's latitudes and longitudes.
    public func centre(of cell: Cell) -> Coordinate {
        let (south, north) = latitudes(cell.band)
        let width = 360 / Double(columnCount(cell.band))
        return Coordinate(latitude: (south + north) / 2, longitude: -180 + (Double(cell.column) + 0.5) * width)
    }

    /// The radius in metres, rounded up, of the smallest circle about the centre that holds the cell.
    /// (A micrometre is added before rounding, so that a distance computed a rounding error beyond
    /// a corner's is still inside.)
    public func radius(of cell: Cell) -> Double {
        let centre = centre(of: cell)
        return (corners(of: cell).map { Geodesy.distance(centre, $0) }.max()! + 1e-6).rounded(.up)
    }
}
