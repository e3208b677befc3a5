/// The authorization a device's app sees, reported whenever any part of it changes — what
/// `locationManagerDidChangeAuthorization` tells an app (001), plus whether it is in use.
public struct AuthorizationChange: Sendable, Hashable, Codable {
    /// The device's name.
    public var device: String
    /// When it changed, in the device's stream time (a lapse is dated when the app stopped being in use,
    /// or when the grant was made if that was later).
    public var date: Timestamp
    /// The authorization status after the change.
    public var status: AuthorizationStatus
    /// `whenInUse` granted with Allow Once.
    public var isTemporary: Bool
    /// `always` during provisional always.
    public var isProvisional: Bool
    /// Full or reduced accuracy, as the person set it.
    public var accuracy: AccuracyAuthorization
    /// A temporary full-accuracy grant is active.
    public var temporaryFullAccuracy: Bool
    /// Whether location services are on system-wide.
    public var locationServicesEnabled: Bool
    /// Whether the app is in use (foreground, indicator, or within the grace period).
    public var isInUse: Bool
    /// The input line (or record index) that caused it.
    public var cause: Int
}
