/// One of the records that change a device's authorization or its app's use of it: what the engine
/// hands the device for everything other than fixes and sightings.
enum AuthorizationRecord {
    case app(AppStateChange)
    case request(AuthorizationRequest)
    case answer(PromptAnswer)
    case settings(SettingsChange)
    case session(ServiceSessionRecord)
    case appConfig(AppConfiguration)
}
