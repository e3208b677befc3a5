import Foundation
import Perimeter

// The records of a workload, read from the generator's binary files (Benchmarks/peers/README.md,
// "Workload files") as the peers read them: whole arrays, in file order, which is the records' index
// in the containment hash.

/// A little-endian workload file: 8-byte magic, u64 count, then whole arrays.
struct BinaryFile {
    let data: Data
    let count: Int
    var offset = 16

    init(_ path: String, magic: String) {
        guard let data = FileManager.default.contents(atPath: path) else { die("cannot read \(path)") }
        guard String(decoding: data.prefix(8), as: UTF8.self) == magic else { die("\(path): not a \(magic) file") }
        self.data = data
        count = Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
    }

    /// The next array of `count` values.
    mutating func array<T>(_: T.Type) -> [T] {
        let size = MemoryLayout<T>.stride * count
        let values = data.withUnsafeBytes { raw in
            (0..<count).map { raw.loadUnaligned(fromByteOffset: offset + $0 * MemoryLayout<T>.stride, as: T.self) }
        }
        offset += size
        return values
    }
}

/// `fixes.bin`: the devices' fixes in stream order.
struct Fixes {
    var lat: [Double], lon: [Double], accuracy: [Double], t: [Int64], device: [UInt32]

    init(_ path: String) {
        var f = BinaryFile(path, magic: "PFIXES01")
        lat = f.array(Double.self); lon = f.array(Double.self); accuracy = f.array(Double.self)
        t = f.array(Int64.self); device = f.array(UInt32.self)
    }

    /// The same fixes device by device (each device's in stream order), as one device's monitor
    /// would see its own walk.
    func byDevice() -> Fixes {
        var copy = self
        let order = device.indices.sorted { (device[$0], $0) < (device[$1], $1) }
        copy.lat = order.map { lat[$0] }; copy.lon = order.map { lon[$0] }; copy.accuracy = order.map { accuracy[$0] }
        copy.t = order.map { t[$0] }; copy.device = order.map { device[$0] }
        return copy
    }

    var count: Int { lat.count }

    /// The number of devices: one more than the highest device number.
    var deviceCount: Int { Int(device.max() ?? 0) + 1 }

    /// Fix `i` as the engine takes it.
    func fix(_ i: Int) -> Fix {
        Fix(time: Timestamp(nanosecondsSinceEpoch: t[i]), coordinate: Coordinate(latitude: lat[i], longitude: lon[i]),
            horizontalAccuracy: accuracy[i])
    }
}

/// `sightings.bin`: the devices' beacon sightings in stream order, their UUIDs resolved.
struct Sightings {
    var identities: [BeaconIdentity], t: [Int64], device: [UInt32]

    init(_ work: String, uuids: [UUID]) {
        var f = BinaryFile("\(work)/sightings.bin", magic: "PSIGHT01")
        let u = f.array(UInt32.self), major = f.array(UInt16.self), minor = f.array(UInt16.self)
        t = f.array(Int64.self); device = f.array(UInt32.self)
        identities = u.indices.map { BeaconIdentity(uuid: uuids[Int(u[$0])], major: major[$0], minor: minor[$0]) }
    }

    var count: Int { identities.count }

    /// The number of devices: one more than the highest device number.
    var deviceCount: Int { Int(device.max() ?? 0) + 1 }

    /// Sighting `i` as the engine takes it (every one at −60 dBm).
    func sighting(_ i: Int) -> BeaconSighting {
        BeaconSighting(time: Timestamp(nanosecondsSinceEpoch: t[i]), identity: identities[i], rssi: -60)
    }
}

/// `single/NAME.points.bin`: points uniform in one polygon's bounding box.
func points(_ work: String, name: String) -> (lat: [Double], lon: [Double]) {
    var f = BinaryFile("\(work)/single/\(name).points.bin", magic: "PPOINTS1")
    let lat = f.array(Double.self), lon = f.array(Double.self)
    return (lat, lon)
}

/// `uuids.txt`: the UUID of each UUID index of `beacons.bin` and `sightings.bin`.
func readUUIDs(_ work: String) -> [UUID] {
    guard let text = try? String(contentsOfFile: "\(work)/uuids.txt", encoding: .utf8) else { die("cannot read uuids.txt") }
    return text.split(separator: "\n").map { UUID(uuidString: String($0))! }
}
