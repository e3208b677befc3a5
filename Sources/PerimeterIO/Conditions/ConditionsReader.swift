import Foundation
import Perimeter

/// Reads conditions from a GeoJSON (RFC 7946) FeatureCollection, as SPEC §1 describes: a `Point` with
/// `properties.radius` is a circle, a `Polygon`/`MultiPolygon` a polygon, a `null` geometry with
/// `properties.beacon` a beacon identity.
///
/// ```swift
/// let monitor = Monitor(name: "city")
/// try await monitor.add(contentsOf: ConditionsReader.read(contentsOf: "conditions.geojson"))
/// ```
public enum ConditionsReader {
    /// Reads and checks a whole file; throws every problem found, each naming line, feature and field.
    /// - Parameters:
    ///   - path: the conditions file.
    ///   - repair: repair invalid polygons with GEOS's make-valid instead of refusing them.
    ///   - threads: threads that parse and check the features; the result is the same for any count.
    public static func read(contentsOf path: String, repair: Bool = false, threads: Int = 1) throws(InputErrors) -> [ConditionDefinition] {
        let data: Data
        do throws(InputError) {
            data = try InputFile.contents(of: path)
        } catch {
            throw InputErrors(errors: [error])
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
