import Foundation
import Perimeter

/// A beacon condition as the beacon oracles (`BeaconOracleTests`, `BeaconChurnTests`) read SPEC §2:
/// UUID, optional major and minor, and the state it starts in.
struct BeaconSpec {
    var id = ""
    var uuid: UUID
    var major: UInt16?
    var minor: UInt16?
    var assuming: ConditionState

    func matches(_ b: BeaconIdentity) -> Bool {
        b.uuid == uuid && (major.map { $0 == b.major } ?? true) && (minor.map { $0 == b.minor } ?? true)
    }

    var condition: Condition {
        guard let major else { return .beacon(BeaconIdentityCondition(uuid: uuid)) }
        guard let minor else { return .beacon(BeaconIdentityCondition(uuid: uuid, major: major)) }
        return .beacon(BeaconIdentityCondition(uuid: uuid, major: major, minor: minor))
    }
}
