import Foundation
import Perimeter

/// Reads a density file (docs/approximate.md): a GeoJSON FeatureCollection of `Polygon` and
/// `MultiPolygon` features, each with `properties.cell` in kilometres, the cell size of the
/// approximate grid inside it. The polygons are read and checked as a conditions file's are.
///
/// ```swift
/// let location = try DensityReader.read(contentsOf: "density.geojson", defaultGrid: ApproximateGrid(cellKilometres: 5)!)
/// ```
public enum DensityReader {
    /// Reads and checks the file; throws every problem found, each naming line, feature and field.
    public static func read(contentsOf path: String, defaultGrid: ApproximateGrid, repair: Bool = false) throws(InputErrors) -> ApproximateLocation {
        let data: Data
        do throws(InputError) {
            data = try InputFile.contents(of: path)
        } catch {
            throw InputErrors(errors: [error])
        }
        let reader = FeatureReader(file: path, repair: repair)
        var bytes = [UInt8](data)
        // A UTF-8 byte order mark first (RFC 8259 §8.1: a parser may ignore it) is skipped.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let root: JSONValue
        do throws(JSONParser.SyntaxError) {
            root = try JSONParser.parse(bytes, keepingNumberText: false)
        } catch {
            throw InputErrors(errors: [InputError(file: path, line: error.line, field: nil, message: "not JSON: \(error.message)")])
        }
        let features: [JSONValue], collectionLine: Int
        switch reader.features(of: root) {
        case .failure(let problem): throw InputErrors(errors: [problem])
        case .success(let collection): (features, collectionLine) = collection
        }
        var regions: [ApproximateLocation.Region] = [], problems: [InputError] = []
        for (index, value) in features.enumerated() {
            switch region(value, index: index, collectionLine: collectionLine, reader: reader) {
            case .success(let region): regions.append(region)
            case .failure(let problem): problems.append(problem)
            }
        }
        guard problems.isEmpty else { throw InputErrors(errors: problems) }
        return ApproximateLocation(defaultGrid: defaultGrid, regions: regions)
    }

    private static func region(_ value: JSONValue, index: Int, collectionLine: Int,
                               reader: FeatureReader) -> Result<ApproximateLocation.Region, InputError> {
        func problem(_ line: Int, _ field: String, _ message: String) -> Result<ApproximateLocation.Region, InputError> {
            .failure(InputError(file: reader.file, line: line, field: field, message: message))
        }
        guard case .object(let feature) = value else {
            return problem(collectionLine, "features[\(index)]", "expected a Feature object, got \(value.kindName)")
        }
        guard case .string("Feature")? = feature["type"] else {
            return problem(feature.line(of: "type"), "features[\(index)].type", "expected \"Feature\"")
        }
        let name = if case .string(let id)? = feature["id"] { FeatureReader.name(index, id) } else { "features[\(index)]" }
        guard case .object(let properties)? = feature["properties"] else {
            return problem(feature.line, "\(name).properties.cell", "a density region needs properties.cell, its cell size in kilometres")
        }
        guard case .number(_, let kilometres)? = properties["cell"] else {
            return problem(properties.line(of: "cell"), "\(name).properties.cell",
                           "expected the cell size in kilometres (a number), got \(properties["cell"]?.kindName ?? "nothing")")
        }
        guard let grid = ApproximateGrid(cellKilometres: kilometres) else {
            return problem(properties.line(of: "cell"), "\(name).properties.cell",
                           "the cell size must be more than 0 and at most \(Int(ApproximateGrid.largestCellKilometres)) km, got \(kilometres)")
        }
        guard case .object(let geometry)? = feature["geometry"],
              case .string(let type)? = geometry["type"], type == "Polygon" || type == "MultiPolygon" else {
            return problem(feature.line(of: "geometry"), "\(name).geometry", "a density region is a Polygon or a MultiPolygon")
        }
        do throws(FeatureReader.LocatedProblem) {
            guard case .polygon(let area) = try reader.readCondition(feature, properties: JSONObject(members: [], line: feature.line)) else {
                return problem(feature.line(of: "geometry"), "\(name).geometry", "a density region is a Polygon or a MultiPolygon")
            }
            return .success(ApproximateLocation.Region(area: area, grid: grid))
        } catch {
            return problem(error.line, "\(name).\(error.field)", error.message)
        }
    }
}
