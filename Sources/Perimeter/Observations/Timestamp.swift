import Foundation

/// An instant, as integer nanoseconds since the Unix epoch (UTC).
///
/// Integer so that stream-time arithmetic (`lastSeen + beaconExitTimeout`) is exact: an exit due at
/// exactly a sighting's time must compare equal to it. Convert from and to Foundation's `Date` with
/// `init(_:)` and `date`; `print(timestamp)` shows it in RFC 3339 (`2026-03-01T08:00:05.25Z`).
///
/// ```swift
/// let now = Timestamp(Date())!
/// print(now)                      // 2026-03-01T08:00:05.123456Z
/// let later = now.adding(TimeSpan(seconds: 30))
/// ```
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

    /// The instant in RFC 3339, UTC, with the fraction it has and no more, exact to the nanosecond:
    /// `2026-03-01T08:00:05Z`, `2026-03-01T08:00:05.25Z`, `2026-03-01T08:00:05.000000001Z`.
    public var description: String {
        // (Floor division, so that an instant before 1970 has a fraction in 0..<1 s like any other.)
        let (seconds, fraction) = nanosecondsSinceEpoch.floorDividedBy(1_000_000_000)
        // The calendar date and time of the whole second from Foundation's Gregorian calendar, which
        // is exact here: whole seconds are exact in a `Date`, and 1677–2262 is all Gregorian.
        let c = Self.utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                                from: Date(timeIntervalSince1970: Double(seconds)))
        func digits(_ value: Int?, _ count: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(c.year, 4))-\(digits(c.month, 2))-\(digits(c.day, 2))T"
            + "\(digits(c.hour, 2)):\(digits(c.minute, 2)):\(digits(c.second, 2))" + Self.fractionText(fraction) + "Z"
    }

    /// The instant as decimal seconds since the Unix epoch, exact and with the fraction it has:
    /// `1772352005`, `1772352005.25`, `-0.5` — as a record that gives its time in Unix seconds
    /// writes it.
    public var unixSecondsText: String {
        let magnitude = nanosecondsSinceEpoch.magnitude
        return (nanosecondsSinceEpoch < 0 ? "-" : "") + String(magnitude / 1_000_000_000)
            + Self.fractionText(Int64(magnitude % 1_000_000_000))
    }

    /// A fraction of a second in nanoseconds as written after the seconds: `.25`, `.000000001`;
    /// nothing for none.
    private static func fractionText(_ nanoseconds: Int64) -> String {
        guard nanoseconds != 0 else { return "" }
        var nine = String(nanoseconds)
        nine = String(repeating: "0", count: 9 - nine.count) + nine
        while nine.last == "0" { nine.removeLast() }
        return "." + nine
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()
}

extension Timestamp {
    /// Seconds from the Unix epoch to Foundation's reference date, 2001-01-01T00:00:00Z.
    private static let referenceDateSeconds: Int64 = 978_307_200

    /// The instant `date` stands for, to the nearest nanosecond; `nil` when it lies outside what
    /// 64-bit nanoseconds hold (1677…2262), as `Date.distantPast` and `Date.distantFuture` do.
    ///
    /// Exact as far as `Date` is: its whole seconds and fraction are converted apart, so that the
    /// fraction is not rounded again on the way (a `Double` of Unix nanoseconds keeps only about a
    /// tenth of a microsecond).
    public init?(_ date: Date) {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 9.2e9 else { return nil }
        let whole = interval.rounded(.down)
        let nanoseconds = ((interval - whole) * 1e9).rounded()
        let (seconds, overflow) = (Int64(whole) + Self.referenceDateSeconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = seconds.addingReportingOverflow(Int64(nanoseconds))
        guard !overflow, !overflow2 else { return nil }
        self.init(nanosecondsSinceEpoch: total)
    }

    /// The instant as a Foundation `Date` (which keeps it to about a tenth of a microsecond today).
    public var date: Date {
        let (seconds, fraction) = nanosecondsSinceEpoch.floorDividedBy(1_000_000_000)
        return Date(timeIntervalSinceReferenceDate: Double(seconds - Self.referenceDateSeconds) + Double(fraction) / 1e9)
    }
}

extension Int64 {
    /// The quotient rounded down and the remainder, which then has the divisor's sign.
    fileprivate func floorDividedBy(_ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
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
