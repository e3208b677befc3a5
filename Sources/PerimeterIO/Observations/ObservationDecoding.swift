import Perimeter

/// Turns a record's fields into an observation, per SPEC §1; shared by the JSON Lines and CSV readers.
enum ObservationDecoding {
    static let commonFields: Set<String> = ["type", "device", "t"]
    static let fixFields: Set<String> = commonFields.union(["lat", "lon", "accuracy", "speed", "course", "altitude"])
    static let sightingFields: Set<String> = commonFields.union(["uuid", "major", "minor", "rssi", "power"])
    static let appFields: Set<String> = commonFields.union(["state"])
    static let requestFields: Set<String> = commonFields.union(["what", "purpose"])
    static let answerFields: Set<String> = commonFields.union(["choice", "precise"])
    static let settingsFields: Set<String> = commonFields.union(["status", "precise", "locationServices"])
    static let sessionFields: Set<String> = commonFields.union(["action", "id", "goal", "fullAccuracyPurpose"])
    static let configFields: Set<String> = commonFields.union(["live"])
    static let appConfigFields: Set<String> = commonFields.union(["explicitSessionsRequired", "backgroundLocation",
                                                                  "reducedAccuracyByDefault", "fullAccuracyPurposes"])
    /// Every field any record type has: the columns a CSV header may name.
    static let allFields: Set<String> = fixFields.union(sightingFields).union(appFields).union(requestFields)
        .union(answerFields).union(settingsFields).union(sessionFields).union(configFields).union(appConfigFields)

    /// A field whose value is one of an enumeration's raw values.
    static func choice<E: RawRepresentable & CaseIterable>(_ fields: RecordFields, _ name: String, as: E.Type) throws(ObservationProblem) -> E
    where E.RawValue == String {
        let text = try fields.string(name)
        guard let value = E(rawValue: text) else {
            throw ObservationProblem(field: name, message: "expected one of \(E.allCases.map { $0.rawValue }.joined(separator: ", ")), got \(InputText.quoted(text))")
        }
        return value
    }

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
        case "app":
            try fields.requireOnly(appFields, type: type)
            return (device, .app(AppStateChange(time: time, state: try choice(fields, "state", as: AppState.self))))
        case "request":
            try fields.requireOnly(requestFields, type: type)
            let kind = try choice(fields, "what", as: AuthorizationRequest.Kind.self)
            let purpose = fields.value("purpose") == nil ? nil : try fields.string("purpose")
            if purpose != nil && kind != .temporaryFullAccuracy {
                throw ObservationProblem(field: "purpose", message: "only a temporaryFullAccuracy request has a purpose")
            }
            return (device, .request(AuthorizationRequest(time: time, kind: kind, purpose: purpose)))
        case "answer":
            try fields.requireOnly(answerFields, type: type)
            return (device, .answer(PromptAnswer(time: time, choice: try choice(fields, "choice", as: PromptAnswer.Choice.self),
                                                 precise: try fields.optionalBool("precise"))))
        case "settings":
            try fields.requireOnly(settingsFields, type: type)
            let status = fields.value("status") == nil ? nil : try choice(fields, "status", as: SettingsChange.Status.self)
            let change = SettingsChange(time: time, status: status, precise: try fields.optionalBool("precise"),
                                        locationServices: try fields.optionalBool("locationServices"))
            if change.status == nil && change.precise == nil && change.locationServices == nil {
                throw ObservationProblem(field: "status", message: "a settings record changes at least one of status, precise, locationServices")
            }
            return (device, .settings(change))
        case "session":
            try fields.requireOnly(sessionFields, type: type)
            let action = try choice(fields, "action", as: ServiceSessionRecord.Action.self)
            let id = try fields.string("id")
            // A session starts with a goal; one that ends has none, but a goal written on it is
            // checked, so that a misspelt one is not passed over in silence.
            var goal = ServiceSessionRecord.Goal.none
            if action == .start {
                goal = try choice(fields, "goal", as: ServiceSessionRecord.Goal.self)
            } else if fields.value("goal") != nil {
                _ = try choice(fields, "goal", as: ServiceSessionRecord.Goal.self)
            }
            let purpose = fields.value("fullAccuracyPurpose") == nil ? nil : try fields.string("fullAccuracyPurpose")
            return (device, .session(ServiceSessionRecord(time: time, action: action, id: id, goal: goal, fullAccuracyPurpose: purpose)))
        case "config":
            try fields.requireOnly(configFields, type: type)
            return (device, .config(LiveConfigurationChange(time: time, configuration: try choice(fields, "live", as: LiveConfiguration.self))))
        case "appConfig":
            try fields.requireOnly(appConfigFields, type: type)
            let configuration = AppConfiguration(
                time: time, explicitSessionsRequired: try fields.optionalBool("explicitSessionsRequired"),
                backgroundLocation: try fields.optionalBool("backgroundLocation"),
                reducedAccuracyByDefault: try fields.optionalBool("reducedAccuracyByDefault"),
                fullAccuracyPurposes: try fields.optionalStringList("fullAccuracyPurposes"))
            if configuration.isEmpty {
                throw ObservationProblem(field: "explicitSessionsRequired", message: "an appConfig record sets at least one of explicitSessionsRequired, backgroundLocation, reducedAccuracyByDefault, fullAccuracyPurposes")
            }
            return (device, .appConfig(configuration))
        default:
            throw ObservationProblem(field: "type", message: "unknown record type \(InputText.quoted(type)) (expected fix, sighting, app, request, answer, settings, session, config or appConfig)")
        }
    }
}
