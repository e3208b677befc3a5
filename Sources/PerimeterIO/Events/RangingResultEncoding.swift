import Perimeter

/// The JSON Lines form of a ranging result (docs/ranging.md), keys in a fixed order:
/// `{"device","constraint","date","beacons":[{"uuid","major","minor","rssi","distance","proximity"}],"delivery","reason","cause"}`.
public enum RangingResultEncoding {
    /// The result as one JSON object, and its newline.
    public static func jsonLine(_ result: RangingResult) -> String {
        var line = "{\"device\":" + JSONText.quoted(result.device) + ",\"constraint\":" + JSONText.quoted(result.constraint)
        line += ",\"date\":\"" + RFC3339.format(result.date) + "\",\"beacons\":["
        for (i, beacon) in result.beacons.enumerated() {
            if i > 0 { line += "," }
            line += "{\"uuid\":\"" + beacon.identity.uuid.uuidString + "\",\"major\":\(beacon.identity.major),\"minor\":\(beacon.identity.minor)"
            line += ",\"rssi\":" + JSONText.number(beacon.rssi) + ",\"distance\":" + JSONText.number(beacon.distance)
            line += ",\"proximity\":\"" + beacon.proximity.rawValue + "\"}"
        }
        line += "],\"delivery\":\"" + result.delivery.verdict.rawValue + "\",\"reason\":"
        line += result.delivery.reason.map { "\"\($0.rawValue)\"" } ?? "null"
        line += ",\"cause\":\(result.cause)}\n"
        return line
    }
}
