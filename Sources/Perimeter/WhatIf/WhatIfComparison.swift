/// One recording under several policies (SPEC §5.7, `perimeter compare`): per policy, the events
/// delivered, held and dropped by reason, and the conditions whose delivered events differ.
///
/// Geometry does not depend on authorization: the policies that share it
/// (`MonitoringPolicy.hasSameGeometry(as:conditionCount:)`) get one `MonitoringEngine` pass, whose
/// events the first of them takes as they are and the others replay (`DeliveryReplay`).
///
/// ```swift
/// var later = MonitoringPolicy()
/// later.initialAuthorization = .notDetermined
/// let comparison = try WhatIfComparison(conditions: conditions, records: records,
///                                       variants: [.init(name: "today", policy: MonitoringPolicy()),
///                                                  .init(name: "fresh install", policy: later)])
/// print(comparison.outcomes[1].delivered, comparison.differences.count)
/// ```
public struct WhatIfComparison: Sendable {
    /// A policy to try, with the name it is reported under.
    public struct Variant: Sendable {
        public var name: String
        public var policy: MonitoringPolicy
        public init(name: String, policy: MonitoringPolicy) {
            self.name = name
            self.policy = policy
        }
    }

    /// One record of the recording.
    public struct Recorded: Sendable {
        public var device: String
        public var observation: Observation
        /// Its line (or index): what its events' `cause` says.
        public var cause: Int
        public init(device: String, observation: Observation, cause: Int) {
            self.device = device
            self.observation = observation
            self.cause = cause
        }
    }

    /// What a variant's app would have got.
    public struct Outcome: Sendable, Hashable {
        /// Changes of state (an event's held and final lines count once).
        public var events = 0
        /// Delivered at once, or held and delivered later.
        public var delivered = 0
        /// Still held at the end of the recording.
        public var held = 0
        /// Dropped, at once or after being held, by reason.
        public var dropped: [Delivery.Reason: Int] = [:]
        /// Authorization records this policy refuses (an answer no prompt offers here).
        public var refused = 0
        public var requestOutcomes: [RequestOutcome: Int] = [:]

        public var droppedCount: Int { dropped.values.reduce(0, +) }
    }

    /// A condition whose delivered events are not the same under every variant.
    public struct Difference: Sendable, Hashable {
        public var identifier: String
        /// How many events of it each variant delivered, in the variants' order.
        public var delivered: [Int]
    }

    public let variants: [Variant]
    /// In the variants' order.
    public private(set) var outcomes: [Outcome] = []
    /// In the order the conditions were added.
    public private(set) var differences: [Difference] = []
    /// How many geometry passes the variants needed.
    public private(set) var geometryPasses = 0

    /// A record that is bad whatever the policy (a value out of range, time going back): the
    /// comparison stops there.
    public struct BadRecord: Error, Sendable {
        public var cause: Int
        public var problem: ObservationProblem
    }

    /// Evaluates `records` against `conditions` under every variant.
    /// - Parameters:
    ///   - conditions: each with the devices that watch it (`ConditionAudience`).
    ///   - groups: each group's devices (`MonitoringEngine.setGroups(_:)`).
    ///   - records: the recording, each record with its device and cause.
    ///   - variants: the policies to compare.
    ///   - threads: the geometry pass's batch threads.
    public init(conditions: [(condition: Condition, identifier: String, assuming: ConditionState?, audience: ConditionAudience)],
                groups: [String: [String]] = [:], records: [Recorded], variants: [Variant], threads: Int = 1) throws {
        self.variants = variants
        outcomes = Array(repeating: Outcome(), count: variants.count)
        var digests = [[String: DeliveredDigest]](repeating: [:], count: variants.count)
        var done = [Bool](repeating: false, count: variants.count)
        for first in variants.indices where !done[first] {
            let group = variants.indices.filter {
                !done[$0] && variants[$0].policy.hasSameGeometry(as: variants[first].policy, conditionCount: conditions.count)
            }
            for v in group { done[v] = true }
            let pass = try GeometryPass(conditions: conditions, groups: groups, records: records, policy: variants[first].policy,
                                        threads: threads)
            geometryPasses += 1
            for v in group {
                let events: [MonitorEvent], refused: Int, requests: [RequestOutcome: Int]
                if v == first {
                    (events, refused, requests) = (pass.events, pass.refused, pass.engine.requestOutcomes)
                } else {
                    (events, refused, requests) = pass.replay(records, policy: variants[v].policy)
                }
                (outcomes[v], digests[v]) = Self.tally(events)
                outcomes[v].refused = refused
                outcomes[v].requestOutcomes = requests
            }
        }
        let identifiers = conditions.map(\.identifier)
        for identifier in identifiers {
            let each = digests.map { $0[identifier] ?? DeliveredDigest() }
            if each.contains(where: { $0 != each[0] }) {
                differences.append(Difference(identifier: identifier, delivered: each.map(\.count)))
            }
        }
    }

    /// The final outcome of each event, and a digest of each condition's delivered events.
    static func tally(_ events: [MonitorEvent]) -> (Outcome, [String: DeliveredDigest]) {
        var outcome = Outcome()
        var digests: [String: DeliveredDigest] = [:]
        var held: [HeldKey: MonitorEvent] = [:]
        func settle(_ event: MonitorEvent, as delivery: Delivery) {
            switch delivery.verdict {
            case .delivered:
                outcome.delivered += 1
                digests[event.identifier, default: DeliveredDigest()].add(event)
            case .dropped: outcome.dropped[delivery.reason ?? .notDetermined, default: 0] += 1
            case .held: break
            }
        }
        for event in events {
            let key = HeldKey(device: event.device, holding: event.holding)
            if event.isFinalVerdict {
                guard let first = held.removeValue(forKey: key) else { continue }
                settle(first, as: event.delivery)
                continue
            }
            outcome.events += 1
            if event.delivery.verdict == .held { held[key] = event } else { settle(event, as: event.delivery) }
        }
        outcome.held = held.count
        return (outcome, digests)
    }

    struct HeldKey: Hashable {
        var device: String
        var holding: UInt32
    }
}

/// A condition's delivered events as a count and two order-free sums of fixed (unseeded) hashes of
/// each event's device, state, date and refinement: equal for the same events in any order.
struct DeliveredDigest: Sendable, Hashable {
    var count = 0
    var sum: UInt64 = 0
    var mixed: UInt64 = 0

    mutating func add(_ event: MonitorEvent) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ v: UInt64) { h = (h ^ v) &* 0x0000_0100_0000_01b3 }
        for byte in event.device.utf8 { mix(UInt64(byte)) }
        mix(UInt64(bitPattern: event.date.nanosecondsSinceEpoch))
        mix(UInt64(ConditionState.allCases.firstIndex(of: event.state) ?? 0))
        if let r = event.refinement {
            for byte in r.uuid.uuidString.utf8 { mix(UInt64(byte)) }
            mix(UInt64(r.major) << 16 | UInt64(r.minor))
        }
        count += 1
        sum &+= h
        var z = h &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        mixed &+= z ^ (z >> 31)
    }
}
