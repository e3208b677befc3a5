/// What an app's Info.plist says that changes Core Location's behaviour (docs/sessions.md): an
/// `appConfig` record. Each key given applies from the record's time on; one left `nil` stays as it
/// was.
///
/// ```swift
/// // An app that takes its sessions explicitly and asks for reduced accuracy by default:
/// let plist = AppConfiguration(time: t, explicitSessionsRequired: true, reducedAccuracyByDefault: true)
/// try engine.process(.appConfig(plist), device: "ana", cause: 1, into: &events)
/// ```
public struct AppConfiguration: Sendable, Hashable {
    public var time: Timestamp
    /// `NSLocationRequireExplicitServiceSession` (ios18): no implicit session.
    public var explicitSessionsRequired: Bool?
    /// `location` in `UIBackgroundModes`: without it the location indicator cannot start.
    public var backgroundLocation: Bool?
    /// `NSLocationDefaultAccuracyReduced`: the first prompt offers no Precise switch.
    public var reducedAccuracyByDefault: Bool?
    /// The keys of `NSLocationTemporaryUsageDescriptionDictionary`: once declared, a temporary
    /// full-accuracy request naming another key has no effect.
    public var fullAccuracyPurposes: [String]?

    public init(time: Timestamp, explicitSessionsRequired: Bool? = nil, backgroundLocation: Bool? = nil,
                reducedAccuracyByDefault: Bool? = nil, fullAccuracyPurposes: [String]? = nil) {
        self.time = time
        self.explicitSessionsRequired = explicitSessionsRequired
        self.backgroundLocation = backgroundLocation
        self.reducedAccuracyByDefault = reducedAccuracyByDefault
        self.fullAccuracyPurposes = fullAccuracyPurposes
    }

    /// Whether it says anything.
    public var isEmpty: Bool {
        explicitSessionsRequired == nil && backgroundLocation == nil && reducedAccuracyByDefault == nil && fullAccuracyPurposes == nil
    }
}
