import Perimeter

/// The JSON Lines form of an approximate fix (`evaluate --approximate`, docs/approximate.md), keys
/// in a fixed order: `{"device","date","lat","lon","accuracy","cause"}`.
public enum ApproximateFixEncoding {
    /// What a reduced-accuracy app sees of the fix at `date`, and its newline.
    public static func jsonLine(device: String, date: Timestamp, report: ApproximateReport, cause: Int) -> String {
        var line = "{\"device\":" + JSONText.quoted(device) + ",\"date\":\"" + RFC3339.format(date) + "\""
        line += ",\"lat\":" + JSONText.number(report.centre.latitude) + ",\"lon\":" + JSONText.number(report.centre.longitude)
        line += ",\"accuracy\":\(Int(report.radius)),\"cause\":\(cause)}\n"
        return line
    }
}
