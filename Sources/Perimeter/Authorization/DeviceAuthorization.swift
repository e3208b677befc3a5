/// One device's authorization model (SPEC §3): what the person allowed, the app's use, the prompt on
/// screen, and the events held during provisional always. Pure state transitions; the engine decides
/// when to apply them.
struct DeviceAuthorization {
    var status: AuthorizationStatus
    var isTemporary = false
    var isProvisional = false
    /// The provisional period can be entered once per device.
    var provisionalUsed = false
    /// A request for always has effect once per device.
    var alwaysRequestUsed = false
    var accuracy = AccuracyAuthorization.full
    var temporaryFullAccuracy = false
    var locationServices = true
    var appState: AppState
    /// Set by a foreground → background transition: the grace period runs from here.
    var leftForegroundAt: Timestamp?
    var prompt: Prompt?
    /// Events held during provisional always, oldest first.
    var held: [MonitorEvent] = []
    /// Events held so far, for numbering them (`MonitorEvent.holding`); wraps, harmlessly, only
    /// after 2³² of them.
    var heldTotal: UInt32 = 0
    /// Service sessions held (profile ios18), in start order, remembered ones included.
    var sessions: [HeldSession] = []
    /// What the app's Info.plist says (`appConfig`; docs/sessions.md).
    var explicitSessionsRequired = false
    var backgroundLocation = true
    var reducedAccuracyByDefault = false
    /// The purpose keys declared; `nil`: none declared, any key accepted.
    var fullAccuracyPurposes: Set<String>?
    /// Whether the app has been in the foreground since it was last launched (or since the device's
    /// first record): the implicit session is in effect then.
    var foregroundSinceLaunch: Bool
    /// The latest launch after a termination, while sessions or the indicator may be taken again.
    var launchedAt: Timestamp?
    /// Whether the app had the indicator when it was last terminated (it may rejoin it).
    var indicatorRemembered = false

    init(_ initial: InitialAuthorization) {
        switch initial {
        case .always:
            status = .always
            appState = .foreground
        case .notDetermined:
            status = .notDetermined
            appState = .background
        case .restricted:
            status = .restricted
            appState = .background
        }
        foregroundSinceLaunch = appState == .foreground
    }

    // MARK: In use

    /// In the foreground, with the indicator, or within the grace period after leaving the foreground.
    func isInUse(at t: Timestamp, grace: TimeSpan) -> Bool {
        switch appState {
        case .foreground, .indicator: true
        case .terminated: false
        case .background: leftForegroundAt.map { t <= $0.adding(grace) } ?? false
        }
    }

    /// The last instant of the grace period, while in the background after the foreground.
    func graceEnd(_ grace: TimeSpan) -> Timestamp? {
        appState == .background ? leftForegroundAt?.adding(grace) : nil
    }

    mutating func setAppState(_ state: AppState, at t: Timestamp) {
        guard state != appState else { return }
        // Grace follows only leaving the foreground; the indicator ending or termination ends use at once.
        leftForegroundAt = appState == .foreground && state == .background ? t : nil
        appState = state
    }

    /// Temporary grants (Allow Once, temporary full accuracy) lapse when the app stops being in use;
    /// applies that if the app is not in use at `t`. Returns whether anything lapsed.
    mutating func settle(at t: Timestamp, grace: TimeSpan) -> Bool {
        guard isTemporary || temporaryFullAccuracy, !isInUse(at: t, grace: grace) else { return false }
        if isTemporary {
            status = .notDetermined
            isTemporary = false
        }
        temporaryFullAccuracy = false
        return true
    }

    // MARK: Requests, answers, settings

    /// - Parameter purpose: for temporary full accuracy, the purpose key: one the app's Info.plist
    ///   does not declare (when it declares any) makes the request do nothing.
    mutating func request(_ kind: AuthorizationRequest.Kind, purpose: String? = nil) -> RequestOutcome {
        // 000: in the grace period or with the indicator an app "is not considered in use enough to
        // request an authorization prompt".
        guard appState == .foreground else { return .insufficientlyInUse }
        guard prompt == nil else { return .noEffect }
        switch kind {
        case .whenInUse:
            guard status == .notDetermined else { return .noEffect }
            prompt = .first(alwaysIntent: false)
        case .always:
            guard !alwaysRequestUsed else { return .noEffect }
            if status == .notDetermined {
                prompt = .first(alwaysIntent: true)
            } else if status == .whenInUse && !isTemporary {
                prompt = .always(deferred: false)  // iOS 13.4: at once
            } else {
                return .noEffect
            }
            alwaysRequestUsed = true
        case .temporaryFullAccuracy:
            guard status == .whenInUse || status == .always, accuracy == .reduced, !temporaryFullAccuracy else { return .noEffect }
            if let purpose, let declared = fullAccuracyPurposes, !declared.contains(purpose) { return .noEffect }
            prompt = .temporaryFullAccuracy
        }
        return .prompted
    }

    /// What becomes of the held events.
    enum HeldResolution {
        case deliver
        case drop(Delivery.Reason)
    }

