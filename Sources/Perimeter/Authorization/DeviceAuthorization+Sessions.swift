// The 2024 session model (profile ios18: docs/sessions.md, authorization.md), the app's lifecycle as
// it bears on it, and what the app's Info.plist says.
extension DeviceAuthorization {
    // MARK: The app's lifecycle

    /// The app goes to `requested` at `t`, as the rules let it: the indicator needs the location
    /// background mode, and under service sessions starts only in the foreground or rejoins the one
    /// the app had when it was terminated, within the relaunch window; otherwise the app is in the
    /// background. Termination remembers the sessions held, and the next state is a launch.
    mutating func applyAppState(_ requested: AppState, at t: Timestamp, profile: PlatformProfile) {
        var state = requested
        if appState == .terminated && state != .terminated {
            launchedAt = t
            foregroundSinceLaunch = false
        }
        // (Without the location background mode, the indicator is off even if it was on.)
        if state == .indicator && !backgroundLocation {
            state = .background
        } else if state == .indicator && appState != .indicator {
            if mayStartIndicator(at: t, profile: profile) { indicatorRemembered = false } else { state = .background }
        }
        if state == .terminated && appState != .terminated {
            forgetLostSessions(at: t, profile: profile)
            indicatorRemembered = appState == .indicator
            for k in sessions.indices { sessions[k].awaitsRetake = true }
            launchedAt = nil
        }
        if state == .foreground { foregroundSinceLaunch = true }
        setAppState(state, at: t)
    }

    private func mayStartIndicator(at t: Timestamp, profile: PlatformProfile) -> Bool {
        guard profile.requiresServiceSessions, appState != .foreground else { return true }
        guard indicatorRemembered, let launchedAt, let window = profile.relaunchWindow else { return false }
        return t <= launchedAt.adding(TimeSpan(seconds: window))
    }

    /// Applies what the app's Info.plist says, key by key.
    mutating func apply(_ configuration: AppConfiguration) {
        if let required = configuration.explicitSessionsRequired { explicitSessionsRequired = required }
        if let mode = configuration.backgroundLocation { backgroundLocation = mode }
        if let reduced = configuration.reducedAccuracyByDefault { reducedAccuracyByDefault = reduced }
        if let keys = configuration.fullAccuracyPurposes { fullAccuracyPurposes = Set(keys) }
    }

    // MARK: Service sessions

    /// Starts or ends a session; starting one in the foreground asks for what its goal needs, as
    /// Core Location does on the app's behalf. A start with the id of a session remembered across a
    /// termination takes it again, counting as it did. A terminated app can do neither. Returns the
    /// outcomes of the requests it made.
    mutating func apply(_ record: ServiceSessionRecord, profile: PlatformProfile) throws(ObservationProblem) -> [RequestOutcome] {
        guard appState != .terminated else {
            throw ObservationProblem(field: "action", message: "the app is terminated: an app record launches it before it can take or end a session")
        }
        forgetLostSessions(at: record.time, profile: profile)
        switch record.action {
        case .end:
            guard let i = sessions.firstIndex(where: { $0.id == record.id }) else {
                throw ObservationProblem(field: "id", message: "no session \"\(record.id)\" is held")
            }
            sessions.remove(at: i)
            return []
        case .start:
            if let i = sessions.firstIndex(where: { $0.id == record.id }) {
                guard sessions[i].awaitsRetake == true else {
                    throw ObservationProblem(field: "id", message: "session \"\(record.id)\" is already held")
                }
                guard sessions[i].goal == record.goal else {
                    throw ObservationProblem(field: "goal", message: "session \"\(record.id)\" was held with goal \(sessions[i].goal.rawValue) when the app was terminated; taken again, it has the same goal")
                }
                // (Taken again, it is the latest started, with the purpose it is taken with.)
                var session = sessions.remove(at: i)
                session.awaitsRetake = nil
                session.wantsFullAccuracy = record.fullAccuracyPurpose != nil
                session.purpose = record.fullAccuracyPurpose
                sessions.append(session)
                return requests(for: session)
            }
            let inEffect = appState == .foreground || sessions.contains(where: \.isInEffect) || implicitSessionIsInEffect(profile)
            let session = HeldSession(id: record.id, goal: record.goal, wantsFullAccuracy: record.fullAccuracyPurpose != nil,
                                      isInEffect: inEffect, purpose: record.fullAccuracyPurpose)
            sessions.append(session)
            return requests(for: session)
        }
    }

    /// 004: knowing the goal, Core Location "will act when next possible" — when the app comes to the
    /// foreground, every held session asks again, the explicit ones in start order (those remembered
    /// across a termination once taken again) and then the implicit one (so that an `always` goal is
    /// asked for before `whenInUse`). A session taken in the background does not come into effect
    /// then: one can "only start holding one when your app is in the foreground".
    mutating func enteredForeground(at t: Timestamp, profile: PlatformProfile) -> [RequestOutcome] {
        var outcomes: [RequestOutcome] = []
        for session in sessions where session.awaitsRetake != true { outcomes += requests(for: session) }
        if !explicitSessionsRequired { outcomes.append(request(.whenInUse)) }
        return outcomes
    }

    private mutating func requests(for session: HeldSession) -> [RequestOutcome] {
        var outcomes: [RequestOutcome] = []
        switch session.goal {
        case .none: break
        case .whenInUse: outcomes.append(request(.whenInUse))
        case .always:
            // From notDetermined the first prompt, from when-in-use the always prompt: `.always` does both.
            outcomes.append(request(.always))
        }
        if session.wantsFullAccuracy { outcomes.append(request(.temporaryFullAccuracy, purpose: session.purpose)) }
        return outcomes
    }

    /// The implicit session (an app iterating its monitor's events): held while the app runs unless
    /// the Info.plist requires explicit sessions, in effect once the app has been in the foreground
    /// since its launch.
    func implicitSessionIsInEffect(_ profile: PlatformProfile) -> Bool {
        profile.requiresServiceSessions && !explicitSessionsRequired && appState != .terminated && foregroundSinceLaunch
    }

    /// A session remembered across a termination and not taken again within the relaunch window.
    private func isLost(_ session: HeldSession, at t: Timestamp, profile: PlatformProfile) -> Bool {
        guard session.awaitsRetake == true, let launchedAt, let window = profile.relaunchWindow else { return false }
        return t > launchedAt.adding(TimeSpan(seconds: window))
    }

    private mutating func forgetLostSessions(at t: Timestamp, profile: PlatformProfile) {
        guard launchedAt != nil else { return }
        let kept = sessions.filter { !isLost($0, at: t, profile: profile) }
        sessions = kept
    }

    /// Whether a session with goal always is held, in effect and not lost at `t` (profile ios18).
    func holdsAlwaysSession(at t: Timestamp, profile: PlatformProfile) -> Bool {
        sessions.contains { $0.goal == .always && $0.isInEffect && !isLost($0, at: t, profile: profile) }
    }
}
