import Perimeter

/// The JSON Lines form of a monitor event (SPEC §4), keys in a fixed order:
/// `{"device","identifier","state","date","delivery","reason","refinement","diagnostics","cause"}`.
public enum EventEncoding {
    public static func jsonLine(_ event: MonitorEvent) -> String {
        var bytes: [UInt8] = []
        append(event, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonLine(event)`'s bytes: the tool writes them straight into its output buffer, where
    /// building a `String` piece by piece cost as much as reading the record.
    public static func append(_ event: MonitorEvent, to out: inout [UInt8]) {
        JSONText.append(#"{"device":"#, to: &out)
        JSONText.appendQuoted(event.device, to: &out)
        JSONText.append(#","identifier":"#, to: &out)
        JSONText.appendQuoted(event.identifier, to: &out)
        JSONText.append(#","state":""#, to: &out)
        out.append(contentsOf: event.state.rawValue.utf8)
        JSONText.append(#"","date":""#, to: &out)
        RFC3339.append(event.date, to: &out)
        JSONText.append(#"","delivery":""#, to: &out)
        out.append(contentsOf: event.delivery.verdict.rawValue.utf8)
        JSONText.append(#"","reason":"#, to: &out)
        if let reason = event.delivery.reason {
            JSONText.appendQuoted(reason.rawValue, to: &out)
        } else {
            JSONText.append("null", to: &out)
        }
        JSONText.append(#","refinement":"#, to: &out)
        if let r = event.refinement {
            JSONText.append(#"{"uuid":""#, to: &out)
            JSONText.appendUUID(r.uuid, to: &out)
            JSONText.append(#"","major":"#, to: &out)
            JSONText.appendDecimal(Int(r.major), to: &out)
            JSONText.append(#","minor":"#, to: &out)
            JSONText.appendDecimal(Int(r.minor), to: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            JSONText.append("null", to: &out)
        }
        JSONText.append(#","diagnostics":["#, to: &out)
        for (k, name) in event.delivery.diagnostics.names.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: "\""))
        }
        JSONText.append(#"],"cause":"#, to: &out)
        JSONText.appendDecimal(event.cause, to: &out)
        JSONText.append("}\n", to: &out)
    }
}
