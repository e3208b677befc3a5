import Foundation
import Perimeter

extension FeatureReader {
    /// A beacon condition's `properties.beacon`: a UUID, and a major and minor unless wildcards.
    func readBeacon(_ value: JSONValue, line: Int) throws(LocatedProblem) -> BeaconIdentityCondition {
        guard case .object(let beacon) = value else {
            throw LocatedProblem(line: line, field: "properties.beacon", message: "expected an object with uuid, major, minor")
        }
        guard case .string(let text)? = beacon["uuid"], let uuid = UUID(uuidString: text) else {
            throw LocatedProblem(line: beacon.line(of: "uuid"), field: "properties.beacon.uuid",
                                 message: "expected a UUID such as \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\"")
        }
        func part(_ key: String) throws(LocatedProblem) -> UInt16? {
            guard let value = beacon[key] else { return nil }
            guard case .number(_, let number) = value, number == number.rounded(), (0...65535).contains(number) else {
                throw LocatedProblem(line: beacon.line(of: key), field: "properties.beacon.\(key)",
                                     message: "expected an integer 0…65535 (leave it out for a wildcard)")
            }
            return UInt16(number)
        }
        let major = try part("major")
        let minor = try part("minor")
        switch (major, minor) {
        case (nil, nil): return BeaconIdentityCondition(uuid: uuid)
        case (let major?, nil): return BeaconIdentityCondition(uuid: uuid, major: major)
        case (let major?, let minor?): return BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
        case (nil, _?):
            throw LocatedProblem(line: beacon.line(of: "minor"), field: "properties.beacon.minor",
                                 message: "minor without major: a wildcard major needs a wildcard minor")
        }
    }
}
