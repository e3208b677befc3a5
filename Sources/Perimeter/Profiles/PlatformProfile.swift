/// The platform whose rules the engine follows where platforms differ (SPEC §5.4, docs/profiles.md):
/// how many conditions of each type a device has monitored, which kinds are monitored at all, whether
/// a device dwelling inside a circle is reported, and whether the 2024 service-session model applies.
///
/// One value the engine reads field by field; it never asks which platform it is.
///
/// ```swift
/// var policy = MonitoringPolicy()
/// policy.profile = .ios17                                  // 20 geographic and 20 beacon conditions
/// policy.profile = PlatformProfile.android.withLoiteringDelay(60)
/// ```
public struct PlatformProfile: Sendable, Hashable {
    /// The platforms Perimeter knows.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        /// SPEC §3's iOS 13/14 rules, every condition monitored.
        case standard
        /// iOS 17: at most `conditionLimit` conditions of each type per device.
        case ios17
        /// iOS 18: as iOS 17, and the service-session model (004).
        case ios18
        /// Android's geofencing: circles only, at most `conditionLimit` of them, and dwelling.
        case android
    }

    /// The platform.
    public let name: Name
    /// At most how many geographic conditions, and how many beacon conditions, a device has
    /// monitored; `nil`: no limit.
    public private(set) var conditionLimit: Int?
    /// Whether polygons are monitored at all.
    public let monitorsPolygons: Bool
    /// Whether beacon conditions are monitored at all.
    public let monitorsBeacons: Bool
    /// Seconds inside a circle without a break after which a `dwelling` event comes; `nil`: never.
    public private(set) var loiteringDelay: Double?
    /// Whether `always` reaches the background only through a service session with goal always (004),
    /// with the implicit session, remembered sessions and the indicator's rules (docs/sessions.md).
    public let requiresServiceSessions: Bool
    /// Seconds after a relaunch within which the sessions held at termination must be taken again,
    /// and the indicator rejoined; `nil` without service sessions.
    public private(set) var relaunchWindow: Double?

    /// Every condition, no dwelling, no sessions.
    public static let standard = PlatformProfile(.standard)
    /// 20 geographic and 20 beacon conditions per device.
    public static let ios17 = PlatformProfile(.ios17)
    /// As `ios17`, with service sessions.
    public static let ios18 = PlatformProfile(.ios18)
    /// 100 circles per device, no polygons or beacons, dwelling after 30 s.
    public static let android = PlatformProfile(.android)

    /// The platform's profile with its default values.
    public init(_ name: Name) {
        self.name = name
        switch name {
        case .standard:
            conditionLimit = nil
            monitorsPolygons = true
            monitorsBeacons = true
            loiteringDelay = nil
            requiresServiceSessions = false
            relaunchWindow = nil
        case .ios17, .ios18:
            conditionLimit = 20
            monitorsPolygons = true
            monitorsBeacons = true
            loiteringDelay = nil
            requiresServiceSessions = name == .ios18
            relaunchWindow = name == .ios18 ? 10 : nil
        case .android:
            conditionLimit = 100
            monitorsPolygons = false
            monitorsBeacons = false
            loiteringDelay = 30
            requiresServiceSessions = false
            relaunchWindow = nil
        }
    }

    /// The profile of the platform named `name` (`standard`, `ios17`, `ios18`, `android`), if any.
    public init?(named name: String) {
        guard let name = Name(rawValue: name) else { return nil }
        self.init(name)
    }

    /// This profile with another limit per type.
    /// - Precondition: the profile has a limit (`conditionLimit != nil`).
    public func withConditionLimit(_ limit: Int) -> PlatformProfile {
        precondition(conditionLimit != nil, "the \(name.rawValue) profile has no condition limit")
        var profile = self
        profile.conditionLimit = limit
        return profile
    }

    /// This profile with another loitering delay, in seconds.
    /// - Precondition: the profile reports dwelling (`loiteringDelay != nil`).
    public func withLoiteringDelay(_ seconds: Double) -> PlatformProfile {
        precondition(loiteringDelay != nil, "the \(name.rawValue) profile reports no dwelling")
        var profile = self
        profile.loiteringDelay = seconds
        return profile
    }

    /// This profile with another relaunch window, in seconds.
    /// - Precondition: the profile has service sessions (`relaunchWindow != nil`).
    public func withRelaunchWindow(_ seconds: Double) -> PlatformProfile {
        precondition(relaunchWindow != nil, "the \(name.rawValue) profile has no service sessions")
        var profile = self
        profile.relaunchWindow = seconds
        return profile
    }

    /// Whether every condition is monitored: no limit and every kind.
    var monitorsEverything: Bool { conditionLimit == nil && monitorsPolygons && monitorsBeacons }

    /// Checks the values' ranges; returns a message naming the first bad one.
    func problem() -> String? {
        if let limit = conditionLimit, limit < 0 { return "condition limit must be ≥ 0, got \(limit)" }
        if let delay = loiteringDelay, !(delay >= 0 && delay.isFinite) {
            return "loitering delay must be a finite number of seconds ≥ 0, got \(delay)"
        }
        if let window = relaunchWindow, !(window >= 0 && window.isFinite) {
            return "relaunch window must be a finite number of seconds ≥ 0, got \(window)"
        }
        return nil
    }
}

// As a store keeps it: the name alone when the values are the platform's own (what stores written
// before limits existed hold), else the name with them.
extension PlatformProfile: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, conditionLimit, loiteringDelay, relaunchWindow
    }

    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(Name.self) {
            self.init(name)
            return
        }
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try values.decode(Name.self, forKey: .name))
        conditionLimit = try values.decodeIfPresent(Int.self, forKey: .conditionLimit)
        loiteringDelay = try values.decodeIfPresent(Double.self, forKey: .loiteringDelay)
        relaunchWindow = try values.decodeIfPresent(Double.self, forKey: .relaunchWindow)
    }

    public func encode(to encoder: any Encoder) throws {
        if self == PlatformProfile(name) {
            var container = encoder.singleValueContainer()
            try container.encode(name)
            return
        }
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(name, forKey: .name)
        try values.encodeIfPresent(conditionLimit, forKey: .conditionLimit)
        try values.encodeIfPresent(loiteringDelay, forKey: .loiteringDelay)
        try values.encodeIfPresent(relaunchWindow, forKey: .relaunchWindow)
    }
}
