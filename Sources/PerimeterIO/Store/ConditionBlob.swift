import Foundation
import Perimeter

/// A condition as the store keeps it since schema version 2: a few bytes of kind and values, and a
/// polygon's vertices as pairs of little-endian doubles — a third of the JSON's size, and no text
/// to print and parse for each of 400,000 vertices. (Version 1 kept JSON, which is still read.)
/// Decoding goes through the conditions' checking initialisers, as any other way in does.
enum ConditionBlob {
    private enum Kind: UInt8 {
        case circle = 1, polygon = 2, beacon = 3
    }

    static func encode(_ condition: Condition) -> [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        func put(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func put(_ value: UInt16?) {
            bytes.append(value == nil ? 0 : 1)
            withUnsafeBytes(of: (value ?? 0).littleEndian) { bytes.append(contentsOf: $0) }
        }
        func put(_ ring: [Coordinate]) {
            put(UInt32(ring.count))
            bytes.reserveCapacity(bytes.count + ring.count * 16)
            for c in ring {
                put(c.latitude)
                put(c.longitude)
            }
        }
        switch condition {
        case .circle(let circle):
            bytes.append(Kind.circle.rawValue)
            put(circle.center.latitude)
            put(circle.center.longitude)
            put(circle.radius)
        case .polygon(let polygon):
            bytes.append(Kind.polygon.rawValue)
            put(UInt32(polygon.polygons.count))
            for part in polygon.polygons {
                put(UInt32(part.holes.count))
                put(part.exterior)
                for hole in part.holes { put(hole) }
            }
        case .beacon(let beacon):
            bytes.append(Kind.beacon.rawValue)
            withUnsafeBytes(of: beacon.uuid.uuid) { bytes.append(contentsOf: $0) }
            put(beacon.major)
            put(beacon.minor)
        }
        return bytes
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    static func decode(_ bytes: [UInt8]) throws -> Condition {
        var at = 0
        func take(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n >= 0, at + n <= bytes.count else { throw Problem(description: "cut short at byte \(at)") }
            defer { at += n }
            return bytes[at..<at + n]
        }
        func word<T: FixedWidthInteger>(_: T.Type) throws -> T {
            try take(MemoryLayout<T>.size).reversed().reduce(T(0)) { $0 << 8 | T($1) }
        }
        func double() throws -> Double { Double(bitPattern: try word(UInt64.self)) }
        func ring() throws -> [Coordinate] {
            let count = Int(try word(UInt32.self))
            guard count <= (bytes.count - at) / 16 else { throw Problem(description: "a ring of \(count) vertices does not fit") }
            return try (0..<count).map { _ in Coordinate(latitude: try double(), longitude: try double()) }
        }
        func optional() throws -> UInt16? {
            let present = try take(1).first!
            let value = try word(UInt16.self)
            return present == 0 ? nil : value
        }
        let condition: Condition
        switch Kind(rawValue: try take(1).first!) {
        case .circle:
            let center = Coordinate(latitude: try double(), longitude: try double())
            condition = .circle(try CircularGeographicCondition(center: center, radius: try double()))
        case .polygon:
            let count = Int(try word(UInt32.self))
            var parts: [GeoPolygon] = []
            for _ in 0..<min(count, bytes.count) {
                let holes = Int(try word(UInt32.self))
                let exterior = try ring()
                parts.append(GeoPolygon(exterior: exterior, holes: try (0..<min(holes, bytes.count)).map { _ in try ring() }))
            }
            condition = .polygon(try PolygonalGeographicCondition(polygons: parts))
        case .beacon:
            let raw = Array(try take(16))
            let uuid = UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                                   raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
            switch (try optional(), try optional()) {
            case (nil, nil): condition = .beacon(BeaconIdentityCondition(uuid: uuid))
            case (let major?, nil): condition = .beacon(BeaconIdentityCondition(uuid: uuid, major: major))
            case (let major?, let minor?): condition = .beacon(BeaconIdentityCondition(uuid: uuid, major: major, minor: minor))
            case (nil, _?): throw Problem(description: "a minor without a major")
            }
        case nil:
            throw Problem(description: "an unknown kind of condition")
        }
        guard at == bytes.count else { throw Problem(description: "\(bytes.count - at) bytes too many") }
        return condition
    }
}
