/// The app changed lifecycle state.
public struct AppStateChange: Sendable, Hashable {
    public var time: Timestamp
    public var state: AppState

    public init(time: Timestamp, state: AppState) {
        self.time = time
        self.state = state
    }
}

/// The app asked for authorization (`requestWhenInUseAuthorization`, `requestAlwaysAuthorization`,
/// `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`).
public struct AuthorizationRequest: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case whenInUse
        case always
        case temporaryFullAccuracy
    }

    public var time: Timestamp
    public var kind: Kind
    /// The purpose key, for temporary full accuracy.
    public var purpose: String?

    public init(time: Timestamp, kind: Kind, purpose: String? = nil) {
        self.time = time
        self.kind = kind
        self.purpose = purpose
    }
}

/// The person's answer to the prompt on screen.
public struct PromptAnswer: Sendable, Hashable {
    public enum Choice: String, Sendable, Hashable, CaseIterable {
        case allowOnce
        case allowWhileUsing
        case deny
        case allowAlways
        case keepWhileUsing
    }

    public var time: Timestamp
    public var choice: Choice
    /// The first prompt's Precise switch; `nil` means on (only the first prompt has it).
    public var precise: Bool?

    public init(time: Timestamp, choice: Choice, precise: Bool? = nil) {
        self.time = time
        self.choice = choice
        self.precise = precise
    }
}

/// What the person changed in Settings.
public struct SettingsChange: Sendable, Hashable {
    /// The Location Services setting for the app.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case never
        case whenInUse
        case always
        case askNextTime
    }

    public var time: Timestamp
    public var status: Status?
    public var precise: Bool?
    /// The system-wide Location Services switch.
    public var locationServices: Bool?

    public init(time: Timestamp, status: Status? = nil, precise: Bool? = nil, locationServices: Bool? = nil) {
        self.time = time
        self.status = status
        self.precise = precise
        self.locationServices = locationServices
    }
}
