/// Everything the engine keeps for one device.
struct DeviceState {
    let name: String
    /// Stream time of the device's first and latest records.
    let firstTime: Timestamp
    var lastTime: Timestamp
    /// Cause (input line) of the device's latest record, for what fires at the end of the input.
    var lastCause: Int

    /// Per geographic condition, by catalog index; grown when conditions are added.
    var geographic: [GeographicPairState] = []
    /// Geographic pairs that far fixes can still change (`needsFarFixes`), in no particular order.
    var watched: [Int32] = []
    /// Per beacon condition, by catalog index.
    var beacons: [BeaconPairState] = []
    var exits = ExitQueue()

    var authorization: DeviceAuthorization
    /// The authorization last reported, to report only changes.
    var reportedAuthorization: AuthorizationChange?
    /// Changes not yet collected by the engine.
    var authorizationChanges: [AuthorizationChange] = []

    init(name: String, firstTime: Timestamp, cause: Int, initialAuthorization: InitialAuthorization) {
        self.name = name
        self.firstTime = firstTime
        lastTime = firstTime
        lastCause = cause
        authorization = DeviceAuthorization(initialAuthorization)
    }
}
