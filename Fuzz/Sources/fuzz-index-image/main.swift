import Foundation
import FuzzSupport
import Perimeter
import PerimeterIO

/// The index image reader (`MonitoringEngine.init(policy:indexImage:)`), which a cache file on the
/// user's disk feeds: whatever a damaged or crafted image holds, loading it must throw
/// `IndexImageProblem` or give an engine that processes fixes and sightings without a crash, a
/// sanitizer report or a hang (`IndexImageFuzz`).
///
/// Input: edits of 5 bytes each to a copy of one base image, a little-endian UInt32 offset (modulo
/// the image's length as edited so far) and a byte XORed in there, or, when that byte is 0, the image
/// cut at the offset. A trailing piece of fewer than 5 bytes is ignored; no edits is the base image.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    IndexImageFuzz.check(edits: UnsafeBufferPointer(start: data, count: size))
    return 0
}

enum IndexImageFuzz {
    /// Relative to the repository's root, where `scripts/fuzz.sh` runs the targets.
    static let conditionsFile = "Fixtures/city/conditions.geojson"
    static let policy = MonitoringPolicy()
    static let editSize = 5

    typealias Conditions = [(condition: Condition, identifier: String, assuming: ConditionState?, audience: ConditionAudience)]
    typealias Probe = (device: String, observation: Observation)

    /// The base image and the records every loaded engine is probed with, made once (building the
    /// indexes takes far longer than loading them, which is what each run does).
    static let base: (image: [UInt8], probes: [Probe]) = {
        let conditions = baseConditions()
        var engine = MonitoringEngine(policy: policy)
        do {
            try engine.add(contentsOf: conditions)
        } catch {
            Fuzz.finding("harness: the engine refuses the base conditions: \(error)")
        }
        let image: [UInt8]
        do {
            image = try engine.indexImage()
        } catch {
            Fuzz.finding("the engine of the base conditions gives no index image: \(error)")
        }
        let probes = Self.probes(conditions)
        // The unmodified image must load, and its engine give the events of the one it was taken of:
        // with a reader wrong from the start, what the edits do would say nothing.
        guard let loaded = load(image) else {
            Fuzz.finding("the unmodified base image (\(image.count) bytes) does not load: \(loadProblem ?? "?")")
        }
        EventsOracle.compare(got: run(probes, on: loaded), expected: run(probes, on: engine),
                             "the base image's engine", context: "\(conditions.count) base conditions")
        return (image, probes)
    }()

    /// Why the last `load` failed.
    nonisolated(unsafe) static var loadProblem: String?

    static func check(edits: UnsafeBufferPointer<UInt8>) {
        let image = edited(base.image, by: edits)
        guard let engine = load(image) else { return }
        _ = run(base.probes, on: engine)
    }

    /// `image` with the edits applied in order.
    static func edited(_ image: [UInt8], by edits: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var image = image
        var k = 0
        while k + editSize <= edits.count && !image.isEmpty {
            let raw = (0..<4).reduce(0) { $0 | Int(edits[k + $1]) << (8 * $1) }
            let offset = raw % image.count, mask = edits[k + 4]
            if mask == 0 {
                image.removeSubrange(offset...)
            } else {
                image[offset] ^= mask
            }
            k += editSize
        }
        return image
    }

