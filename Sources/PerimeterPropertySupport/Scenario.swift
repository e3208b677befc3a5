import Foundation
import Perimeter

/// A small, printable monitoring run for the property tests: policy, conditions and a stream of records
/// for a few devices, all on a 10 m grid around one point, so that a shrunk counterexample reads as a
/// handful of small integers.
public struct Scenario: Sendable, Hashable, CustomStringConvertible {
    public var policy: PolicySpec
    public var conditions: [ConditionSpec]
    public var records: [RecordSpec]

    public init(policy: PolicySpec, conditions: [ConditionSpec], records: [RecordSpec]) {
        self.policy = policy
        self.conditions = conditions
        self.records = records
    }

    /// The conditions' identifiers, as the engine is given them: `c0`, `c1`, …
    public var identifiers: [String] { conditions.indices.map { "c\($0)" } }

    /// Device names in the order of their first record.
    public var devices: [String] {
        var seen: [String] = []
        for record in records where !seen.contains(record.device) { seen.append(record.device) }
        return seen
    }

    /// The state each condition starts in for every device: its own `assuming`, else the policy's.
    public func startingState(_ k: Int) -> ConditionState {
        conditions[k].assuming ?? policy.engine.defaultAssumption
    }

    /// A fresh engine with the scenario's policy and conditions.
    public func engine(batchThreads: Int = 1) throws -> MonitoringEngine {
        var engine = MonitoringEngine(policy: policy.engine)
        engine.batchThreads = batchThreads
        for (k, condition) in conditions.enumerated() {
            try engine.add(try condition.condition(), identifier: "c\(k)", assuming: condition.assuming)
        }
        return engine
    }

    public var description: String {
        var lines = ["Scenario (\(policy))"]
        for (k, c) in conditions.enumerated() { lines.append("  c\(k): \(c)") }
        for (k, r) in records.enumerated() { lines.append("  #\(k) \(r)") }
        return lines.joined(separator: "\n")
    }
}

/// The grid every scenario lives on: one unit is 10 m, from a point in Paris.
public enum Grid {
    public static let origin = Coordinate(latitude: 48.8566, longitude: 2.3522)
    public static let unit = 10.0
    /// Time zero of every scenario (2026-03-01T08:00:00Z).
    public static let epoch = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)

    /// The point `x` units east and `y` units north of the origin.
    public static func coordinate(_ x: Double, _ y: Double) -> Coordinate {
        let lat = origin.latitude + y * unit / Geodesy.metresPerDegree
        let lon = origin.longitude + x * unit / (Geodesy.metresPerDegree * cos(origin.latitude * .pi / 180))
        return Coordinate(latitude: lat, longitude: lon)
    }

    public static func time(_ seconds: Int) -> Timestamp {
        epoch.adding(TimeSpan(nanoseconds: Int64(seconds) * 1_000_000_000))
    }

    /// The two beacon UUIDs scenarios use.
    public static let uuids = [UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!,
                               UUID(uuidString: "5A4BCFCE-174E-4BAC-A814-092E77F6B7E5")!]
}

/// The policy values a scenario varies (SPEC "Policy values"); the rest stay at their defaults.
public struct PolicySpec: Sendable, Hashable, CustomStringConvertible {
    public var engine: MonitoringPolicy

    public init(_ engine: MonitoringPolicy) { self.engine = engine }

    public var description: String {
        let p = engine
        return "hysteresis \(p.hysteresis) m, accuracy weight \(p.accuracyWeight), confirmation \(p.confirmation) s, "
            + "beacon exit \(p.beaconExitTimeout) s, grace \(p.gracePeriod) s, holding \(p.holdingCapacity) "
            + "for \(p.maximumHoldingAge) s, assume \(p.defaultAssumption), initial \(p.initialAuthorization), "
            + "profile \(p.profile.name.rawValue)" + (p.profile.conditionLimit.map { " limit \($0)" } ?? "")
            + (p.profile.loiteringDelay.map { " loitering \($0) s" } ?? "")
    }
}

