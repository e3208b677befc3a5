// One device's state as a store keeps it. The anchor and its terms are left out: they only spare
// geometry (a device without one evaluates its next fix in full, to the same events), and they are
// rebuilt by the first fix after a restore.

extension DeviceState: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, hasStarted, startSequence, firstTime, lastTime, lastCause
        case geographicEntries, geographicSettled, geographicWaitingEnds, geographicWaitingSince, geographicDetached
        case beaconEntries, beaconSettled, beaconScheduled, exits, authorization, reportedAuthorization
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try values.decode(String.self, forKey: .name), initialAuthorization: .notDetermined)
        hasStarted = try values.decode(Bool.self, forKey: .hasStarted)
        startSequence = try values.decode(Int.self, forKey: .startSequence)
        firstTime = try values.decode(Timestamp.self, forKey: .firstTime)
        lastTime = try values.decode(Timestamp.self, forKey: .lastTime)
        lastCause = try values.decode(Int.self, forKey: .lastCause)
        geographicEntries = try values.decode([GeographicEntry].self, forKey: .geographicEntries)
        geographicSettled = try values.decode(Int32.self, forKey: .geographicSettled)
        let ends = try values.decode([Int32].self, forKey: .geographicWaitingEnds)
        let since = try values.decode([Timestamp].self, forKey: .geographicWaitingSince)
        guard ends.count == since.count else {
            throw DecodingError.dataCorruptedError(forKey: .geographicWaitingSince, in: values,
                                                   debugDescription: "waiting runs: \(ends.count) ends, \(since.count) times")
        }
        geographicWaiting = zip(ends, since).map { (end: $0, since: $1) }
        geographicDetached = try values.decode([Int32].self, forKey: .geographicDetached)
        beaconEntries = try values.decode([BeaconEntry].self, forKey: .beaconEntries)
        beaconSettled = try values.decode(Int32.self, forKey: .beaconSettled)
        beaconScheduled = try values.decode(Int32.self, forKey: .beaconScheduled)
        exits = try values.decode(ExitQueue.self, forKey: .exits)
        authorization = try values.decode(DeviceAuthorization.self, forKey: .authorization)
        reportedAuthorization = try values.decodeIfPresent(AuthorizationChange.self, forKey: .reportedAuthorization)
    }

    func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(name, forKey: .name)
        try values.encode(hasStarted, forKey: .hasStarted)
        try values.encode(startSequence, forKey: .startSequence)
        try values.encode(firstTime, forKey: .firstTime)
        try values.encode(lastTime, forKey: .lastTime)
        try values.encode(lastCause, forKey: .lastCause)
        try values.encode(geographicEntries, forKey: .geographicEntries)
        try values.encode(geographicSettled, forKey: .geographicSettled)
        try values.encode(geographicWaiting.map(\.end), forKey: .geographicWaitingEnds)
        try values.encode(geographicWaiting.map(\.since), forKey: .geographicWaitingSince)
        try values.encode(geographicDetached, forKey: .geographicDetached)
        try values.encode(beaconEntries, forKey: .beaconEntries)
        try values.encode(beaconSettled, forKey: .beaconSettled)
        try values.encode(beaconScheduled, forKey: .beaconScheduled)
        try values.encode(exits, forKey: .exits)
        try values.encode(authorization, forKey: .authorization)
        try values.encodeIfPresent(reportedAuthorization, forKey: .reportedAuthorization)
    }
}
