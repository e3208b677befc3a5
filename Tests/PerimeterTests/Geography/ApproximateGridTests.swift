import Foundation
import PropertyBased
import Testing
@testable import Perimeter

/// The grid of approximate locations (docs/approximate.md): every point is inside its cell and within
/// the cell's radius of its centre, on the whole sphere — the poles, the antimeridian and the lines
/// between cells weighted in — and the cells are no larger than asked.
@Suite(.shrinking) struct ApproximateGridTests {
    static let sizes = [0.5, 1, 2, 5, 5, 5, 10, 25, 100, 1000, 2000]

    /// A point of one of several kinds: anywhere, near or at a pole, near or at the antimeridian, on
    /// a band's edge, on a column's edge.
    static func point(kind: Int, u: Double, v: Double, grid: ApproximateGrid) -> Coordinate {
        let lat = -90 + 180 * u, lon = -180 + 360 * v
        switch kind {
        case 0: return Coordinate(latitude: 90 - u * 1e-6, longitude: lon)
        case 1: return Coordinate(latitude: -90 + u * 1e-6, longitude: lon)
        case 2: return Coordinate(latitude: u < 0.5 ? 90 : -90, longitude: lon)
        case 3: return Coordinate(latitude: lat, longitude: v < 0.5 ? 180 - v * 1e-9 : -180 + v * 1e-9)
        case 4: return Coordinate(latitude: lat, longitude: v < 0.5 ? 180 : -180)
        case 5:
            let band = Int(u * Double(grid.bands - 1))
            return Coordinate(latitude: grid.latitudes(band).south, longitude: lon)
        case 6:
            let band = grid.cell(containing: Coordinate(latitude: lat, longitude: 0)).band
            let columns = grid.columnCount(band)
            return Coordinate(latitude: lat, longitude: -180 + Double(Int(v * Double(columns - 1))) * (360 / Double(columns)))
        default: return Coordinate(latitude: lat, longitude: lon)
        }
    }

    @Test func everyPointIsInsideItsCellsCircle() async {
        await propertyCheck(count: 4000, input: Gen.int(in: 0...10), Gen.double(in: 0...1), Gen.double(in: 0...1),
                            Gen.int(in: 0...(Self.sizes.count - 1))) { kind, u, v, sizeIndex in
            let size = Self.sizes[sizeIndex]
            let grid = try #require(ApproximateGrid(cellKilometres: size))
            let point = Self.point(kind: kind, u: u, v: v, grid: grid)
            let cell = grid.cell(containing: point)
            let (south, north) = grid.latitudes(cell.band)
            let width = 360 / Double(grid.columnCount(cell.band))
            let west = -180 + Double(cell.column) * width
            // (Edges are sums of degrees: a point on one may be a rounding beyond the sum.)
            #expect(south - 1e-9 <= point.latitude && point.latitude <= north + 1e-9, "\(point) is not in band \(cell.band)")
            #expect(west - 1e-9 <= point.longitude && point.longitude <= west + width + 1e-9, "\(point) is not in column \(cell.column)")
            let centre = grid.centre(of: cell), radius = grid.radius(of: cell)
            #expect(Geodesy.distance(centre, point) <= radius, "\(point): \(Geodesy.distance(centre, point)) m from \(centre), radius \(radius)")
            // No larger than asked: the band's height, and a column's length on the widest parallel.
            // (Within a micrometre: the band's edges are sums of many degrees, each a rounding off.)
            #expect((north - south) * Geodesy.metresPerDegree <= size * 1000 + 1e-6)
            let widest = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
            #expect(width * Geodesy.metresPerDegree * cos(widest * Geodesy.radiansPerDegree) <= size * 1000 + 1e-6)
        }
    }

    @Test func cellsOfFiveKilometres() throws {
        let grid = try #require(ApproximateGrid(cellKilometres: 5))
        let louvre = grid.cell(containing: Coordinate(latitude: 48.8606, longitude: 2.3376))
        // A 5 km square at the equator has a half-diagonal of 3,535.5 m; at 48.9° its columns are
        // narrower on their northern edge, so a little less.
        #expect(grid.radius(of: grid.cell(containing: Coordinate(latitude: 0.01, longitude: 0.01))) == 3536)
        #expect((3400...3536).contains(grid.radius(of: louvre)))
        // The band at the south pole is a ring of seven wedges around it; the last band, at the north
        // pole, is lower (180° is not a whole number of bands) and here one cap.
        #expect(grid.columnCount(0) == 7)
        #expect(grid.columnCount(grid.bands - 1) == 1)
        #expect(ApproximateGrid(cellKilometres: 0) == nil && ApproximateGrid(cellKilometres: 2001) == nil)
    }
}

/// The grid against the independent oracle (`scripts/reference_approximate.py`, written from
/// docs/approximate.md alone) over `Fixtures/approximate/`: the poles, the antimeridian, the lines
/// between cells and cell sizes from 0.5 to 2,000 km — the same cells, centres and radii.
@Suite struct ApproximateGridOracleTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/approximate")

    @Test func theGridGivesTheOraclesCells() throws {
        let lines = try String(contentsOf: Self.folder.appendingPathComponent("expected.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        #expect(lines.count > 500)
        for line in lines {
            let cells = line.split(separator: ",").map(String.init)
            let (lat, lon, size) = (try #require(Double(cells[0])), try #require(Double(cells[1])), try #require(Double(cells[2])))
            let grid = try #require(ApproximateGrid(cellKilometres: size))
            let cell = grid.cell(containing: Coordinate(latitude: lat, longitude: lon))
            let centre = grid.centre(of: cell)
            #expect([cell.band, cell.column] == [Int(cells[3]), Int(cells[4])], "\(line)")
            #expect([centre.latitude, centre.longitude] == [Double(cells[5]), Double(cells[6])], "\(line)")
            #expect(grid.radius(of: cell) == Double(cells[7]), "\(line)")
        }
    }
}
