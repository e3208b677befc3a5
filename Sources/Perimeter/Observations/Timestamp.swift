/// An instant, as integer nanoseconds since the Unix epoch (UTC).
///
/// Integer so that stream-time arithmetic (`lastSeen + beaconExitTimeout`) is exact: an exit due at
/// exactly a sighting's time must compare equal to it.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// Rounds to the nearest nanosecond; `nil` when outside what 64-bit nanoseconds hold (1677…2262).
    public init?(secondsSinceEpoch seconds: Double) {
        let ns = (seconds * 1e9).rounded()
        guard ns.isFinite, ns > -9.2e18, ns < 9.2e18 else { return nil }
        nanosecondsSinceEpoch = Int64(ns)
    }

    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1e9 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch
    }

    /// This instant moved by a span, saturating at the representable range.
    public func adding(_ span: TimeSpan) -> Timestamp {
        let (sum, overflow) = nanosecondsSinceEpoch.addingReportingOverflow(span.nanoseconds)
        if overflow { return span.nanoseconds > 0 ? .distantFuture : .distantPast }
        return Timestamp(nanosecondsSinceEpoch: sum)
    }

    /// Nanoseconds from `earlier` to this instant.
    public func span(since earlier: Timestamp) -> TimeSpan {
        TimeSpan(nanoseconds: nanosecondsSinceEpoch &- earlier.nanosecondsSinceEpoch)
    }

    public static let distantPast = Timestamp(nanosecondsSinceEpoch: .min)
    public static let distantFuture = Timestamp(nanosecondsSinceEpoch: .max)

    public var description: String { "\(secondsSinceEpoch)s" }
}

/// A length of stream time in integer nanoseconds.
public struct TimeSpan: Sendable, Hashable, Comparable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Rounds to the nearest nanosecond. A span beyond 64-bit nanoseconds (about 292 years, up to
    /// +infinity) becomes the largest one — never, in practice, as instants saturate at
    /// `Timestamp.distantFuture`; negative values and NaN become zero.
    public init(seconds: Double) {
        let ns = (seconds * 1e9).rounded()
        if ns >= Double(Int64.max) {  // (2^63: the largest Int64 is not a Double)
            nanoseconds = .max
        } else {
            nanoseconds = ns > 0 ? Int64(ns) : 0
        }
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: TimeSpan, b: TimeSpan) -> Bool { a.nanoseconds < b.nanoseconds }
}
