/// What the person allowed, as `CLAuthorizationStatus` reports it to the app.
public enum AuthorizationStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case notDetermined
    case denied
    case restricted
    case whenInUse
    case always
}

/// Full or reduced (approximate) location, as `CLAccuracyAuthorization`.
public enum AccuracyAuthorization: String, Sendable, Hashable, CaseIterable, Codable {
    case full
    case reduced
}

/// The app's lifecycle state, as a device's `app` records report it.
public enum AppState: String, Sendable, Hashable, CaseIterable, Codable {
    case foreground
    /// In the background with the location indicator (a background activity session or live activity):
    /// still in use.
    case indicator
    case background
    case terminated
}

/// How every device starts.
public enum InitialAuthorization: String, Sendable, Hashable, CaseIterable, Codable {
    /// `always`, full accuracy, location services on, app in the foreground: plain geofence evaluation.
    case always
    /// As a fresh install: `notDetermined`, precise, services on, not in use until the app comes to the foreground.
    case notDetermined
    /// As `notDetermined`, but parental controls or a profile forbid location (`restricted`).
    case restricted
}
