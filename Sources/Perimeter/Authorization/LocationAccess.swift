/// What an app may have of its device's location at one instant (SPEC §5.1, §5.2): the monitoring
/// verdict's rules, read for a live update and for a ranging result, neither of which is ever held.
public struct LocationAccess: Sendable, Hashable {
    /// Whether a live update's location reaches the app (reduced accuracy does not stop it).
    public var providesLocation: Bool
    /// The location reaches the app, but only as the approximate one.
    public var accuracyLimited: Bool
    /// Why a live update has no location; empty when it has one.
    public var updateDiagnostics: Diagnostics
    /// A ranging result's verdict: the monitoring verdict, with `held` (provisional always, not in
    /// use) made `dropped`, `insufficientlyInUse`.
    public var ranging: Delivery

    public init(providesLocation: Bool, accuracyLimited: Bool, updateDiagnostics: Diagnostics, ranging: Delivery) {
        self.providesLocation = providesLocation
        self.accuracyLimited = accuracyLimited
        self.updateDiagnostics = updateDiagnostics
        self.ranging = ranging
    }
}

extension DeviceAuthorization {
    /// The access at `t`, which the caller has settled up to (`settle(at:grace:)`).
    func access(at t: Timestamp, grace: TimeSpan, profile: PlatformProfile) -> LocationAccess {
        let update = verdict(at: t, grace: grace, profile: profile, needsFullAccuracy: false)
        let provides = update.verdict == .delivered
        var ranging = verdict(at: t, grace: grace, profile: profile)
        if ranging.verdict == .held {
            ranging = Delivery(verdict: .dropped, reason: .insufficientlyInUse, diagnostics: .insufficientlyInUse)
        }
        return LocationAccess(providesLocation: provides, accuracyLimited: provides && isAccuracyLimited,
                              updateDiagnostics: update.verdict == .held ? .insufficientlyInUse : update.diagnostics,
                              ranging: ranging)
    }
}
