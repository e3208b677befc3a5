import Foundation
import PerimeterTestSupport
import Testing
@testable import Perimeter

extension BeaconOracleTests {
    /// SPEC §2, beacon, written as directly as it reads.
    struct Oracle {
        struct Device {
            var state: [ConditionState]
            var exitDue: [Double?]
            var last = 0.0
            var lastCause = 0
        }

        let specs: [Spec]
        let timeout: Double
        var devices: [String: Device] = [:]
        var order: [String] = []
        var events: [String] = []

        mutating func sighting(_ device: String, at t: Double, _ identity: BeaconIdentity, cause: Int) {
            if devices[device] == nil {
                // Conditions not assumed unsatisfied time out from the device's first record.
                devices[device] = Device(state: specs.map(\.assuming),
                                         exitDue: specs.map { $0.assuming == .unsatisfied ? nil : t + timeout })
                order.append(device)
            }
            fire(device, before: t, inclusive: false, cause: cause)
            var d = devices[device]!
            for (i, spec) in specs.enumerated() where spec.matches(identity) {
                d.exitDue[i] = t + timeout
                if d.state[i] != .satisfied {
                    d.state[i] = .satisfied
                    events.append("\(device) b\(i) satisfied \(t) \(identity) #\(cause)")
                }
            }
            d.last = t
            d.lastCause = cause
            devices[device] = d
        }

        /// Exits due before `limit` (or at it), earliest first, ties in condition order.
        mutating func fire(_ device: String, before limit: Double, inclusive: Bool, cause: Int) {
            var d = devices[device]!
            while let (i, due) = d.exitDue.enumerated().compactMap({ i, due in due.map { (i, $0) } })
                .filter({ inclusive ? $0.1 <= limit : $0.1 < limit }).min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
                d.exitDue[i] = nil
                if d.state[i] != .unsatisfied {
                    d.state[i] = .unsatisfied
                    events.append("\(device) b\(i) unsatisfied \(due) nil #\(cause)")
                }
            }
            devices[device] = d
        }

        mutating func finish() {
            for device in order {
                let d = devices[device]!
                fire(device, before: d.last, inclusive: true, cause: d.lastCause)
            }
        }
    }
}
