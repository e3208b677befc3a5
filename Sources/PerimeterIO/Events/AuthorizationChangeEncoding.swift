import Perimeter

/// The JSON Lines form of an authorization change (`--authorization-out`), keys in a fixed order:
/// `{"device","date","status","temporary","provisional","accuracy","temporaryFullAccuracy","locationServices","inUse","cause"}`.
public enum AuthorizationChangeEncoding {
    /// The change as one JSON object (`--authorization-out`'s line), and its newline.
    public static func jsonLine(_ change: AuthorizationChange) -> String {
        "{\"device\":" + JSONText.quoted(change.device)
            + ",\"date\":\"" + RFC3339.format(change.date) + "\""
            + ",\"status\":\"" + change.status.rawValue + "\""
            + ",\"temporary\":\(change.isTemporary)"
            + ",\"provisional\":\(change.isProvisional)"
            + ",\"accuracy\":\"" + change.accuracy.rawValue + "\""
            + ",\"temporaryFullAccuracy\":\(change.temporaryFullAccuracy)"
            + ",\"locationServices\":\(change.locationServicesEnabled)"
            + ",\"inUse\":\(change.isInUse)"
            + ",\"cause\":\(change.cause)}\n"
    }
}
