import Perimeter

/// A monitor event encodes as the tool's event line (SPEC §4): the same members with the same values
/// — `device`, `identifier`, `state`, `date` (RFC 3339), `delivery`, `reason` (or null), `refinement`
/// (`{uuid, major, minor}` or null), `diagnostics` and `cause` — so that a library user's events and
/// the tool's agree. `EventEncoding` writes the line itself, byte for byte and much faster; an
/// encoder chooses its own key order and escapes.
///
/// ```swift
/// let line = try JSONEncoder().encode(event)   // {"device":"alice","identifier":"louvre",…}
/// ```
///
/// (The engine names no wire format, so the conformance lives with the writers. It is no retroactive
/// conformance in Swift 6's sense, which would warn: the event's module is in the same package.)
extension MonitorEvent: Encodable {
    private enum Key: String, CodingKey {
        case device, identifier, state, date, delivery, reason, refinement, diagnostics, cause
    }

    private enum RefinementKey: String, CodingKey {
        case uuid, major, minor
    }

    /// Encodes the event line's members; `reason` and `refinement` as null when the event has none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(device, forKey: .device)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(state.rawValue, forKey: .state)
        try container.encode(RFC3339.format(date), forKey: .date)
        try container.encode(delivery.verdict.rawValue, forKey: .delivery)
        try container.encode(delivery.reason?.rawValue, forKey: .reason)
        if let refinement {
            var beacon = container.nestedContainer(keyedBy: RefinementKey.self, forKey: .refinement)
            try beacon.encode(refinement.uuid.uuidString, forKey: .uuid)
            try beacon.encode(refinement.major, forKey: .major)
            try beacon.encode(refinement.minor, forKey: .minor)
        } else {
            try container.encodeNil(forKey: .refinement)
        }
        try container.encode(delivery.diagnostics.names, forKey: .diagnostics)
        try container.encode(cause, forKey: .cause)
    }
}
