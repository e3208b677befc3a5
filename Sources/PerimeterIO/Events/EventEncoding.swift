import Perimeter

/// The JSON Lines form of a monitor event (SPEC §4), keys in a fixed order:
/// `{"device","identifier","state","date","delivery","reason","refinement","diagnostics","cause"}`.
public enum EventEncoding {
    /// The event as one JSON object with SPEC §4's keys in their order, and its newline.
    public static func jsonLine(_ event: MonitorEvent) -> String {
        var bytes: [UInt8] = []
        append(event, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `jsonLine(event)`'s bytes: the tool writes them straight into its output buffer, where
    /// building a `String` piece by piece cost as much as reading the record. The line is written in
    /// temporary memory sized for the longest it can be, then appended once.
    public static func append(_ event: MonitorEvent, to out: inout [UInt8]) {
        var device = event.device, identifier = event.identifier
        device.withUTF8 { device in
            identifier.withUTF8 { identifier in
                // (Up to 1,024 bytes come from the stack: names of up to 40 bytes, nearly all.)
                let capacity = longestWithoutNames + ByteWriter.quotedBound(device.count) + ByteWriter.quotedBound(identifier.count)
                ByteWriter.append(to: &out, capacity: capacity) { w in
                    write(event, device: device, identifier: identifier, to: &w)
                }
            }
        }
    }

    /// Most bytes a line takes besides its two names: the longest state, date, verdict, reason,
    /// refinement, cause and every diagnostic (a test checks it).
    static let longestWithoutNames = 576

    // The enumerations' raw values as literals, copied without a `String` (a test checks each
    // against its raw value).
    static func name(_ state: ConditionState) -> StaticString {
        switch state {
        case .unknown: "unknown"
        case .satisfied: "satisfied"
        case .unsatisfied: "unsatisfied"
        case .unmonitored: "unmonitored"
        case .dwelling: "dwelling"
        }
    }

    static func name(_ verdict: Delivery.Verdict) -> StaticString {
        switch verdict {
        case .delivered: "delivered"
        case .held: "held"
        case .dropped: "dropped"
        }
    }

    static func name(_ reason: Delivery.Reason) -> StaticString {
        switch reason {
        case .authorizationDenied: "authorizationDenied"
        case .authorizationRestricted: "authorizationRestricted"
        case .notDetermined: "notDetermined"
        case .accuracyLimited: "accuracyLimited"
        case .insufficientlyInUse: "insufficientlyInUse"
        case .alwaysAuthorizationDenied: "alwaysAuthorizationDenied"
        case .displaced: "displaced"
        case .expired: "expired"
        case .serviceSessionRequired: "serviceSessionRequired"
        case .provisionalAlways: "provisionalAlways"
        }
    }

    private static func write(_ event: MonitorEvent, device: UnsafeBufferPointer<UInt8>, identifier: UnsafeBufferPointer<UInt8>,
                              to w: inout ByteWriter) {
        w.write(#"{"device":"#)
        w.writeQuoted(device)
        w.write(#","identifier":"#)
        w.writeQuoted(identifier)
        w.write(#","state":""#)
        w.write(name(event.state))
        w.write(#"","date":""#)
        RFC3339.write(event.date, to: &w)
        w.write(#"","delivery":""#)
        w.write(name(event.delivery.verdict))
        w.write(#"","reason":"#)
        if let reason = event.delivery.reason {
            w.write(UInt8(ascii: "\""))
            w.write(name(reason))
            w.write(UInt8(ascii: "\""))
        } else {
            w.write("null" as StaticString)
        }
        w.write(#","refinement":"#)
        if let r = event.refinement {
            w.write(#"{"uuid":""#)
            w.writeUUID(r.uuid)
            w.write(#"","major":"#)
            w.writeDecimal(Int(r.major))
            w.write(#","minor":"#)
            w.writeDecimal(Int(r.minor))
            w.write(UInt8(ascii: "}"))
        } else {
            w.write("null" as StaticString)
        }
        w.write(#","diagnostics":["#)
        var first = true
        for (diagnostic, name) in Diagnostics.named where event.delivery.diagnostics.contains(diagnostic) {  // (rare)
            if !first { w.write(UInt8(ascii: ",")) }
            first = false
            w.write(UInt8(ascii: "\""))
            w.write(name)
            w.write(UInt8(ascii: "\""))
        }
        w.write(#"],"cause":"#)
        w.writeDecimal(event.cause)
        w.write("}\n" as StaticString)
    }
}
