import Perimeter

/// Turns a record's fields into an observation, per SPEC §1; shared by the JSON Lines and CSV readers.
enum ObservationDecoding {
    static let commonFields: Set<String> = ["type", "device", "t"]
    static let fixFields: Set<String> = commonFields.union(["lat", "lon", "accuracy", "speed", "course", "altitude"])
    static let sightingFields: Set<String> = commonFields.union(["uuid", "major", "minor", "rssi", "power"])
    /// Every field any record type has: the columns a CSV header may name.
    static let allFields: Set<String> = fixFields.union(sightingFields)

    static func decode(_ fields: RecordFields) throws(ObservationProblem) -> (device: String, observation: Observation) {
        let type = try fields.string("type")
        let device = try fields.string("device")
        guard !device.isEmpty else { throw ObservationProblem(field: "device", message: "must not be empty") }
        let time = try fields.time("t")
        switch type {
        case "fix":
            try fields.requireOnly(fixFields, type: type)
            let lat = try fields.double("lat")
            let lon = try fields.double("lon")
            let accuracy = try fields.double("accuracy")
            let fix = Fix(time: time, coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy,
                          speed: try fields.optionalDouble("speed"), course: try fields.optionalDouble("course"),
                          altitude: try fields.optionalDouble("altitude"))
            return (device, .fix(fix))
        case "sighting":
            try fields.requireOnly(sightingFields, type: type)
            let identity = BeaconIdentity(uuid: try fields.uuid("uuid"),
                                          major: UInt16(try fields.integer("major", in: 0...65535)),
                                          minor: UInt16(try fields.integer("minor", in: 0...65535)))
            let rssi = try fields.integer("rssi", in: -200...0)
            let power = try fields.optionalInteger("power", in: -200...50) ?? BeaconSighting.defaultMeasuredPower
            return (device, .sighting(BeaconSighting(time: time, identity: identity, rssi: rssi, measuredPower: power)))
        default:
            throw ObservationProblem(field: "type", message: "unknown record type \"\(type)\" (expected fix or sighting)")
        }
    }
}