    /// The engine `image` loads to, or nil when the reader refuses it (`loadProblem` says why).
    ///
    /// The bytes are copied to an allocation of exactly their size, so that AddressSanitizer reports
    /// a read past their end (an array's spare capacity would hide it), and freed before the engine is
    /// used, so that one that kept a pointer into them reads freed memory.
    static func load(_ image: [UInt8]) -> MonitoringEngine? {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: image.count, alignment: 1)
        image.withUnsafeBytes { bytes.copyMemory(from: $0) }
        defer { bytes.deallocate() }
        do {
            loadProblem = nil
            return try MonitoringEngine(policy: policy, indexImage: UnsafeRawBufferPointer(bytes))
        } catch {
            loadProblem = error.description
            return nil
        }
    }

    /// The events of `probes` one record at a time, then `finish(into:)`; a refused record (an edited
    /// image may hold anything) is skipped.
    static func run(_ probes: [Probe], on engine: MonitoringEngine) -> [MonitorEvent] {
        var engine = engine
        return run(probes, on: &engine)
    }

    static func run(_ probes: [Probe], on engine: inout MonitoringEngine) -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        for (k, probe) in probes.enumerated() {
            do throws(ObservationProblem) {
                try engine.process(probe.observation, device: probe.device, cause: k + 1, into: &events)
            } catch {
                continue
            }
        }
        engine.finish(into: &events)
        return events
    }

    // MARK: - The base conditions

    static let beaconUUID = UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5")!

    /// The city fixture's conditions; 40 circles more, since the first record builds the cover grid (and
    /// the image holds it as laid out then) only for more than 32 geographic conditions; a star of 300
    /// edges (its locator's cell edge lists 32-bit) and one of 12 (16-bit); beacons with a UUID only and
    /// with a major; and a circle only "d1" watches.
    static func baseConditions() -> Conditions {
        let definitions: [ConditionDefinition]
        do {
            definitions = try ConditionsReader.read(contentsOf: conditionsFile)
        } catch {
            Fuzz.finding("harness: cannot read \(conditionsFile) (run from the repository's root): \(error)")
        }
        var conditions: Conditions = definitions.map { ($0.condition, $0.identifier, $0.assuming, $0.audience) }
        for k in 0..<40 {
            let center = Coordinate(latitude: 48.80 + 0.012 * Double(k / 8), longitude: 2.25 + 0.02 * Double(k % 8))
            conditions.append((circle(center, radius: 60 + 30 * Double(k % 5)), "generated-\(k)", nil, .everyone))
        }
        conditions.append((star(Coordinate(latitude: 48.875, longitude: 2.30), points: 150, outer: 600, inner: 350),
                           "star-300", nil, .everyone))
        conditions.append((star(Coordinate(latitude: 48.835, longitude: 2.36), points: 6, outer: 250, inner: 120),
                           "star-12", .satisfied, .everyone))
        conditions.append((.beacon(BeaconIdentityCondition(uuid: beaconUUID)), "beacon-any", nil, .everyone))
        conditions.append((.beacon(BeaconIdentityCondition(uuid: beaconUUID, major: 42)), "beacon-major", .unsatisfied, .everyone))
        conditions.append((circle(Coordinate(latitude: 48.862, longitude: 2.352), radius: 120), "private-d1", nil,
                           ConditionAudience(devices: ["d1"])))
        return conditions
    }

    static func circle(_ center: Coordinate, radius: Double) -> Condition {
        do {
            return .circle(try CircularGeographicCondition(center: center, radius: radius))
        } catch {
            Fuzz.finding("harness: a base circle is refused: \(error)")
        }
    }

    /// A star of `2 × points` vertices alternating `outer` and `inner` metres from `center`, its ring
    /// closed.
    static func star(_ center: Coordinate, points: Int, outer: Double, inner: Double) -> Condition {
        let metresPerDegree = 111_195.0, cosine = cos(center.latitude * .pi / 180)
        var ring = (0..<(2 * points)).map { k in
            let radius = k % 2 == 0 ? outer : inner, angle = Double(k) * .pi / Double(points)
            return Coordinate(latitude: center.latitude + radius * sin(angle) / metresPerDegree,
                              longitude: center.longitude + radius * cos(angle) / (metresPerDegree * cosine))
        }
        ring.append(ring[0])
        do {
            return .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)]))
        } catch {
            Fuzz.finding("harness: a base star is refused: \(error)")
        }
    }

    // MARK: - Probes

    static let startTime: Int64 = 1_772_352_000 * 1_000_000_000  // 2026-03-01T08:00:00Z

    /// Fixes at the conditions' own places (circle centres, a few vertices of each polygon, every
    /// fourth generated circle) and one far from all, for "d1" and "d2" a second apart with
    /// accuracies 0, 5, 65 and 1500 m in turn; then a sighting of the beacons for each.
    static func probes(_ conditions: Conditions) -> [Probe] {
        var points: [Coordinate] = []
        for (k, c) in conditions.enumerated() {
            switch c.condition {
            case .circle(let circle) where !c.identifier.hasPrefix("generated-") || k % 4 == 0:
                points.append(circle.center)
            case .polygon(let polygon):
                let ring = polygon.polygons[0].exterior
                points += stride(from: 0, to: ring.count - 1, by: max(1, (ring.count - 1) / 4)).prefix(4).map { ring[$0] }
            default:
                break
            }
        }
        points.append(Coordinate(latitude: -33.857, longitude: 151.215))
        let accuracies = [0.0, 5, 65, 1500]
        var probes: [Probe] = [], second: Int64 = 0
        func time() -> Timestamp {
            second += 1
            return Timestamp(nanosecondsSinceEpoch: startTime + second * 1_000_000_000)
        }
        for (k, point) in points.enumerated() {
            for (d, device) in ["d1", "d2"].enumerated() {
                let fix = Fix(time: time(), coordinate: point, horizontalAccuracy: accuracies[(k + d) % accuracies.count])
                probes.append((device, .fix(fix)))
            }
        }
        for device in ["d1", "d2"] {
            let sighting = BeaconSighting(time: time(), identity: BeaconIdentity(uuid: beaconUUID, major: 42, minor: 3), rssi: -70)
            probes.append((device, .sighting(sighting)))
        }
        return probes
    }
}

Fuzz.run { data, size in fuzz(data ?? UnsafePointer(Fuzz.emptyInput), size) }
