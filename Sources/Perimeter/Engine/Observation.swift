/// One record of a device's stream.
public enum Observation: Sendable, Hashable {
    case fix(Fix)
    case sighting(BeaconSighting)
    case app(AppStateChange)
    case request(AuthorizationRequest)
    case answer(PromptAnswer)
    case settings(SettingsChange)
    case session(ServiceSessionRecord)
    /// What the app's Info.plist says (docs/sessions.md).
    case appConfig(AppConfiguration)
    /// A live-update configuration change (SPEC §5.1); monitoring takes it as a tick of the clock.
    case config(LiveConfigurationChange)

    /// When it happened, in the device's stream time.
    public var time: Timestamp {
        switch self {
        case .fix(let fix): fix.time
        case .sighting(let sighting): sighting.time
        case .app(let change): change.time
        case .request(let request): request.time
        case .answer(let answer): answer.time
        case .settings(let settings): settings.time
        case .session(let session): session.time
        case .appConfig(let configuration): configuration.time
        case .config(let change): change.time
        }
    }

    /// The record as the device's authorization takes it; `nil` for fixes, sightings and live
    /// configurations, which only move its clock there.
    var authorizationRecord: AuthorizationRecord? {
        switch self {
        case .app(let change): .app(change)
        case .request(let request): .request(request)
        case .answer(let answer): .answer(answer)
        case .settings(let settings): .settings(settings)
        case .session(let session): .session(session)
        case .appConfig(let configuration): .appConfig(configuration)
        case .fix, .sighting, .config: nil
        }
    }
}
