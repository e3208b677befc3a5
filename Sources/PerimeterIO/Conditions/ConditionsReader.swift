import Foundation
import Perimeter
import Synchronization

/// Reads conditions from a GeoJSON (RFC 7946) FeatureCollection, as SPEC §1 describes: a `Point` with
/// `properties.radius` is a circle, a `Polygon`/`MultiPolygon` a polygon, a `null` geometry with
/// `properties.beacon` a beacon identity.
public enum ConditionsReader {
    /// Reads and checks a whole file; throws every problem found, each naming line, feature and field.
    /// - Parameters:
    ///   - repair: repair invalid polygons with GEOS's make-valid instead of refusing them.
    ///   - threads: threads that parse and check the features; the result is the same for any count.
    public static func read(contentsOf path: String, repair: Bool = false, threads: Int = 1) throws(InputErrors) -> [ConditionDefinition] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputErrors(errors: [InputError(file: path, line: nil, field: nil, message: "cannot read the file: \(error.localizedDescription)")])
        }
        let (definitions, problems) = parse(data, file: path, repair: repair, threads: threads)
        guard problems.isEmpty else { throw InputErrors(errors: problems) }
        return definitions
    }

    /// Parses conditions; returns the good ones and every problem (an empty list means the file is fine).
    ///
    /// The collection's outline is parsed first, its features only skipped over; then each feature is
    /// parsed, read and checked on its own by `threads` threads (GEOS's validity checks are most of the
    /// work), its tree freed at once, so memory stays small and warm. Identifiers are checked and
    /// results collected in feature order afterwards, so any thread count gives the same output.
    public static func parse(_ data: Data, file: String, repair: Bool = false, threads: Int = 1) -> ([ConditionDefinition], [InputError]) {
        let reader = FeatureReader(file: file, repair: repair)
        return data.withUnsafeBytes { raw in
            var bytes = raw.bindMemory(to: UInt8.self)
            // A UTF-8 byte order mark first (RFC 8259 §8.1: a parser may ignore it) is skipped.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeBufferPointer(rebasing: bytes[3...]) }
            // Text that is not JSON: the whole parse names the first error, as it always has.
            return parseByFeature(bytes, reader: reader, threads: max(1, threads)) ?? parseWhole(bytes, reader: reader)
        }
    }

    /// Features per unit of work a thread claims: small enough that threads finish together whatever
    /// the mix of points and large polygons, large enough that claiming costs nothing.
    static let featuresPerChunk = 64

    /// The way `parse` works; `nil` when the text is not JSON.
    static func parseByFeature(_ bytes: UnsafeBufferPointer<UInt8>, reader: FeatureReader, threads: Int) -> ([ConditionDefinition], [InputError])? {
        guard let (outline, elements) = try? JSONParser.parse(bytes, deferringElementsOf: "features", keepingNumberText: false) else {
            return nil
        }
        guard let elements else { return read(outline, reader: reader) }  // nothing deferred: the outline is the whole tree
        let collectionLine: Int
        switch reader.features(of: outline) {
        case .failure(let problem): return ([], [problem])
        case .success(let collection): collectionLine = collection.line
        }

        let chunks = (0..<(elements.count + featuresPerChunk - 1) / featuresPerChunk).map { _ in FeatureChunk() }
        let claims = ChunkClaims(count: chunks.count)
        nonisolated(unsafe) let unsafeBytes = bytes
        let work = { @Sendable in
            while let k = claims.claim() {
                let first = k * featuresPerChunk
                if !chunks[k].read(unsafeBytes, elements[first..<min(first + featuresPerChunk, elements.count)], firstIndex: first,
                                   reader: reader, collectionLine: collectionLine) {
                    claims.stop()
                }
            }
        }
        if threads == 1 || chunks.count < 2 {
            work()
        } else {
            DispatchQueue.concurrentPerform(iterations: min(threads, chunks.count)) { _ in work() }
        }
        guard !claims.stopped else { return nil }
        var merge = FeatureMerge(file: reader.file)
        for chunk in chunks {
            for outcome in chunk.outcomes { merge.add(outcome) }
        }
        return (merge.definitions, merge.problems)
    }

    /// The whole file as one tree, its features read in order: how a syntax error is named, and the
    /// reference that `parseByFeature` must match.
    static func parseWhole(_ bytes: UnsafeBufferPointer<UInt8>, reader: FeatureReader) -> ([ConditionDefinition], [InputError]) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes, keepingNumberText: false)
        } catch {
            return ([], [InputError(file: reader.file, line: error.line, field: nil, message: "not JSON: \(error.message)")])
        }
        return read(root, reader: reader)
    }

    private static func read(_ root: JSONValue, reader: FeatureReader) -> ([ConditionDefinition], [InputError]) {
        switch reader.features(of: root) {
        case .failure(let problem):
            return ([], [problem])
        case .success(let collection):
            var merge = FeatureMerge(file: reader.file)
            for (index, feature) in collection.features.enumerated() {
                merge.add(reader.readFeature(feature, index: index, collectionLine: collection.line))
            }
            return (merge.definitions, merge.problems)
        }
    }
}

/// What one feature gives, before its identifier is checked against the features before it.
enum FeatureOutcome: Sendable {
    /// A problem found before the feature's identifier was known.
    case unidentified(InputError)
    /// A feature with an identifier, and its definition or its first problem.
    case identified(IdentifiedFeature)
}

struct IdentifiedFeature: Sendable {
    var index: Int
    var identifier: String
    /// The line of its `id` member.
    var line: Int
    var body: Result<ConditionDefinition, InputError>
}

