import Foundation
@testable import Perimeter

/// Builders shared by the engine tests.
enum T {
    static let base = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)  // 2026-03-01T08:00:00Z

    static func at(_ seconds: Double) -> Timestamp {
        base.adding(TimeSpan(nanoseconds: Int64((seconds * 1e9).rounded())))
    }

    static func fix(_ lat: Double, _ lon: Double, accuracy: Double = 0, at seconds: Double) -> Observation {
        .fix(Fix(time: at(seconds), coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy))
    }

    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let otherUUID = UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5")!

    static func sighting(_ major: UInt16, _ minor: UInt16, uuid: UUID = T.uuid, at seconds: Double) -> Observation {
        .sighting(BeaconSighting(time: at(seconds), identity: BeaconIdentity(uuid: uuid, major: major, minor: minor), rssi: -60))
    }

    /// A point `metres` from `origin` due north (exact enough for tests far from the boundary).
    static func north(of origin: Coordinate, metres: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude + metres / Geodesy.metresPerDegree, longitude: origin.longitude)
    }
}

/// An engine plus the events it has produced, for compact tests.
struct Harness {
    var engine: MonitoringEngine
    var events: [MonitorEvent] = []
    var nextCause = 1

    init(policy: MonitoringPolicy = MonitoringPolicy(), _ conditions: [(String, Condition, ConditionState?)]) throws {
        engine = MonitoringEngine(policy: policy)
        for (id, condition, assuming) in conditions {
            try engine.add(condition, identifier: id, assuming: assuming)
        }
    }

    /// Processes one record and returns the events it produced as `identifier:state` strings.
    @discardableResult
    mutating func feed(_ observation: Observation, device: String = "d") throws -> [String] {
        let before = events.count
        try engine.process(observation, device: device, cause: nextCause, into: &events)
        nextCause += 1
        return events[before...].map { "\($0.identifier):\($0.state.rawValue)" }
    }

    mutating func finish() -> [String] {
        let before = events.count
        engine.finish(into: &events)
        return events[before...].map { "\($0.identifier):\($0.state.rawValue)" }
    }
}

extension Condition {
    static func circle(_ lat: Double, _ lon: Double, radius: Double) throws -> Condition {
        .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat, longitude: lon), radius: radius))
    }

    /// An axis-aligned rectangle polygon, optionally with a rectangular hole.
    static func rectangle(_ minLat: Double, _ minLon: Double, _ maxLat: Double, _ maxLon: Double,
                          hole: (Double, Double, Double, Double)? = nil) throws -> Condition {
        func ring(_ a: Double, _ b: Double, _ c: Double, _ d: Double, clockwise: Bool) -> [Coordinate] {
            let ccw = [Coordinate(latitude: a, longitude: b), Coordinate(latitude: a, longitude: d),
                       Coordinate(latitude: c, longitude: d), Coordinate(latitude: c, longitude: b),
                       Coordinate(latitude: a, longitude: b)]
            return clockwise ? ccw.reversed() : ccw
        }
        var polygon = GeoPolygon(exterior: ring(minLat, minLon, maxLat, maxLon, clockwise: false))
        if let h = hole { polygon.holes = [ring(h.0, h.1, h.2, h.3, clockwise: true)] }
        return .polygon(try PolygonalGeographicCondition(polygons: [polygon]))
    }
}

/// How many runs the largest property tests make: all of them, or the percentage
/// `PERIMETER_PROPERTY_RUNS_PERCENT` gives, for a quicker local run (CI runs them all, under
/// AddressSanitizer too).
enum PropertyRuns {
    static let percent = ProcessInfo.processInfo.environment["PERIMETER_PROPERTY_RUNS_PERCENT"].flatMap(Int.init).map { min(100, max(1, $0)) } ?? 100

    /// `count` scaled by `percent`, at least 1.
    static func of(_ count: Int) -> Int { max(1, count * percent / 100) }
}
