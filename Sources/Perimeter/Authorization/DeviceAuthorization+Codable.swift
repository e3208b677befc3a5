// A device's authorization as a store keeps it (`MonitoringEngine.Snapshot`): every field, and the
// held events in full, since their final lines are written from them.

extension DeviceAuthorization: Codable {
    private enum CodingKeys: String, CodingKey {
        case status, isTemporary, isProvisional, provisionalUsed, alwaysRequestUsed, accuracy
        case temporaryFullAccuracy, locationServices, appState, leftForegroundAt, prompt, held, heldTotal, sessions
        case explicitSessionsRequired, backgroundLocation, reducedAccuracyByDefault, fullAccuracyPurposes
        case foregroundSinceLaunch, launchedAt, indicatorRemembered
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
        // (Absent from stores written before sessions' relaunch and Info.plist rules: their defaults.)
        explicitSessionsRequired = try values.decodeIfPresent(Bool.self, forKey: .explicitSessionsRequired) ?? false
        backgroundLocation = try values.decodeIfPresent(Bool.self, forKey: .backgroundLocation) ?? true
        reducedAccuracyByDefault = try values.decodeIfPresent(Bool.self, forKey: .reducedAccuracyByDefault) ?? false
        fullAccuracyPurposes = try values.decodeIfPresent([String].self, forKey: .fullAccuracyPurposes).map(Set.init)
        foregroundSinceLaunch = try values.decodeIfPresent(Bool.self, forKey: .foregroundSinceLaunch) ?? (appState == .foreground)
        launchedAt = try values.decodeIfPresent(Timestamp.self, forKey: .launchedAt)
        indicatorRemembered = try values.decodeIfPresent(Bool.self, forKey: .indicatorRemembered) ?? false
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
        if explicitSessionsRequired { try values.encode(true, forKey: .explicitSessionsRequired) }
        if !backgroundLocation { try values.encode(false, forKey: .backgroundLocation) }
        if reducedAccuracyByDefault { try values.encode(true, forKey: .reducedAccuracyByDefault) }
        try values.encodeIfPresent(fullAccuracyPurposes.map { $0.sorted() }, forKey: .fullAccuracyPurposes)
        try values.encode(foregroundSinceLaunch, forKey: .foregroundSinceLaunch)
        try values.encodeIfPresent(launchedAt, forKey: .launchedAt)
        if indicatorRemembered { try values.encode(true, forKey: .indicatorRemembered) }
    }
}
