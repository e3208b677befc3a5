/// The authorization a device's app sees, reported whenever any part of it changes — what
/// `locationManagerDidChangeAuthorization` tells an app (001), plus whether it is in use.
public struct AuthorizationChange: Sendable, Hashable {
    public var device: String
    /// When it changed, in the device's stream time (a lapse is dated when the app stopped being in use,
    /// or when the grant was made if that was later).
    public var date: Timestamp
    public var status: AuthorizationStatus
    /// `whenInUse` granted with Allow Once.
    public var isTemporary: Bool
    /// `always` during provisional always.
    public var isProvisional: Bool
    public var accuracy: AccuracyAuthorization
    /// A temporary full-accuracy grant is active.
    public var temporaryFullAccuracy: Bool
    public var locationServicesEnabled: Bool
    public var isInUse: Bool
    /// The input line (or record index) that caused it.
    public var cause: Int
}
