import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

extension BeaconChurnTests {
    /// SPEC §2, beacon, as directly as it reads: every pair of every device held explicitly, every exit
    /// found by scanning them all. A condition's addition is at the latest record time the engine has
    /// seen (our rule, as the engine's); pairs not starting unsatisfied are due to exit `timeout` after
    /// the device's first record or the addition, whichever is later.
    struct Oracle {
        struct Pair {
            var state: ConditionState
            var due: Int64?
        }

        var conditions: [Spec] = []
        var removed: [Bool] = []
        var addedAt: [Int64?] = []
        var pairs: [[Pair]]  // [device][condition]
        var first: [Int64?]
        var last: [Int64]
        var lastCause: [Int]
        var latest: Int64?
        var events: [String] = []

        init(devices: Int) {
            pairs = Array(repeating: [], count: devices)
            first = Array(repeating: nil, count: devices)
            last = Array(repeating: 0, count: devices)
            lastCause = Array(repeating: 0, count: devices)
        }

        mutating func add(_ spec: Spec) {
            conditions.append(spec)
            removed.append(false)
            addedAt.append(latest)
            for d in pairs.indices {
                // (A device that has started has a first record no later than the latest.)
                let due = spec.assuming == .unsatisfied || first[d] == nil ? nil : latest! + BeaconChurnTests.timeout
                pairs[d].append(Pair(state: spec.assuming, due: due))
            }
        }

        mutating func remove(_ id: String) {
            let k = conditions.indices.last { conditions[$0].id == id && !removed[$0] }!
            removed[k] = true
        }

        mutating func fire(_ d: Int, before limit: Int64, inclusive: Bool, cause: Int) {
            while let k = pairs[d].indices.filter({ k in
                !removed[k] && pairs[d][k].due.map { inclusive ? $0 <= limit : $0 < limit } == true
            }).min(by: { (pairs[d][$0].due!, $0) < (pairs[d][$1].due!, $1) }) {
                let due = pairs[d][k].due!
                pairs[d][k].due = nil
                if pairs[d][k].state != .unsatisfied {
                    pairs[d][k].state = .unsatisfied
                    events.append("d\(d) \(conditions[k].id) unsatisfied \(due) nil #\(cause)")
                }
            }
        }

        mutating func apply(_ r: Record, cause: Int) {
            let d = r.device, t = r.t
            if first[d] == nil {
                first[d] = t
                // Pairs of conditions added before this device's first record count from it.
                for k in pairs[d].indices where conditions[k].assuming != .unsatisfied {
                    pairs[d][k].due = max(t, addedAt[k] ?? t) + BeaconChurnTests.timeout
                }
            }
            fire(d, before: t, inclusive: false, cause: cause)
            if case .sighting(_, _, let identity) = r {
                for k in conditions.indices where !removed[k] && conditions[k].matches(identity) {
                    pairs[d][k].due = t + BeaconChurnTests.timeout
                    if pairs[d][k].state != .satisfied {
                        pairs[d][k].state = .satisfied
                        events.append("d\(d) \(conditions[k].id) satisfied \(t) \(identity) #\(cause)")
                    }
                }
            }
            last[d] = t
            lastCause[d] = cause
            latest = max(latest ?? t, t)
        }

        /// At the end of the input, devices in the order they were named.
        mutating func finish() {
            for d in pairs.indices where first[d] != nil { fire(d, before: last[d], inclusive: true, cause: lastCause[d]) }
        }
    }
}