    mutating func answer(_ answer: PromptAnswer) throws(ObservationProblem) -> HeldResolution? {
        guard let open = prompt else {
            throw ObservationProblem(field: "choice", message: "\"\(answer.choice.rawValue)\" answers no prompt: none is open")
        }
        guard open.choices.contains(answer.choice) else {
            throw ObservationProblem(
                field: "choice",
                message: "\(open.name) offers \(open.choices.map(\.rawValue).sorted().joined(separator: ", ")), not \"\(answer.choice.rawValue)\"")
        }
        if answer.precise != nil, case .first = open {} else if answer.precise != nil {
            throw ObservationProblem(field: "precise", message: "only the first prompt has a Precise switch, not \(open.name)")
        }
        if answer.precise != nil && reducedAccuracyByDefault {
            throw ObservationProblem(field: "precise", message: "the first prompt has no Precise switch: the app's Info.plist asks for reduced accuracy by default (appConfig reducedAccuracyByDefault)")
        }
        prompt = nil
        switch open {
        case .first(let alwaysIntent):
            // The Precise switch comes with a grant; Don't Allow leaves accuracy as it was.
            if answer.choice != .deny { accuracy = !reducedAccuracyByDefault && answer.precise ?? true ? .full : .reduced }
            switch answer.choice {
            case .allowOnce:
                status = .whenInUse
                isTemporary = true
            case .allowWhileUsing:
                if alwaysIntent && !provisionalUsed {
                    status = .always
                    isProvisional = true
                    provisionalUsed = true
                } else {
                    status = .whenInUse
                    isTemporary = false
                }
            default:
                status = .denied
            }
            return nil
        case .always(let deferred):
            isProvisional = false
            isTemporary = false
            if answer.choice == .allowAlways {
                status = .always
                return deferred ? .deliver : nil
            }
            status = .whenInUse
            return deferred ? .drop(.alwaysAuthorizationDenied) : nil
        case .temporaryFullAccuracy:
            if answer.choice == .allowOnce { temporaryFullAccuracy = true }
            return nil
        }
    }

    mutating func apply(_ settings: SettingsChange) -> HeldResolution? {
        if let enabled = settings.locationServices { locationServices = enabled }
        if let precise = settings.precise {
            accuracy = precise ? .full : .reduced
            // Full accuracy leaves the temporary full-accuracy prompt nothing to ask.
            if precise && prompt == .temporaryFullAccuracy { prompt = nil }
        }
        guard let newStatus = settings.status else { return nil }
        var resolution: HeldResolution?
        if isProvisional {
            isProvisional = false
            switch newStatus {
            case .always: resolution = .deliver
            case .never: resolution = .drop(.authorizationDenied)
            case .whenInUse, .askNextTime: resolution = .drop(.alwaysAuthorizationDenied)
            }
        }
        prompt = nil
        isTemporary = false
        switch newStatus {
        case .never: status = .denied
        case .whenInUse: status = .whenInUse
        case .always: status = .always
        case .askNextTime: status = .notDetermined
        }
        return resolution
    }

    /// Reduced accuracy without a temporary full-accuracy grant.
    var isAccuracyLimited: Bool { accuracy == .reduced && !temporaryFullAccuracy }

    // MARK: Verdicts

    /// The delivery verdict for an event at `t` (SPEC §3, rules 1–5, first match; under the ios18
    /// profile `always` reaches the background only through a session with goal always).
    /// `needsFullAccuracy: false` leaves out the reduced-accuracy rule, for live updates, which an
    /// app with reduced accuracy still gets (approximately).
    func verdict(at t: Timestamp, grace: TimeSpan, profile: PlatformProfile = .standard,
                 needsFullAccuracy: Bool = true) -> Delivery {
        if !locationServices {
            return Delivery(verdict: .dropped, reason: .authorizationDenied, diagnostics: [.authorizationDenied, .authorizationDeniedGlobally])
        }
        switch status {
        case .denied:
            return Delivery(verdict: .dropped, reason: .authorizationDenied, diagnostics: [.authorizationDenied])
        case .restricted:
            return Delivery(verdict: .dropped, reason: .authorizationRestricted, diagnostics: [.authorizationRestricted])
        case .notDetermined:
            return Delivery(verdict: .dropped, reason: .notDetermined,
                            diagnostics: prompt == nil ? [.insufficientlyInUse] : [.authorizationRequestInProgress])
        case .whenInUse, .always:
            break
        }
        if needsFullAccuracy && isAccuracyLimited {
            return Delivery(verdict: .dropped, reason: .accuracyLimited, diagnostics: [.accuracyLimited])
        }
        if isInUse(at: t, grace: grace) { return .delivered }
        if status == .whenInUse {
            return Delivery(verdict: .dropped, reason: .insufficientlyInUse, diagnostics: [.insufficientlyInUse])
        }
        if profile.requiresServiceSessions && !holdsAlwaysSession(at: t, profile: profile) {
            return Delivery(verdict: .dropped, reason: .serviceSessionRequired, diagnostics: [.serviceSessionRequired])
        }
        if !isProvisional { return .delivered }
        return Delivery(verdict: .held, reason: .provisionalAlways, diagnostics: [.insufficientlyInUse])
    }
}
