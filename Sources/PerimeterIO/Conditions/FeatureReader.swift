import Perimeter

/// Reads one feature at a time, and nothing across features (`FeatureMerge` checks identifiers), so
/// features can be read in any order, on any thread.
struct FeatureReader: Sendable {
    let file: String
    let repair: Bool

    init(file: String, repair: Bool) {
        self.file = file
        self.repair = repair
    }

    /// How problems name a feature that has an identifier.
    static func name(_ index: Int, _ identifier: String) -> String {
        "features[\(index)] (id \(InputText.quoted(identifier)))"
    }

    private func problem(line: Int, field: String?, _ message: String) -> InputError {
        InputError(file: file, line: line, field: field, message: message)
    }

    /// A problem inside one feature: its line, and its field as a path inside the feature.
    struct LocatedProblem: Error {
        var line: Int
        var field: String
        var message: String
    }

    /// The collection's features and the line of its `features` member, or the problem with it.
    func features(of root: JSONValue) -> Result<(features: [JSONValue], line: Int), InputError> {
        guard case .object(let collection) = root else {
            return .failure(problem(line: 1, field: nil, "expected a GeoJSON FeatureCollection object, got \(root.kindName)"))
        }
        guard case .string("FeatureCollection")? = collection["type"] else {
            return .failure(problem(line: collection.line(of: "type"), field: "type", "expected \"FeatureCollection\""))
        }
        guard case .array(let features)? = collection["features"] else {
            return .failure(problem(line: collection.line(of: "features"), field: "features", "expected an array of features"))
        }
        return .success((features, collection.line(of: "features")))
    }

    func readFeature(_ value: JSONValue, index: Int, collectionLine: Int) -> FeatureOutcome {
        guard case .object(let feature) = value else {
            return .unidentified(problem(line: collectionLine, field: "features[\(index)]", "expected a Feature object, got \(value.kindName)"))
        }
        guard case .string("Feature")? = feature["type"] else {
            return .unidentified(problem(line: feature.line(of: "type"), field: "features[\(index)].type", "expected \"Feature\""))
        }
        guard case .string(let identifier)? = feature["id"], !identifier.isEmpty else {
            return .unidentified(problem(line: feature.line(of: "id"), field: "features[\(index)].id",
                                         "every condition needs a non-empty string id (its identifier)"))
        }
        return .identified(IdentifiedFeature(index: index, identifier: identifier, line: feature.line(of: "id"),
                                             body: readBody(feature, identifier: identifier, index: index)))
    }

    private func readBody(_ feature: JSONObject, identifier: String, index: Int) -> Result<ConditionDefinition, InputError> {
        var properties = JSONObject(members: [], line: feature.line)
        switch feature["properties"] {
        case .object(let object)?: properties = object
        case .null?, nil: break
        case let other?:
            return .failure(problem(line: feature.line(of: "properties"), field: "\(Self.name(index, identifier)).properties",
                                    "expected an object, got \(other.kindName)"))
        }
        if let misspelt = ConditionProperties.nearMiss(in: properties) {
            return .failure(problem(line: misspelt.line, field: "\(Self.name(index, identifier)).properties.\(misspelt.key)",
                                    "unknown property \(InputText.quoted(misspelt.key)) — did you mean \"\(misspelt.meant)\"?"))
        }

        var assuming: ConditionState?
        if let value = properties["assuming"] {
            guard case .string(let text) = value, let state = ConditionState(rawValue: text), state.isConditionState else {
                return .failure(problem(line: properties.line(of: "assuming"), field: "\(Self.name(index, identifier)).properties.assuming",
                                        "expected \"unknown\", \"satisfied\" or \"unsatisfied\""))
            }
            assuming = state
        }

        let condition: Condition
        do throws(LocatedProblem) {
            condition = try readCondition(feature, properties: properties)
        } catch {
            return .failure(problem(line: error.line, field: "\(Self.name(index, identifier)).\(error.field)", error.message))
        }
        var ranging = false
        if let value = properties["ranging"] {
            let field = "\(Self.name(index, identifier)).properties.ranging", line = properties.line(of: "ranging")
            guard case .bool(let flag) = value else {
                return .failure(problem(line: line, field: field, "expected true or false, got \(value.kindName)"))
            }
            guard case .beacon = condition else {
                return .failure(problem(line: line, field: field, "only a beacon condition can be ranged"))
            }
            ranging = flag
        }
        var audience = ConditionAudience.everyone
        if properties["devices"] != nil || properties["groups"] != nil {
            switch readAudience(properties, index: index, identifier: identifier) {
            case .success(let read): audience = read
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(ConditionDefinition(identifier: identifier, condition: condition, assuming: assuming, line: feature.line,
                                            ranging: ranging, audience: audience))
    }

    /// `properties.devices` and `properties.groups` (SPEC §5.6): non-empty arrays of non-empty names.
    /// (A million features may carry one: the field's name is made only for an error.)
    private func readAudience(_ properties: JSONObject, index: Int, identifier: String) -> Result<ConditionAudience, InputError> {
        var devices: [String] = [], groups: [String] = []
        for key in ["devices", "groups"] {
            guard let value = properties[key] else { continue }
            func field() -> String { "\(Self.name(index, identifier)).properties.\(key)" }
            let line = properties.line(of: key)
            guard case .array(let elements) = value, !elements.isEmpty else {
                return .failure(problem(line: line, field: field(), "expected a non-empty array of \(key == "devices" ? "device" : "group") names, got \(value.kindName)"))
            }
            var list: [String] = []
            list.reserveCapacity(elements.count)
            for (k, element) in elements.enumerated() {
                guard case .string(let name) = element, !name.isEmpty else {
                    return .failure(problem(line: line, field: "\(field())[\(k)]", "expected a non-empty string, got \(element.kindName)"))
                }
                list.append(name)
            }
            if key == "devices" { devices = list } else { groups = list }
        }
        return .success(ConditionAudience(devices: devices, groups: groups))
    }

    func readCondition(_ feature: JSONObject, properties: JSONObject) throws(LocatedProblem) -> Condition {
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
                return .circle(try readCircle(coordinates, line: coordinatesLine, properties: properties))
            case "Polygon":
                return try polygon([try polygonRings(coordinates, field: "geometry.coordinates", line: coordinatesLine)],
                                   multi: false, line: coordinatesLine)
            case "MultiPolygon":
                guard case .array(let parts) = coordinates else {
                    throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates", message: "expected an array of polygons")
                }
                var polygons: [GeoPolygon] = []
                for (i, part) in parts.enumerated() {
                    polygons.append(try polygonRings(part, field: "geometry.coordinates[\(i)]", line: coordinatesLine))
                }
                return try polygon(polygons, multi: true, line: coordinatesLine)
            default:
                throw LocatedProblem(line: geometry.line, field: "geometry.type",
                                     message: "\(InputText.quoted(type)) is not a condition; use Point (with radius), Polygon, MultiPolygon or null (beacon)")
            }
        case let other?:
            throw LocatedProblem(line: geometryLine, field: "geometry", message: "expected an object or null, got \(other.kindName)")
        }
    }

