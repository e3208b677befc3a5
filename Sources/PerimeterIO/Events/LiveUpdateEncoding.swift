import Perimeter

/// The JSON Lines form of a live update (docs/live.md), keys in a fixed order:
/// `{"device","date","location","stationary","locationUnavailable","accuracyLimited","diagnostics","cause"}`.
public enum LiveUpdateEncoding {
    /// The update as one JSON object, and its newline.
    public static func jsonLine(_ update: LiveUpdate) -> String {
        var bytes: [UInt8] = []
        append(update, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonLine(update)`'s bytes, written in place as `EventEncoding` writes an event.
    public static func append(_ update: LiveUpdate, to out: inout [UInt8]) {
        var device = update.device
        device.withUTF8 { device in
            ByteWriter.append(to: &out, capacity: 512 + ByteWriter.quotedBound(device.count)) { w in
                w.write(#"{"device":"#)
                w.writeQuoted(device)
                w.write(#","date":""#)
                RFC3339.write(update.date, to: &w)
                w.write(#"","location":"#)
                if let location = update.location {
                    w.write(#"{"lat":"#)
                    w.writeNumber(location.coordinate.latitude)
                    w.write(#","lon":"#)
                    w.writeNumber(location.coordinate.longitude)
                    w.write(#","accuracy":"#)
                    w.writeNumber(location.accuracy)
                    w.write(UInt8(ascii: "}"))
                } else {
                    w.write("null" as StaticString)
                }
                w.write(#","stationary":"#)
                w.write(update.isStationary ? "true" as StaticString : "false")
                w.write(#","locationUnavailable":"#)
                w.write(update.locationUnavailable ? "true" as StaticString : "false")
                w.write(#","accuracyLimited":"#)
                w.write(update.accuracyLimited ? "true" as StaticString : "false")
                w.write(#","diagnostics":["#)
                var first = true
                for (diagnostic, name) in Diagnostics.named where update.diagnostics.contains(diagnostic) {
                    if !first { w.write(UInt8(ascii: ",")) }
                    first = false
                    w.write(UInt8(ascii: "\""))
                    w.write(name)
                    w.write(UInt8(ascii: "\""))
                }
                w.write(#"],"cause":"#)
                w.writeDecimal(update.cause)
                w.write("}\n" as StaticString)
            }
        }
    }
}
