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
        out.append(contentsOf: #"{"device":"#.utf8)
        JSONText.appendQuoted(event.device, to: &out)
        out.append(contentsOf: #","identifier":"#.utf8)
        JSONText.appendQuoted(event.identifier, to: &out)
        out.append(contentsOf: #","state":""#.utf8)
        out.append(contentsOf: event.state.rawValue.utf8)
        out.append(contentsOf: #"","date":""#.utf8)
        RFC3339.append(event.date, to: &out)
        out.append(contentsOf: #"","delivery":""#.utf8)
        out.append(contentsOf: event.delivery.verdict.rawValue.utf8)
        out.append(contentsOf: #"","reason":"#.utf8)
        if let reason = event.delivery.reason {
            JSONText.appendQuoted(reason.rawValue, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","refinement":"#.utf8)
        if let r = event.refinement {
            out.append(contentsOf: #"{"uuid":""#.utf8)
            JSONText.appendUUID(r.uuid, to: &out)
            out.append(contentsOf: #"","major":"#.utf8)
            JSONText.appendDecimal(Int(r.major), to: &out)
            out.append(contentsOf: #","minor":"#.utf8)
            JSONText.appendDecimal(Int(r.minor), to: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","diagnostics":["#.utf8)
        for (k, name) in event.delivery.diagnostics.names.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: #"],"cause":"#.utf8)
        JSONText.appendDecimal(event.cause, to: &out)
        out.append(contentsOf: "}\n".utf8)
    }
}
