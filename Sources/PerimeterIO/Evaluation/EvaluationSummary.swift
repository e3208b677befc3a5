import Perimeter

/// What a batch evaluation read and produced, for the summary on standard error.
public struct EvaluationSummary: Sendable, Hashable, Codable {
    /// Records read, bad ones included.
    public var recordsRead = 0
    /// Records refused (bad values, out of order); quarantined when the caller chose to go on.
    public var rejected = 0
    /// Events written, final lines of held events included.
    public var events = 0
    /// Event lines by verdict.
    public var verdicts: [Delivery.Verdict: Int] = [:]
    /// Event lines by reason (those not delivered).
    public var reasons: [Delivery.Reason: Int] = [:]
    /// Wall-clock seconds the run took.
    public var elapsedSeconds = 0.0
    /// Events still held at the end of the input (provisional always, prompt unanswered).
    public var heldAtEnd = 0
    /// What became of authorization requests.
    public var requests: [RequestOutcome: Int] = [:]
    /// The most events held at once before they were written (what the events' memory follows).
    public var largestWrite = 0

    public init() {}

    public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(recordsRead) / elapsedSeconds : 0 }

    /// Adds events counted apart.
    mutating func add(_ counts: EventCounts) {
        events += counts.events
        for (k, verdict) in EventCounts.verdicts.enumerated() where counts.byVerdict[k] > 0 {
            verdicts[verdict, default: 0] += counts.byVerdict[k]
        }
        for (k, reason) in EventCounts.reasons.enumerated() where counts.byReason[k] > 0 {
            reasons[reason, default: 0] += counts.byReason[k]
        }
    }

    /// One line for people, e.g.
    /// `197 records read, 0 rejected, 105 events (105 delivered, 0 held, 0 dropped) in 0.01 s, 19700 records/s`,
    /// then lines of counts by reason when any event was held or dropped, of events still held, and of
    /// request outcomes. A held event later resolved counts once as held and once with its final verdict.
    public var report: String {
        let verdictCounts = Delivery.Verdict.allCases.map { "\(verdicts[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ")
        var text = "\(recordsRead) records read, \(rejected) rejected, \(events) events (\(verdictCounts))"
            + " in \(format(elapsedSeconds, digits: 2)) s, \(Int(recordsPerSecond.rounded())) records/s"
        let reasonCounts = Delivery.Reason.allCases.compactMap { reason in
            reasons[reason].map { "\(reason.rawValue) \($0)" }
        }
        if !reasonCounts.isEmpty { text += "\nby reason: " + reasonCounts.joined(separator: ", ") }
        if heldAtEnd > 0 { text += "\nstill held at the end: \(heldAtEnd)" }
        if !requests.isEmpty {
            text += "\nrequests: " + RequestOutcome.allCases.map { "\(requests[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ")
        }
        return text
    }

    private func format(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale), fraction = scaled % Int(scale)
        let fractionText = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }
}

/// Events counted by verdict and reason in arrays, for `EvaluationSummary.add(_:)`: a batch's events
/// are counted apart (on several threads), without a dictionary update per event.
struct EventCounts {
    static let verdicts = Delivery.Verdict.allCases
    static let reasons = Delivery.Reason.allCases

    private(set) var events = 0
    private(set) var byVerdict = [Int](repeating: 0, count: verdicts.count)
    private(set) var byReason = [Int](repeating: 0, count: reasons.count)

    /// Back to zero, keeping the arrays (no allocation per batch).
    mutating func removeAll() {
        events = 0
        for k in byVerdict.indices { byVerdict[k] = 0 }
        for k in byReason.indices { byReason[k] = 0 }
    }

    mutating func count(_ event: MonitorEvent) {
        events += 1
        if let k = Self.verdicts.firstIndex(of: event.delivery.verdict) { byVerdict[k] += 1 }
        if let reason = event.delivery.reason, let k = Self.reasons.firstIndex(of: reason) { byReason[k] += 1 }
    }
}