/// A condition on the grid: a circle, a star-shaped polygon (vertices at evenly spaced angles, so it is
/// always simple and valid), or a beacon identity with wildcards.
public struct ConditionSpec: Sendable, Hashable, CustomStringConvertible {
    public enum Shape: Sendable, Hashable {
        /// Centre in grid units, radius in grid units.
        case circle(x: Int, y: Int, radius: Int)
        /// Centre in grid units; vertex k at angle 2πk/n and `radii[k]` units from the centre.
        case polygon(x: Int, y: Int, radii: [Int])
        /// `uuid` indexes `Grid.uuids`; nil major/minor are wildcards.
        case beacon(uuid: Int, major: UInt16?, minor: UInt16?)
    }

    public var shape: Shape
    /// nil: the policy's default assumption.
    public var assuming: ConditionState?

    public init(_ shape: Shape, assuming: ConditionState? = nil) {
        self.shape = shape
        self.assuming = assuming
    }

    public func condition() throws -> Condition {
        switch shape {
        case .circle(let x, let y, let radius):
            return .circle(try CircularGeographicCondition(center: Grid.coordinate(Double(x), Double(y)),
                                                           radius: Double(radius) * Grid.unit))
        case .polygon(let x, let y, let radii):
            var ring = radii.enumerated().map { k, r in
                let angle = 2 * Double.pi * Double(k) / Double(radii.count)
                return Grid.coordinate(Double(x) + Double(r) * cos(angle), Double(y) + Double(r) * sin(angle))
            }
            ring.append(ring[0])
            return .polygon(try PolygonalGeographicCondition(polygons: [GeoPolygon(exterior: ring)]))
        case .beacon(let uuid, let major, let minor):
            let u = Grid.uuids[uuid]
            guard let major else { return .beacon(BeaconIdentityCondition(uuid: u)) }
            guard let minor else { return .beacon(BeaconIdentityCondition(uuid: u, major: major)) }
            return .beacon(BeaconIdentityCondition(uuid: u, major: major, minor: minor))
        }
    }

    public var isGeographic: Bool {
        if case .beacon = shape { return false }
        return true
    }

    public var description: String {
        let assumed = assuming.map { " assuming \($0)" } ?? ""
        switch shape {
        case .circle(let x, let y, let r): return "circle(x: \(x), y: \(y), r: \(r))\(assumed)"
        case .polygon(let x, let y, let radii): return "polygon(x: \(x), y: \(y), radii: \(radii))\(assumed)"
        case .beacon(let u, let major, let minor):
            return "beacon(uuid: \(u), major: \(major.map(String.init) ?? "*"), minor: \(minor.map(String.init) ?? "*"))\(assumed)"
        }
    }
}

/// One record of a device's stream, at whole seconds from `Grid.epoch`.
public struct RecordSpec: Sendable, Hashable, CustomStringConvertible {
    public var device: String
    public var seconds: Int
    public var observation: Observation

    public init(device: String, seconds: Int, observation: Observation) {
        self.device = device
        self.seconds = seconds
        self.observation = observation
    }

    public var isFix: Bool {
        if case .fix = observation { return true }
        return false
    }

    public var isSighting: Bool {
        if case .sighting = observation { return true }
        return false
    }

    public var description: String {
        let what: String
        switch observation {
        case .fix(let f):
            let dy = (f.coordinate.latitude - Grid.origin.latitude) * Geodesy.metresPerDegree / Grid.unit
            let dx = (f.coordinate.longitude - Grid.origin.longitude) * Geodesy.metresPerDegree
                * cos(Grid.origin.latitude * .pi / 180) / Grid.unit
            what = "fix(x: \(Int(dx.rounded())), y: \(Int(dy.rounded())), accuracy: \(f.horizontalAccuracy))"
        case .sighting(let s):
            what = "sighting(uuid: \(Grid.uuids.firstIndex(of: s.identity.uuid) ?? -1), major: \(s.identity.major), minor: \(s.identity.minor))"
        case .app(let a): what = "app(\(a.state))"
        case .request(let r): what = "request(\(r.kind))"
        case .answer(let a): what = "answer(\(a.choice)\(a.precise.map { ", precise: \($0)" } ?? ""))"
        case .settings(let s):
            what = "settings(status: \(s.status.map { "\($0)" } ?? "-"), precise: \(s.precise.map { "\($0)" } ?? "-"), "
                + "services: \(s.locationServices.map { "\($0)" } ?? "-"))"
        case .session(let s): what = "session(\(s))"
        case .appConfig(let c): what = "appConfig(\(c))"
        case .config(let c): what = "config(\(c.configuration))"
        }
        return "\(device) t=\(seconds) \(what)"
    }
}
