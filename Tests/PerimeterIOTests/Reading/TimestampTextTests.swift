import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// `Timestamp` as a user meets it: made from a Foundation `Date` and back, and printed readably.
@Suite struct TimestampTextTests {
    @Test(arguments: [
        (Int64(1_772_352_000_000_000_000), "2026-03-01T08:00:00Z"),
        (1_772_352_005_250_000_000, "2026-03-01T08:00:05.25Z"),
        (1_772_352_005_000_000_001, "2026-03-01T08:00:05.000000001Z"),
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59.999999999Z"),
        (-1_500_000_000, "1969-12-31T23:59:58.5Z"),
        (951_782_400_000_000_000, "2000-02-29T00:00:00Z"),
        (.max, "2262-04-11T23:47:16.854775807Z"),
        (.min, "1677-09-21T00:12:43.145224192Z"),
    ])
    func printsAsRFC3339WithTheFractionItHas(_ nanoseconds: Int64, _ text: String) {
        let t = Timestamp(nanosecondsSinceEpoch: nanoseconds)
        #expect(t.description == text)
        #expect("\(t)" == text)
    }

    /// The engine's description and the writers' RFC 3339 (the event lines' `date`) agree everywhere.
    @Test func printsAsTheEventLinesWriteIt() {
        var rng = SplitMix64(seed: 34)
        for k in 0..<20_000 {
            let ns: Int64 = switch k % 4 {
            case 0: Int64(bitPattern: rng.next())
            case 1: Int64.random(in: 0...4_000_000_000_000_000_000, using: &rng)
            case 2: Int64.random(in: 0...4_000_000_000, using: &rng) * 1_000_000_000
            default: Int64.random(in: -4_000_000_000...4_000_000_000, using: &rng) * 1_000_000 + Int64.random(in: 0..<1000, using: &rng) * 1000
            }
            let t = Timestamp(nanosecondsSinceEpoch: ns)
            guard t.description == RFC3339.format(t) else {
                Issue.record("\(ns): \(t.description) ≠ \(RFC3339.format(t))")
                return
            }
            #expect(RFC3339.parse(t.description) == t)
        }
    }

    @Test func comesFromADateAndGivesItBack() throws {
        let date = Date(timeIntervalSince1970: 1_772_352_005.25)
        let t = try #require(Timestamp(date))
        #expect(t == Timestamp(nanosecondsSinceEpoch: 1_772_352_005_250_000_000))
        #expect(t.date == date)
        #expect(Timestamp(Date(timeIntervalSince1970: 0)) == Timestamp(nanosecondsSinceEpoch: 0))
        #expect(Timestamp(Date(timeIntervalSince1970: -0.5)) == Timestamp(nanosecondsSinceEpoch: -500_000_000))
        // Beyond 64-bit nanoseconds (1677…2262): no timestamp.
        #expect(Timestamp(Date.distantFuture) == nil)
        #expect(Timestamp(Date.distantPast) == nil)
        #expect(Timestamp(Date(timeIntervalSince1970: .nan)) == nil)
    }

    /// A `Date` goes through a timestamp unchanged where a nanosecond is finer than the `Date` (more
    /// than 2²³ s, about three months, from 2001), and a timestamp through a `Date` comes back within
    /// the `Date`'s own precision.
    @Test func roundTripsAsFarAsADateHolds() throws {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<20_000 {
            let interval = Double.random(in: 0x1p23...2e9, using: &rng) * (rng.next() % 2 == 0 ? 1 : -1)
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let t = try #require(Timestamp(date))
            guard t.date == date else {
                Issue.record("\(date.timeIntervalSinceReferenceDate) came back as \(t.date.timeIntervalSinceReferenceDate)")
                return
            }
            let u = Timestamp(nanosecondsSinceEpoch: Int64.random(in: -4_000_000_000_000_000_000...4_000_000_000_000_000_000, using: &rng))
            let back = try #require(Timestamp(u.date))
            // (A `Date` of 2100 keeps about a quarter of a microsecond.)
            #expect(abs(back.nanosecondsSinceEpoch - u.nanosecondsSinceEpoch) <= 500)
        }
    }
}