    private func readCircle(_ coordinates: JSONValue, line coordinatesLine: Int,
                            properties: JSONObject) throws(LocatedProblem) -> CircularGeographicCondition {
        guard let center = Self.position(coordinates) else {
            throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates", message: Self.notAPosition)
        }
        guard center.isValid else {
            throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates",
                                 message: "position [\(center.longitude), \(center.latitude)] is out of range (lon −180…180, lat −90…90)")
        }
        let radiusLine = properties.line(of: "radius")
        let radius: Double
        switch properties["radius"] {
        case .number(_, let value)?:
            radius = value
        case nil:
            throw LocatedProblem(line: radiusLine, field: "properties.radius", message: "a circle (Point) needs a radius in metres")
        case let other?:
            let written = if case .string(let text) = other { " (\(InputText.quoted(text)))" } else { "" }
            throw LocatedProblem(line: radiusLine, field: "properties.radius",
                                 message: "radius must be a number of metres, got \(other.kindName)\(written)")
        }
        do throws(GeometryProblem) {
            return try CircularGeographicCondition(center: center, radius: radius)
        } catch {
            throw located(error, multi: false, geometryLine: coordinatesLine, radiusLine: radiusLine)
        }
    }

    func polygon(_ polygons: [GeoPolygon], multi: Bool, line: Int) throws(LocatedProblem) -> Condition {
        do throws(GeometryProblem) {
            return .polygon(try PolygonalGeographicCondition(polygons: polygons, repair: repair))
        } catch {
            throw located(error, multi: multi, geometryLine: line, radiusLine: line)
        }
    }

    /// The engine's problem with a part of a condition, at the GeoJSON path and line where that part
    /// is written: a polygon's rings are `geometry.coordinates[ring]` in a Polygon and
    /// `geometry.coordinates[polygon][ring]` in a MultiPolygon.
    private func located(_ problem: GeometryProblem, multi: Bool, geometryLine: Int, radiusLine: Int) -> LocatedProblem {
        func rings(_ polygon: Int) -> String { multi ? "geometry.coordinates[\(polygon)]" : "geometry.coordinates" }
        let (field, line): (String, Int) = switch problem.part {
        case .center: ("geometry.coordinates", geometryLine)
        case .radius: ("properties.radius", radiusLine)
        case .region: ("geometry", geometryLine)
        case .polygons: ("geometry.coordinates", geometryLine)
        case .ring(let polygon, let ring): ("\(rings(polygon))[\(ring)]", geometryLine)
        case .position(let polygon, let ring, let position): ("\(rings(polygon))[\(ring)][\(position)]", geometryLine)
        }
        return LocatedProblem(line: line, field: field, message: problem.message)
    }
}
