/// A `CLServiceSession` started or ended by the app (the 2024 model).
public struct ServiceSessionRecord: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable, CaseIterable {
        case start
        case end
    }

    /// The authorization a session asks for.
    public enum Goal: String, Sendable, Hashable, CaseIterable, Codable {
        case none
        case whenInUse
        case always
    }

    public var time: Timestamp
    public var action: Action
    public var id: String
    /// Required to start; ignored when ending.
    public var goal: Goal
    /// A purpose key: the session also asks for (temporary) full accuracy.
    public var fullAccuracyPurpose: String?

    public init(time: Timestamp, action: Action, id: String, goal: Goal = .none, fullAccuracyPurpose: String? = nil) {
        self.time = time
        self.action = action
        self.id = id
        self.goal = goal
        self.fullAccuracyPurpose = fullAccuracyPurpose
    }
}

/// A session the app holds.
struct HeldSession: Codable {
    var id: String
    var goal: ServiceSessionRecord.Goal
    var wantsFullAccuracy: Bool
    /// 004: a session counts in the background only if it "was started in the foreground, or while
    /// another one was in effect".
    let isInEffect: Bool
    /// The purpose key it asks full accuracy for (nil in stores from before purposes were checked).
    var purpose: String?
    /// Held when the app was terminated and not taken again since the launch after (docs/sessions.md):
    /// lost once the relaunch window has passed. `nil`: no.
    var awaitsRetake: Bool?
}
