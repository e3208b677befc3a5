import Perimeter

/// The JSON Lines form of a live update (docs/live.md), keys in a fixed order:
/// `{"device","date","location","stationary","locationUnavailable","accuracyLimited","diagnostics","cause"}`.
public enum LiveUpdateEncoding {
    /// The update as one JSON object, and its newline.
    public static func jsonLine(_ update: LiveUpdate) -> String {
        var line = "{\"device\":" + JSONText.quoted(update.device)
        line += ",\"date\":\"" + RFC3339.format(update.date) + "\",\"location\":"
        if let location = update.location {
            line += "{\"lat\":" + JSONText.number(location.coordinate.latitude)
            line += ",\"lon\":" + JSONText.number(location.coordinate.longitude)
            line += ",\"accuracy\":" + JSONText.number(location.accuracy) + "}"
        } else {
            line += "null"
        }
        line += ",\"stationary\":\(update.isStationary),\"locationUnavailable\":\(update.locationUnavailable)"
        line += ",\"accuracyLimited\":\(update.accuracyLimited),\"diagnostics\":" + JSONText.names(update.diagnostics)
        line += ",\"cause\":\(update.cause)}\n"
        return line
    }
}
