// A device's authorization as a store keeps it (`MonitoringEngine.Snapshot`): every field, and the
// held events in full, since their final lines are written from them.

extension DeviceAuthorization: Codable {
    private enum CodingKeys: String, CodingKey {
        case status, isTemporary, isProvisional, provisionalUsed, alwaysRequestUsed, accuracy
        case temporaryFullAccuracy, locationServices, appState, leftForegroundAt, prompt, held, heldTotal, sessions
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(.notDetermined)
        status = try values.decode(AuthorizationStatus.self, forKey: .status)
        isTemporary = try values.decode(Bool.self, forKey: .isTemporary)
        isProvisional = try values.decode(Bool.self, forKey: .isProvisional)
        provisionalUsed = try values.decode(Bool.self, forKey: .provisionalUsed)
        alwaysRequestUsed = try values.decode(Bool.self, forKey: .alwaysRequestUsed)
        accuracy = try values.decode(AccuracyAuthorization.self, forKey: .accuracy)
        temporaryFullAccuracy = try values.decode(Bool.self, forKey: .temporaryFullAccuracy)
        locationServices = try values.decode(Bool.self, forKey: .locationServices)
        appState = try values.decode(AppState.self, forKey: .appState)
        leftForegroundAt = try values.decodeIfPresent(Timestamp.self, forKey: .leftForegroundAt)
        prompt = try values.decodeIfPresent(Prompt.self, forKey: .prompt)
        held = try values.decode([StoredEvent].self, forKey: .held).map(\.event)
        heldTotal = try values.decode(UInt32.self, forKey: .heldTotal)
        sessions = try values.decode([HeldSession].self, forKey: .sessions)
    }

    func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(status, forKey: .status)
        try values.encode(isTemporary, forKey: .isTemporary)
        try values.encode(isProvisional, forKey: .isProvisional)
        try values.encode(provisionalUsed, forKey: .provisionalUsed)
        try values.encode(alwaysRequestUsed, forKey: .alwaysRequestUsed)
        try values.encode(accuracy, forKey: .accuracy)
        try values.encode(temporaryFullAccuracy, forKey: .temporaryFullAccuracy)
        try values.encode(locationServices, forKey: .locationServices)
        try values.encode(appState, forKey: .appState)
        try values.encodeIfPresent(leftForegroundAt, forKey: .leftForegroundAt)
        try values.encodeIfPresent(prompt, forKey: .prompt)
        try values.encode(held.map(StoredEvent.init), forKey: .held)
        try values.encode(heldTotal, forKey: .heldTotal)
        try values.encode(sessions, forKey: .sessions)
    }
}
