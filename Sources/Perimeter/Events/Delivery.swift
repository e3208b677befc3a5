/// What happened to an event on its way to the app, and why.
public struct Delivery: Sendable, Hashable, Codable {
    public enum Verdict: String, Sendable, Hashable, CaseIterable, Codable {
        case delivered
        case held
        case dropped
    }

    /// Why an event was held or dropped.
    public enum Reason: String, Sendable, Hashable, CaseIterable, Codable {
        case authorizationDenied
        case authorizationRestricted
        case notDetermined
        case accuracyLimited
        case insufficientlyInUse
        case alwaysAuthorizationDenied
        case displaced
        case expired
        case serviceSessionRequired
        case provisionalAlways
    }

    /// Delivered, held or dropped.
    public var verdict: Verdict
    /// `nil` when delivered.
    public var reason: Reason?
    /// Why not delivered, as Core Location's diagnostics name it (004); empty when delivered.
    public var diagnostics: Diagnostics

    /// A verdict with its reason (nil when delivered) and diagnostics.
    public init(verdict: Verdict, reason: Reason?, diagnostics: Diagnostics = []) {
        self.verdict = verdict
        self.reason = reason
        self.diagnostics = diagnostics
    }

    /// Delivered: no reason, no diagnostics.
    public static let delivered = Delivery(verdict: .delivered, reason: nil)

    /// The final verdict of a held event that is dropped, with the diagnostic that says why (004: an
    /// event the app does not get comes "with a Diagnostic Property set to indicate why not"): the
    /// reason's own where 004 names one; for an event displaced or expired while it waited for the
    /// always prompt's answer, `insufficientlyInUse`, as on its held line.
    static func heldEventDropped(_ reason: Reason) -> Delivery {
        let diagnostics: Diagnostics = switch reason {
        case .authorizationDenied: .authorizationDenied
        case .authorizationRestricted: .authorizationRestricted
        case .accuracyLimited: .accuracyLimited
        case .alwaysAuthorizationDenied: .alwaysAuthorizationDenied
        case .serviceSessionRequired: .serviceSessionRequired
        case .notDetermined, .insufficientlyInUse, .displaced, .expired, .provisionalAlways: .insufficientlyInUse
        }
        return Delivery(verdict: .dropped, reason: reason, diagnostics: diagnostics)
    }
}

/// The diagnostic names an event carries, as the 2024 diagnostic properties (004): a set, written in
/// this declaration order.
public struct Diagnostics: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let authorizationDenied = Diagnostics(rawValue: 1 << 0)
    public static let authorizationDeniedGlobally = Diagnostics(rawValue: 1 << 1)
    public static let authorizationRestricted = Diagnostics(rawValue: 1 << 2)
    public static let authorizationRequestInProgress = Diagnostics(rawValue: 1 << 3)
    public static let insufficientlyInUse = Diagnostics(rawValue: 1 << 4)
    public static let accuracyLimited = Diagnostics(rawValue: 1 << 5)
    public static let alwaysAuthorizationDenied = Diagnostics(rawValue: 1 << 6)
    public static let serviceSessionRequired = Diagnostics(rawValue: 1 << 7)
    /// On an `unmonitored` event: too many conditions of its type are monitored (docs/profiles.md).
    public static let conditionLimitExceeded = Diagnostics(rawValue: 1 << 8)
    /// On an `unmonitored` event: the platform does not monitor this kind of condition.
    public static let conditionUnsupported = Diagnostics(rawValue: 1 << 9)

    /// The diagnostics that belong to the condition rather than to the delivery: an event keeps them
    /// whatever its verdict becomes.
    public static let condition: Diagnostics = [.conditionLimitExceeded, .conditionUnsupported]

    /// Every diagnostic with its name, in output order.
    public static let named: [(Diagnostics, String)] = [
        (.authorizationDenied, "authorizationDenied"),
        (.authorizationDeniedGlobally, "authorizationDeniedGlobally"),
        (.authorizationRestricted, "authorizationRestricted"),
        (.authorizationRequestInProgress, "authorizationRequestInProgress"),
        (.insufficientlyInUse, "insufficientlyInUse"),
        (.accuracyLimited, "accuracyLimited"),
        (.alwaysAuthorizationDenied, "alwaysAuthorizationDenied"),
        (.serviceSessionRequired, "serviceSessionRequired"),
        (.conditionLimitExceeded, "conditionLimitExceeded"),
        (.conditionUnsupported, "conditionUnsupported"),
    ]

    /// The names of the diagnostics present, in output order.
    public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }
}
