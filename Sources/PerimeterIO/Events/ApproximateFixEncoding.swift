import Perimeter

/// The JSON Lines form of an approximate fix (`evaluate --approximate`, docs/approximate.md), keys
/// in a fixed order: `{"device","date","lat","lon","accuracy","cause"}`.
public enum ApproximateFixEncoding {
    /// What a reduced-accuracy app sees of the fix at `date`, and its newline.
    public static func jsonLine(device: String, date: Timestamp, report: ApproximateReport, cause: Int) -> String {
        var bytes: [UInt8] = []
        append(device: device, date: date, report: report, cause: cause, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonLine`'s bytes.
    public static func append(device: String, date: Timestamp, report: ApproximateReport, cause: Int, to out: inout [UInt8]) {
        var device = device
        device.withUTF8 { device in
            ByteWriter.append(to: &out, capacity: 256 + ByteWriter.quotedBound(device.count)) { w in
                w.write(#"{"device":"#)
                w.writeQuoted(device)
                w.write(#","date":""#)
                RFC3339.write(date, to: &w)
                w.write(#"","lat":"#)
                w.writeNumber(report.centre.latitude)
                w.write(#","lon":"#)
                w.writeNumber(report.centre.longitude)
                w.write(#","accuracy":"#)
                w.writeNumber(report.radius)
                w.write(#","cause":"#)
                w.writeDecimal(cause)
                w.write("}\n" as StaticString)
            }
        }
    }
}
