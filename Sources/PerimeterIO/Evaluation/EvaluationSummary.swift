import Perimeter

/// What a batch evaluation read and produced, for the summary on standard error.
public struct EvaluationSummary: Sendable, Hashable {
    public var recordsRead = 0
    /// Records refused (bad values, out of order); quarantined when the caller chose to go on.
    public var rejected = 0
    public var events = 0
    public var verdicts: [Delivery.Verdict: Int] = [:]
    public var reasons: [Delivery.Reason: Int] = [:]
    public var elapsedSeconds = 0.0
    /// Events still held at the end of the input (provisional always, prompt unanswered).
    public var heldAtEnd = 0
    /// What became of authorization requests.
    public var requests: [RequestOutcome: Int] = [:]

    public init() {}

    public var recordsPerSecond: Double { elapsedSeconds > 0 ? Double(recordsRead) / elapsedSeconds : 0 }

    mutating func count(_ event: MonitorEvent) {
        events += 1
        verdicts[event.delivery.verdict, default: 0] += 1
        if let reason = event.delivery.reason { reasons[reason, default: 0] += 1 }
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