/// Collects features' outcomes in feature order: a feature whose identifier an earlier one has is
/// a duplicate, whatever else is right or wrong with it.
struct FeatureMerge {
    let file: String
    private(set) var definitions: [ConditionDefinition] = []
    private(set) var problems: [InputError] = []
    private var firstLineOfIdentifier: [String: Int] = [:]

    init(file: String) {
        self.file = file
    }

    mutating func add(_ outcome: FeatureOutcome) {
        switch outcome {
        case .unidentified(let problem):
            problems.append(problem)
        case .identified(let feature):
            if let first = firstLineOfIdentifier[feature.identifier] {
                problems.append(InputError(file: file, line: feature.line,
                                           field: "\(FeatureReader.name(feature.index, feature.identifier)).id",
                                           message: "duplicate identifier \(InputText.quoted(feature.identifier)) (first used on line \(first))"))
                return
            }
            firstLineOfIdentifier[feature.identifier] = feature.line
            switch feature.body {
            case .success(let definition): definitions.append(definition)
            case .failure(let problem): problems.append(problem)
            }
        }
    }
}

/// A run of consecutive features that one thread parses and reads.
///
/// `@unchecked Sendable`: each chunk is filled by the one thread that claimed it, and read only after
/// every thread has finished.
final class FeatureChunk: @unchecked Sendable {
    private(set) var outcomes: [FeatureOutcome] = []

    /// Parses and reads `elements` (features `firstIndex`…); `false` as soon as one is not JSON.
    func read(_ bytes: UnsafeBufferPointer<UInt8>, _ elements: ArraySlice<JSONParser.DeferredValue>, firstIndex: Int,
              reader: FeatureReader, collectionLine: Int) -> Bool {
        var outcomes: [FeatureOutcome] = []
        outcomes.reserveCapacity(elements.count)
        for (offset, element) in elements.enumerated() {
            guard let feature = try? JSONParser.parse(bytes, deferred: element, keepingNumberText: false) else { return false }
            outcomes.append(reader.readFeature(feature, index: firstIndex + offset, collectionLine: collectionLine))
        }
        self.outcomes = outcomes
        return true
    }
}

/// Hands out chunk numbers in order to whichever thread asks, until they run out or one thread stops.
final class ChunkClaims: Sendable {
    let count: Int
    private let next = Atomic<Int>(0)
    private let halted = Atomic<Bool>(false)

    init(count: Int) {
        self.count = count
    }

    func claim() -> Int? {
        guard !halted.load(ordering: .relaxed) else { return nil }
        let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return k < count ? k : nil
    }

    func stop() { halted.store(true, ordering: .relaxed) }

    var stopped: Bool { halted.load(ordering: .relaxed) }
}

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

        var assuming: ConditionState?
        if let value = properties["assuming"] {
            guard case .string(let text) = value, let state = ConditionState(rawValue: text) else {
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
        return .success(ConditionDefinition(identifier: identifier, condition: condition, assuming: assuming, line: feature.line))
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
                guard let center = Self.position(coordinates) else {
                    throw LocatedProblem(line: coordinatesLine, field: "geometry.coordinates", message: Self.notAPosition)
                }
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
                                     message: "\(InputText.quoted(type)) is not a condition; use Point (with radius), Polygon, MultiPolygon or null (beacon)")
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

    private static let notAPosition = "expected a position [longitude, latitude]"

    /// `nil` when `value` is not a position. The caller names the field only then: building the name
    /// of each of a million positions in case it is wrong took about a fifth of a large file's load.
    private static func position(_ value: JSONValue) -> Coordinate? {
        guard case .array(let numbers) = value, numbers.count >= 2,
              case .number(_, let lon) = numbers[0], case .number(_, let lat) = numbers[1] else { return nil }
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
                guard let position = Self.position(positionValue) else {
                    throw LocatedProblem(line: line, field: "\(field)[\(r)][\(p)]", message: Self.notAPosition)
                }
                ring.append(position)
            }
            rings.append(ring)
        }
        let polygon = GeoPolygon(exterior: rings[0], holes: Array(rings.dropFirst()))
        try Self.refuseAntimeridianCrossing(polygon, field: field, line: line)
        return polygon
    }

    /// Refuses an edge whose ends are more than 180° of longitude apart: GeoJSON edges are straight
    /// in longitude and latitude, so such an edge runs the long way round, and a polygon drawn across
    /// the antimeridian would mean the rest of the world (RFC 7946 §3.1.9: split it there). An edge
    /// both of whose ends lie on the seam (longitude ±180, within `vertexTolerance`) runs along a
    /// parallel the whole way round — Antarctica's closing edge in Natural Earth, a band round the
    /// Earth — and is kept *(our rule)*. Checked as read, before any repair.
    private static func refuseAntimeridianCrossing(_ polygon: GeoPolygon, field: String, line: Int) throws(LocatedProblem) {
        func onSeam(_ c: Coordinate) -> Bool { abs(abs(c.longitude) - 180) <= Coordinate.vertexTolerance }
        for (r, ring) in polygon.rings.enumerated() where ring.count > 1 {
            for p in 1..<ring.count {
                let a = ring[p - 1], b = ring[p]
                let span = abs(b.longitude - a.longitude)
                guard span > 180, !(onSeam(a) && onSeam(b)) else { continue }
                throw LocatedProblem(line: line, field: "\(field)[\(r)][\(p - 1)]", message:
                    "the edge from [\(a.longitude), \(a.latitude)] to [\(b.longitude), \(b.latitude)] spans \(span)° of longitude, "
                    + "the long way round the Earth: split a polygon that crosses the antimeridian at ±180 into a MultiPolygon "
                    + "(RFC 7946 §3.1.9)")
            }
        }
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
