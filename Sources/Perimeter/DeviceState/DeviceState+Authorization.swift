extension DeviceState {
    /// Applies an authorization record at `time`: the app's lifecycle, a request, the person's answer
    /// or settings, a service session. An answer or a settings change may resolve the held events;
    /// the authorization as of `time` is then reported if it changed, and a temporary grant answered
    /// while the app is not in use is reported and lapses at once.
    /// - Returns: the outcomes of the requests the record made (a request, or sessions asking again).
    mutating func apply(_ record: AuthorizationRecord, at time: Timestamp, cause: Int, policy: MonitoringPolicy,
                        events: inout [MonitorEvent]) throws(ObservationProblem) -> [RequestOutcome] {
        let grace = policy.spans.gracePeriod
        var outcomes: [RequestOutcome] = []
        switch record {
        case .app(let change):
            let wasForeground = authorization.appState == .foreground
            authorization.applyAppState(change.state, at: time, profile: policy.profile)
            settle(at: time, cause: cause, grace: grace)
            if authorization.appState == .foreground && !wasForeground && policy.profile.requiresServiceSessions {
                outcomes = authorization.enteredForeground(at: time, profile: policy.profile)
            }
        case .session(let session):
            guard policy.profile.requiresServiceSessions else {
                throw ObservationProblem(field: "type", message: "session records need the ios18 platform profile")
            }
            outcomes = try authorization.apply(session, profile: policy.profile)
        case .appConfig(let configuration):
            authorization.apply(configuration)
        case .request(let request):
            outcomes = [authorization.request(request.kind, purpose: request.purpose)]
        case .answer(let answer):
            if let resolution = try authorization.answer(answer) {
                authorization.resolveHeld(resolution, cause: cause, into: &events)
            }
        case .settings(let settings):
            if let resolution = authorization.apply(settings) {
                authorization.resolveHeld(resolution, cause: cause, into: &events)
            }
        }
        reportAuthorization(date: time, inUseAt: time, cause: cause, grace: grace)
        settle(at: time, cause: cause, grace: grace)
        return outcomes
    }
}
