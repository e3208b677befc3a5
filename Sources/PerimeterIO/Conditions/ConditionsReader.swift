import Foundation
import Perimeter

/// Reads conditions from a GeoJSON (RFC 7946) FeatureCollection, as SPEC §1 describes: a `Point` with
/// `properties.radius` is a circle, a `Polygon`/`MultiPolygon` a polygon, a `null` geometry with
/// `properties.beacon` a beacon identity.
public enum ConditionsReader {
    /// Reads and checks a whole file; throws every problem found, each naming line, feature and field.
    /// - Parameter repair: repair invalid polygons with GEOS's make-valid instead of refusing them.
    public static func read(contentsOf path: String, repair: Bool = false) throws(InputErrors) -> [ConditionDefinition] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputErrors(errors: [InputError(file: path, line: nil, field: nil, message: "cannot read the file: \(error.localizedDescription)")])
        }
        let (definitions, problems) = parse(data, file: path, repair: repair)
        guard problems.isEmpty else { throw InputErrors(errors: problems) }
        return definitions
    }

    /// Parses conditions; returns the good ones and every problem (an empty list means the file is fine).
    public static func parse(_ data: Data, file: String, repair: Bool = false) -> ([ConditionDefinition], [InputError]) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(data)
        } catch {
            return ([], [InputError(file: file, line: error.line, field: nil, message: "not JSON: \(error.message)")])
        }
        var reader = FeatureReader(file: file, repair: repair)
        reader.read(root)
        return (reader.definitions, reader.problems)
    }
}

/// Walks a FeatureCollection, collecting definitions and problems.
private struct FeatureReader {
    let file: String
    let repair: Bool
    var definitions: [ConditionDefinition] = []
    var problems: [InputError] = []
    private var firstLineOfIdentifier: [String: Int] = [:]

    init(file: String, repair: Bool) {
        self.file = file
        self.repair = repair
    }

    mutating func read(_ root: JSONValue) {
        guard case .object(let collection) = root else {
            return problem(line: 1, field: nil, "expected a GeoJSON FeatureCollection object, got \(root.kindName)")
        }
        guard case .string("FeatureCollection")? = collection["type"] else {
            return problem(line: collection.line(of: "type"), field: "type", "expected \"FeatureCollection\"")
        }
        guard case .array(let features)? = collection["features"] else {
            return problem(line: collection.line(of: "features"), field: "features", "expected an array of features")
        }
        for (index, feature) in features.enumerated() {
            readFeature(feature, index: index, collectionLine: collection.line(of: "features"))
        }
    }

    private mutating func problem(line: Int, field: String?, _ message: String) {
        problems.append(InputError(file: file, line: line, field: field, message: message))
    }

    private mutating func readFeature(_ value: JSONValue, index: Int, collectionLine: Int) {
        var name = "features[\(index)]"
        guard case .object(let feature) = value else {
            return problem(line: collectionLine, field: name, "expected a Feature object, got \(value.kindName)")
        }
        guard case .string("Feature")? = feature["type"] else {
            return problem(line: feature.line(of: "type"), field: "\(name).type", "expected \"Feature\"")
        }
        guard case .string(let identifier)? = feature["id"], !identifier.isEmpty else {
            return problem(line: feature.line(of: "id"), field: "\(name).id",
                           "every condition needs a non-empty string id (its identifier)")
        }
        name += " (id \"\(identifier)\")"
        if let first = firstLineOfIdentifier[identifier] {
            return problem(line: feature.line(of: "id"), field: "\(name).id",
                           "duplicate identifier \"\(identifier)\" (first used on line \(first))")
        }
        firstLineOfIdentifier[identifier] = feature.line(of: "id")

        var properties = JSONObject(members: [], line: feature.line)
        switch feature["properties"] {
        case .object(let object)?: properties = object
        case .null?, nil: break
        case let other?:
            return problem(line: feature.line(of: "properties"), field: "\(name).properties", "expected an object, got \(other.kindName)")
        }

        var assuming: ConditionState?
        if let value = properties["assuming"] {
            guard case .string(let text) = value, let state = ConditionState(rawValue: text) else {
                return problem(line: properties.line(of: "assuming"), field: "\(name).properties.assuming",
                               "expected \"unknown\", \"satisfied\" or \"unsatisfied\"")
            }
            assuming = state
        }

        let condition: Condition
        do throws(LocatedProblem) {
            condition = try readCondition(feature, properties: properties)
        } catch {
            return problem(line: error.line, field: "\(name).\(error.field)", error.message)
        }
        definitions.append(ConditionDefinition(identifier: identifier, condition: condition, assuming: assuming, line: feature.line))
    }

    private struct LocatedProblem: Error {
        var line: Int
        var field: String
        var message: String
    }

