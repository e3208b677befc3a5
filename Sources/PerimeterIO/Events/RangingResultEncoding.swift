import Perimeter

/// The JSON Lines form of a ranging result (docs/ranging.md), keys in a fixed order:
/// `{"device","constraint","date","beacons":[{"uuid","major","minor","rssi","distance","proximity"}],"delivery","reason","cause"}`.
public enum RangingResultEncoding {
    /// The result as one JSON object, and its newline.
    public static func jsonLine(_ result: RangingResult) -> String {
        var bytes: [UInt8] = []
        append(result, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonLine(result)`'s bytes, written in place as `EventEncoding` writes an event: a
    /// run of `perimeter range` writes some gigabytes of these.
    public static func append(_ result: RangingResult, to out: inout [UInt8]) {
        var device = result.device, constraint = result.constraint
        device.withUTF8 { device in
            constraint.withUTF8 { constraint in
                let capacity = 160 + ByteWriter.quotedBound(device.count) + ByteWriter.quotedBound(constraint.count)
                    + result.beacons.count * perBeacon
                ByteWriter.append(to: &out, capacity: capacity) { w in
                    w.write(#"{"device":"#)
                    w.writeQuoted(device)
                    w.write(#","constraint":"#)
                    w.writeQuoted(constraint)
                    w.write(#","date":""#)
                    RFC3339.write(result.date, to: &w)
                    w.write(#"","beacons":["#)
                    for (i, beacon) in result.beacons.enumerated() {
                        if i > 0 { w.write(UInt8(ascii: ",")) }
                        w.write(#"{"uuid":""#)
                        w.writeUUID(beacon.identity.uuid)
                        w.write(#"","major":"#)
                        w.writeDecimal(Int(beacon.identity.major))
                        w.write(#","minor":"#)
                        w.writeDecimal(Int(beacon.identity.minor))
                        w.write(#","rssi":"#)
                        w.writeNumber(beacon.rssi)
                        w.write(#","distance":"#)
                        w.writeNumber(beacon.distance)
                        w.write(#","proximity":""#)
                        w.write(name(beacon.proximity))
                        w.write(#""}"#)
                    }
                    w.write(#"],"delivery":""#)
                    w.write(EventEncoding.name(result.delivery.verdict))
                    w.write(#"","reason":"#)
                    if let reason = result.delivery.reason {
                        w.write(UInt8(ascii: "\""))
                        w.write(EventEncoding.name(reason))
                        w.write(UInt8(ascii: "\""))
                    } else {
                        w.write("null" as StaticString)
                    }
                    w.write(#","cause":"#)
                    w.writeDecimal(result.cause)
                    w.write("}\n" as StaticString)
                }
            }
        }
    }

    /// Most bytes a beacon takes: 111 of keys, UUID and integers, two numbers of at most 24 each,
    /// and the longest proximity.
    static let perBeacon = 180

    static func name(_ proximity: RangingResult.Proximity) -> StaticString {
        switch proximity {
        case .immediate: "immediate"
        case .near: "near"
        case .far: "far"
        case .unknown: "unknown"
        }
    }
}
