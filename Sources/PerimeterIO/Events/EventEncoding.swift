import Perimeter

/// The JSON Lines form of a monitor event (SPEC §4), keys in a fixed order:
/// `{"device","identifier","state","date","delivery","reason","refinement","diagnostics","cause"}`.
public enum EventEncoding {
    public static func jsonLine(_ event: MonitorEvent) -> String {
        var line = "{\"device\":" + JSONText.quoted(event.device)
        line += ",\"identifier\":" + JSONText.quoted(event.identifier)
        line += ",\"state\":\"" + event.state.rawValue + "\""
        line += ",\"date\":\"" + RFC3339.format(event.date) + "\""
        line += ",\"delivery\":\"" + event.delivery.verdict.rawValue + "\""
        line += ",\"reason\":" + JSONText.quotedOrNull(event.delivery.reason?.rawValue)
        line += ",\"refinement\":"
        if let r = event.refinement {
            line += "{\"uuid\":\"" + r.uuid.uuidString + "\",\"major\":\(r.major),\"minor\":\(r.minor)}"
        } else {
            line += "null"
        }
        line += ",\"diagnostics\":[" + event.delivery.diagnostics.names.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]"
        line += ",\"cause\":\(event.cause)}\n"
        return line
    }
}
