import Foundation
import Perimeter
import PerimeterIO

// The conditions of a workload, in the peers' order (circles, then polygons), which is each one's
// index in the containment hash; named `k<index>` in the engine.

/// The conditions of the options' peer mode (`single` reads polygon NAME; `beacons` needs the
/// workload's UUIDs); stops with status 3 for a mode the peers do not have.
func conditions(for options: BenchOptions, uuids: [UUID]) -> [Condition] {
    let work = options.work
    switch options.baseMode {
    case "circles": return circles(work)
    case "polygons": return geojson("\(work)/polygons.geojson")
    case "mixed": return circles(work) + geojson("\(work)/polygons.geojson")
    case "single":
        guard let name = options.name else { die("single needs a NAME") }
        return geojson("\(work)/single/\(name).geojson")
    case "beacons": return beacons(work, uuids: uuids)
    default: die("unknown mode \(options.mode)", code: 3)
    }
}

/// `circles.bin`.
func circles(_ work: String) -> [Condition] {
    var f = BinaryFile("\(work)/circles.bin", magic: "PCIRCLE1")
    let lat = f.array(Double.self), lon = f.array(Double.self), radius = f.array(Double.self)
    return (0..<lat.count).map { i in
        do {
            return .circle(try CircularGeographicCondition(center: Coordinate(latitude: lat[i], longitude: lon[i]), radius: radius[i]))
        } catch {
            die("circle \(i): \(error)")
        }
    }
}

/// A GeoJSON FeatureCollection of conditions, as the tool reads it.
func geojson(_ path: String) -> [Condition] {
    do {
        return try ConditionsReader.read(contentsOf: path).map(\.condition)
    } catch {
        die("\(error)")
    }
}

/// `beacons.bin`: a major or minor of −1 is a wildcard.
func beacons(_ work: String, uuids: [UUID]) -> [Condition] {
    var f = BinaryFile("\(work)/beacons.bin", magic: "PBEACON1")
    let u = f.array(UInt32.self), major = f.array(Int32.self), minor = f.array(Int32.self)
    return (0..<u.count).map { i in
        let uuid = uuids[Int(u[i])]
        if major[i] < 0 { return .beacon(BeaconIdentityCondition(uuid: uuid)) }
        if minor[i] < 0 { return .beacon(BeaconIdentityCondition(uuid: uuid, major: UInt16(major[i]))) }
        return .beacon(BeaconIdentityCondition(uuid: uuid, major: UInt16(major[i]), minor: UInt16(minor[i])))
    }
}