    private func readCondition(_ feature: JSONObject, properties: JSONObject) throws(LocatedProblem) -> Condition {
        let geometryLine = feature.line(of: "geometry")
        switch feature["geometry"] {
        case .null?, nil:
            guard let beacon = properties["beacon"] else {
                throw LocatedProblem(line: geometryLine, field: "geometry",
                                     message: "a null geometry is a beacon condition and needs properties.beacon")
            }
            return .beacon(try readBeacon(beacon, line: properties.line(of: "beacon")))
        case .object(let geometry)?:
            if properties["beacon"] != nil {
                throw LocatedProblem(line: properties.line(of: "beacon"), field: "properties.beacon",
                                     message: "a beacon condition must have a null geometry")
            }
            guard case .string(let type)? = geometry["type"] else {
                throw LocatedProblem(line: geometry.line, field: "geometry.type", message: "expected a geometry type")
            }
            let coordinatesLine = geometry.line(of: "coordinates")
            guard let coordinates = geometry["coordinates"] else {
                throw LocatedProblem(line: geometry.line, field: "geometry.coordinates", message: "missing")
            }
            switch type {
            case "Point":
                let center = try position(coordinates, field: "geometry.coordinates", line: coordinatesLine)
                guard center.isValid else {
                    throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates",
                                         message: "position [\(center.longitude), \(center.latitude)] is out of range (lon −180…180, lat −90…90)")
                }
                guard case .number(_, let radius)? = properties["radius"] else {
                    throw LocatedProblem(line: properties.line(of: "radius"), field: "properties.radius",
                                         message: "a circle (Point) needs a radius in metres")
                }
                do throws(GeometryProblem) {
                    return .circle(try CircularGeographicCondition(center: center, radius: radius))
                } catch {
                    let line = error.field == "properties.radius" ? properties.line(of: "radius") : coordinatesLine
                    throw LocatedProblem(line: line, field: error.field, message: error.message)
                }
            case "Polygon":
                return try polygon([try polygonRings(coordinates, field: "geometry.coordinates", line: coordinatesLine)],
                                   line: coordinatesLine)
            case "MultiPolygon":
                guard case .array(let parts) = coordinates else {
                    throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates", message: "expected an array of polygons")
                }
                var polygons: [GeoPolygon] = []
                for (i, part) in parts.enumerated() {
                    polygons.append(try polygonRings(part, field: "geometry.coordinates[\(i)]", line: coordinatesLine))
                }
                return try polygon(polygons, line: coordinatesLine)
            default:
                throw LocatedProblem(line: geometry.line, field: "geometry.type",
                                     message: "\"\(type)\" is not a condition; use Point (with radius), Polygon, MultiPolygon or null (beacon)")
            }
        case let other?:
            throw LocatedProblem(line: geometryLine, field: "geometry", message: "expected an object or null, got \(other.kindName)")
        }
    }

    private func polygon(_ polygons: [GeoPolygon], line: Int) throws(LocatedProblem) -> Condition {
        do throws(GeometryProblem) {
            return .polygon(try PolygonalGeographicCondition(polygons: polygons, repair: repair))
        } catch {
            throw LocatedProblem(line: line, field: error.field, message: error.message)
        }
    }

    private func position(_ value: JSONValue, field: String, line: Int) throws(LocatedProblem) -> Coordinate {
        guard case .array(let numbers) = value, numbers.count >= 2,
              case .number(_, let lon) = numbers[0], case .number(_, let lat) = numbers[1] else {
            throw LocatedProblem(line: line, field: field, message: "expected a position [longitude, latitude]")
        }
        return Coordinate(latitude: lat, longitude: lon)
    }

    private func polygonRings(_ value: JSONValue, field: String, line: Int) throws(LocatedProblem) -> GeoPolygon {
        guard case .array(let ringValues) = value, !ringValues.isEmpty else {
            throw LocatedProblem(line: line, field: field, message: "expected an array of rings (exterior first, then holes)")
        }
        var rings: [[Coordinate]] = []
        for (r, ringValue) in ringValues.enumerated() {
            guard case .array(let positions) = ringValue else {
                throw LocatedProblem(line: line, field: "\(field)[\(r)]", message: "expected an array of positions")
            }
            var ring: [Coordinate] = []
            ring.reserveCapacity(positions.count)
            for (p, positionValue) in positions.enumerated() {
                ring.append(try position(positionValue, field: "\(field)[\(r)][\(p)]", line: line))
            }
            rings.append(ring)
        }
        return GeoPolygon(exterior: rings[0], holes: Array(rings.dropFirst()))
    }

    private func readBeacon(_ value: JSONValue, line: Int) throws(LocatedProblem) -> BeaconIdentityCondition {
        guard case .object(let beacon) = value else {
            throw LocatedProblem(line: line, field: "properties.beacon", message: "expected an object with uuid, major, minor")
        }
        guard case .string(let text)? = beacon["uuid"], let uuid = UUID(uuidString: text) else {
            throw LocatedProblem(line: beacon.line(of: "uuid"), field: "properties.beacon.uuid",
                                 message: "expected a UUID such as \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"")
        }
        func part(_ key: String) throws(LocatedProblem) -> UInt16? {
            guard let value = beacon[key] else { return nil }
            guard case .number(_, let number) = value, number == number.rounded(), (0...65535).contains(number) else {
                throw LocatedProblem(line: beacon.line(of: key), field: "properties.beacon.\(key)",
                                     message: "expected an integer 0…65535 (leave it out for a wildcard)")
            }
            return UInt16(number)
        }
        let major = try part("major")
        let minor = try part("minor")
        switch (major, minor) {
        case (nil, nil): return BeaconIdentityCondition(uuid: uuid)
        case (let major?, nil): return BeaconIdentityCondition(uuid: uuid, major: major)
        case (let major?, let minor?): return BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
        case (nil, _?):
            throw LocatedProblem(line: beacon.line(of: "minor"), field: "properties.beacon.minor",
                                 message: "minor without major: a wildcard major needs a wildcard minor")
        }
    }
}
