import ArgumentParser
import Perimeter
import PerimeterIO

/// The approximate location's numbers (SPEC §5.3), for `evaluate --approximate` and `updates`.
struct ApproximateOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Kilometres across an approximate-location cell outside the density regions (0 < KM ≤ 2000).")
    var approximateCell: Double = 5

    @Option(parsing: .unconditional, help: "Seconds an approximate location stands before a fix in another cell may replace it.")
    var approximateInterval: Double = 900

    @Option(help: "GeoJSON of Polygon/MultiPolygon features with properties.cell (km): smaller or larger cells inside them.")
    var density: String?

    func validate() throws {
        guard ApproximateGrid(cellKilometres: approximateCell) != nil else {
            throw ValidationError("--approximate-cell must be more than 0 and at most 2000 km, got \(approximateCell)")
        }
        guard approximateInterval.isFinite && approximateInterval >= 0 else {
            throw ValidationError("--approximate-interval must be a finite number of seconds ≥ 0, got \(approximateInterval)")
        }
    }

    /// The grids: the default cell, and the density file's regions.
    func location() throws -> ApproximateLocation {
        let grid = ApproximateGrid(cellKilometres: approximateCell)!
        guard let density else { return ApproximateLocation(defaultGrid: grid) }
        do {
            return try DensityReader.read(contentsOf: density, defaultGrid: grid)
        } catch {
            throw CommandSupport.fail(error.description)
        }
    }
}
