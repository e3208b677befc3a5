/// Where a reduced-accuracy app sees a position (SPEC §5.3): the grid of `ApproximateGrid` cells of
/// the default size, and regions (a city, say) with grids of their own.
///
/// ```swift
/// let city = try PolygonalGeographicCondition(polygons: [downtown])
/// let location = ApproximateLocation(defaultGrid: ApproximateGrid(cellKilometres: 5)!,
///                                    regions: [.init(area: city, grid: ApproximateGrid(cellKilometres: 1)!)])
/// let report = location.report(for: Coordinate(latitude: 45.76, longitude: 4.84))
/// // report.centre, report.radius: the circle the app sees
/// ```
public struct ApproximateLocation: Sendable {
    /// An area with its own cell size; the first region that holds a position (its boundary
    /// included) decides that position's grid.
    public struct Region: Sendable {
        public var area: PolygonalGeographicCondition
        public var grid: ApproximateGrid
        let locator: PolygonLocator

        public init(area: PolygonalGeographicCondition, grid: ApproximateGrid) {
            self.area = area
            self.grid = grid
            locator = PolygonLocator(area.polygons)
        }
    }

    /// The grid outside every region (5 km cells unless told).
    public var defaultGrid: ApproximateGrid
    /// The regions, first match wins.
    public var regions: [Region]

    /// The default 5 km grid, no regions.
    public static let standard = ApproximateLocation(defaultGrid: ApproximateGrid(cellKilometres: 5)!)

    public init(defaultGrid: ApproximateGrid, regions: [Region] = []) {
        self.defaultGrid = defaultGrid
        self.regions = regions
    }

    /// The grid that quantizes `coordinate`.
    public func grid(at coordinate: Coordinate) -> ApproximateGrid {
        regions.first { $0.locator.covers(coordinate.longitude, coordinate.latitude) }?.grid ?? defaultGrid
    }

    /// The report of the cell that holds `coordinate`.
    public func report(for coordinate: Coordinate) -> ApproximateReport {
        let grid = grid(at: coordinate)
        let cell = grid.cell(containing: coordinate)
        return ApproximateReport(cellKilometres: grid.cellKilometres, cell: cell, centre: grid.centre(of: cell),
                                 radius: grid.radius(of: cell))
    }
}

/// What a reduced-accuracy app sees: a cell's centre and the radius of the circle about it that holds
/// the cell.
public struct ApproximateReport: Sendable, Hashable, Codable {
    /// The size of the grid the cell belongs to: cells of two grids are never the same cell.
    public var cellKilometres: Double
    public var band: Int
    public var column: Int
    /// The location the app sees.
    public var centre: Coordinate
    /// Its accuracy, in whole metres.
    public var radius: Double

    public init(cellKilometres: Double, cell: ApproximateGrid.Cell, centre: Coordinate, radius: Double) {
        self.cellKilometres = cellKilometres
        band = cell.band
        column = cell.column
        self.centre = centre
        self.radius = radius
    }

    /// Whether two reports name the same cell of the same grid.
    public func isSameCell(as other: ApproximateReport) -> Bool {
        cellKilometres == other.cellKilometres && band == other.band && column == other.column
    }
}
