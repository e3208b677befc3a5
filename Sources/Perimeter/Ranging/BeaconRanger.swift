import Foundation

/// One device's ranging (SPEC §5.2, docs/ranging.md): per constraint, the sightings of the last
/// `rangingWindow` seconds, and the whole seconds for which a result is still to come.
/// `BeaconRanging` matches sightings to constraints and adds what the app may have.
///
/// A window keeps a tally per concrete beacon (samples, sum of non-zero RSSIs, latest sighting),
/// kept up as sightings come into the window and leave it, so a result costs its beacons, not its
/// samples; the sums are of integers, so the mean is the same as summing the window afresh.
public struct BeaconRanger: Sendable, Codable {
    /// Windows of constraints with sightings still in them (a device ranges a few at a time: a list
    /// searched in place costs less than a dictionary, whose values would be copied to be changed).
    private var windows: [Window] = []

    public init() {}

    /// The constraints with sightings in their windows.
    var constraints: [Int32] { windows.map(\.constraint) }

    /// Whether any constraint still has sightings in its window.
    public var isIdle: Bool { windows.isEmpty }

    struct Sample: Codable {
        var time: Int64
        var identity: BeaconIdentity
        var rssi: Int32
        var power: Int32
        var cause: Int
    }

    private struct Tally: Codable {
        var identity: BeaconIdentity
        var samples: Int32
        var nonZero: Int32
        var rssiSum: Int
        var latestTime: Int64
        var latestPower: Int32
    }

    /// A result before its verdict.
    struct Due {
        var second: Int64
        var constraint: Int32
        var beacons: [RangingResult.Beacon]
        var cause: Int
    }

    private struct Window: Codable {
        var constraint: Int32
        var samples: [Sample] = []
        /// Samples `head..<tail` are in the window of the last second looked at.
        var head = 0, tail = 0
        var tallies: [Tally] = []
        /// The next second to look at.
        var next = Int64.min
    }

    /// Adds a sighting that matched `constraints`, after the results due before it were taken.
    mutating func add(_ sighting: BeaconSighting, cause: Int, constraints: ArraySlice<Int32>) {
        let sample = Sample(time: sighting.time.nanosecondsSinceEpoch, identity: sighting.identity, rssi: Int32(sighting.rssi),
                            power: Int32(sighting.measuredPower), cause: cause)
        for c in constraints {
            if let i = windows.firstIndex(where: { $0.constraint == c }) {
                windows[i].samples.append(sample)
            } else {
                windows.append(Window(constraint: c, samples: [sample]))
            }
        }
    }

    /// Appends the results due at the whole seconds before `bound` (at or before it when `inclusive`:
    /// the end of the input), and forgets what no later second needs.
    mutating func advance(to bound: Int64, inclusive: Bool, policy: RangingPolicy, into due: inout [Due]) {
        guard !windows.isEmpty else { return }
        let span = TimeSpan(seconds: policy.rangingWindow).nanoseconds
        var i = 0
        while i < windows.count {
            if Self.advance(&windows[i], to: bound, inclusive: inclusive, span: span, exponent: policy.pathLossExponent, into: &due) {
                windows.remove(at: i)
            } else {
                i += 1
            }
        }
    }

    private static let second: Int64 = 1_000_000_000

    /// Returns whether the window has emptied for good.
    private static func advance(_ w: inout Window, to bound: Int64, inclusive: Bool, span: Int64,
                                exponent: Double, into due: inout [Due]) -> Bool {
        while true {
            var s = w.next
            if w.head == w.tail {
                if w.tail == w.samples.count { return true }
                s = max(s, ceilingSecond(w.samples[w.tail].time))
            }
            let at = s * second
            if inclusive ? at > bound : at >= bound { break }
            while w.tail < w.samples.count && w.samples[w.tail].time <= at {
                include(w.samples[w.tail], in: &w.tallies)
                w.tail += 1
            }
            while w.head < w.tail && w.samples[w.head].time <= at &- span {
                evict(w.samples[w.head], from: &w.tallies)
                w.head += 1
            }
            w.next = s + 1
            if w.head == w.tail { continue }
            due.append(Due(second: s, constraint: w.constraint, beacons: beacons(w.tallies, at: at, exponent: exponent),
                           cause: w.samples[w.tail - 1].cause))
        }
        if w.head > 32 && w.head * 2 > w.samples.count {
            w.samples.removeFirst(w.head)
            w.tail -= w.head
            w.head = 0
        }
        return false
    }

    private static func ceilingSecond(_ t: Int64) -> Int64 {
        let (q, r) = t.quotientAndRemainder(dividingBy: second)
        return r > 0 ? q + 1 : q
    }

    private static func include(_ s: Sample, in tallies: inout [Tally]) {
        if let i = tallies.firstIndex(where: { $0.identity == s.identity }) {
            tallies[i].samples += 1
            if s.rssi != 0 {
                tallies[i].nonZero += 1
                tallies[i].rssiSum += Int(s.rssi)
            }
            tallies[i].latestTime = s.time
            tallies[i].latestPower = s.power
        } else {
            tallies.append(Tally(identity: s.identity, samples: 1, nonZero: s.rssi != 0 ? 1 : 0, rssiSum: Int(s.rssi),
                                 latestTime: s.time, latestPower: s.power))
        }
    }

    private static func evict(_ s: Sample, from tallies: inout [Tally]) {
        guard let i = tallies.firstIndex(where: { $0.identity == s.identity }) else { return }
        tallies[i].samples -= 1
        if tallies[i].samples == 0 {
            tallies.remove(at: i)
        } else if s.rssi != 0 {
            tallies[i].nonZero -= 1
            tallies[i].rssiSum -= Int(s.rssi)
        }
    }

    private static func beacons(_ tallies: [Tally], at: Int64, exponent: Double) -> [RangingResult.Beacon] {
        var beacons = tallies.map { t -> RangingResult.Beacon in
            let rssi = t.nonZero > 0 ? Double(t.rssiSum) / Double(t.nonZero) : 0
            let distance = rssi == 0 ? -1 : pow(10, (Double(t.latestPower) - rssi) / (10 * exponent))
            let proximity: RangingResult.Proximity =
                rssi == 0 || t.latestTime <= at &- 2 * second ? .unknown
                : distance < 0.5 ? .immediate : distance < 4 ? .near : .far
            return RangingResult.Beacon(identity: t.identity, rssi: rssi, distance: distance, proximity: proximity)
        }
        beacons.sort(by: nearerFirst)
        return beacons
    }

    /// Known proximity by distance, then unknown; ties by UUID, major, minor.
    static func nearerFirst(_ a: RangingResult.Beacon, _ b: RangingResult.Beacon) -> Bool {
        let aUnknown = a.proximity == .unknown, bUnknown = b.proximity == .unknown
        if aUnknown != bUnknown { return bUnknown }
        if !aUnknown && a.distance != b.distance { return a.distance < b.distance }
        return identityPrecedes(a.identity, b.identity)
    }

    static func identityPrecedes(_ a: BeaconIdentity, _ b: BeaconIdentity) -> Bool {
        let order = withUnsafeBytes(of: a.uuid.uuid) { x in
            withUnsafeBytes(of: b.uuid.uuid) { y in
                x.lexicographicallyPrecedes(y) ? -1 : y.lexicographicallyPrecedes(x) ? 1 : 0
            }
        }
        if order != 0 { return order < 0 }
        return (a.major, a.minor) < (b.major, b.minor)
    }
}
