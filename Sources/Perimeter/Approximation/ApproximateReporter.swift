/// One device's approximate location as its app sees it (SPEC §5.3): the first valid fix's cell,
/// then recomputed at most once per `interval` of stream time, and changed only when the device is in
/// another cell then; between recomputations the app keeps seeing the last report.
///
/// It sees every valid fix of the device — the system knows where the device is, whatever the app
/// may have — so a report is the same whether or not the app has reduced accuracy at that moment.
///
/// ```swift
/// var reporter = ApproximateReporter()
/// let report = reporter.see(fix, in: .standard)   // nil for an invalid fix before any valid one
/// ```
public struct ApproximateReporter: Sendable, Hashable, Codable {
    /// How long a report stands before the next fix may recompute it (default 900 s: "about 4
    /// times per hour", 001).
    public var interval: TimeSpan
    /// The report the app sees, once a valid fix came.
    public private(set) var report: ApproximateReport?
    /// When the report was last computed.
    public private(set) var computedAt: Timestamp?

    public static let defaultInterval = TimeSpan(seconds: 900)

    public init(interval: TimeSpan = defaultInterval) {
        self.interval = interval
    }

    /// Takes a fix of the device and returns the report the app sees from then on (`nil` before the
    /// first valid fix). Fixes must come in time order.
    @discardableResult
    public mutating func see(_ fix: Fix, in location: ApproximateLocation) -> ApproximateReport? {
        guard fix.isValid else { return report }
        if let last = computedAt, fix.time < last.adding(interval) { return report }
        let fresh = location.report(for: fix.coordinate)
        if report.map({ !$0.isSameCell(as: fresh) }) ?? true { report = fresh }
        computedAt = fix.time
        return report
    }
}
