import Perimeter

/// What the report's page draws, as the JSON embedded in it: the conditions as map paths, each shown
/// device's track, events, use of the app and authorization, and the run's summary.
///
/// Times are seconds since 1970 (the page only places and labels them); coordinates are page units,
/// `ReportMap`'s map units in the report's `frame`.
public struct ReportData: Sendable, Encodable {
    public var title: String
    public var conditions: [ConditionShape] = []
    /// Conditions not drawn because the map keeps to the shown devices' surroundings.
    public var conditionsNotDrawn = 0
    public var devices: [Device] = []
    public var summary = Summary()
    /// The grace period after leaving the foreground, drawn on the use timeline.
    public var gracePeriod: Double
    /// How map units became the page's coordinates (`ReportMap.Frame`).
    public var frame = ReportMap.Frame()

    public init(title: String, gracePeriod: Double) {
        self.title = title
        self.gracePeriod = gracePeriod
    }

    public struct ConditionShape: Sendable, Encodable {
        public var id: String
        /// `circle`, `polygon` or `beacon`.
        public var kind: String
        /// The SVG path; `nil` for a beacon condition.
        public var path: String?
    }

    public struct Device: Sendable, Encodable {
        public var name: String
        /// The track for drawing, simplified: x, y, time, one triple after another.
        public var track: [Double] = []
        /// Fixes read and fixes kept in `track`.
        public var fixes = 0
        public var first: Double?
        public var last: Double?
        public var events: [Event] = []
        /// The app's states as its `app` records give them: time and state.
        public var use: [UseChange] = []
        public var authorization: [AuthorizationState] = []
    }

    public struct Event: Sendable, Encodable {
        public var condition: String
        public var state: String
        public var t: Double
        /// The first verdict: `delivered`, `held` or `dropped`.
        public var delivery: String
        public var reason: String?
        /// For a held event, how it ended (`delivered` or `dropped`) and when; `nil` while still held.
        public var outcome: String?
        public var outcomeReason: String?
        public var outcomeAt: Double?
        public var line: Int
        /// Where the device was when it happened: its last fix at or before the event's record.
        public var x: Double?
        public var y: Double?
    }

    public struct UseChange: Sendable, Encodable {
        public var t: Double
        public var state: String
    }

    public struct AuthorizationState: Sendable, Encodable {
        public var t: Double
        public var status: String
        public var temporary: Bool
        public var provisional: Bool
        public var accuracy: String
        public var temporaryFullAccuracy: Bool
        public var locationServices: Bool
        public var inUse: Bool
    }

    public struct Summary: Sendable, Encodable {
        public var records = 0
        public var rejected = 0
        public var devices = 0
        public var eventLines = 0
        public var verdicts: [String: Int] = [:]
        public var reasons: [String: Int] = [:]
        public var stillHeld = 0
        /// The first rejected records, each "file:line: field: reason".
        public var rejectedExamples: [String] = []
    }
}
