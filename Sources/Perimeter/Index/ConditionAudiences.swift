/// Which devices watch which conditions (`ConditionAudience`), as evaluation asks it.
///
/// Audiences are numbered as they first appear, 0 being everyone; each condition keeps its
/// audience's number. A condition for devices named one by one ("private") stays out of the shared
/// index and is listed with each of its devices instead: 100k devices with 20 circles each would
/// otherwise fill every query with other devices' circles. A condition for groups stays in the shared
/// index, and a device's queries pass over those of groups it is not in.
struct ConditionAudiences: Sendable {
    private(set) var audiences: [ConditionAudience] = [.everyone]
    private var numbers: [ConditionAudience: Int32] = [.everyone: 0]
    private var lastNumbered: Int32?
    /// Per audience number, whether it is private.
    private var isPrivateAudience: [Bool] = [false]
    /// Per geographic condition and per beacon condition, its audience's number; empty (all
    /// everyone's) until a condition has another audience, so that a catalogue without any pays
    /// nothing per condition.
    private(set) var geographic: [Int32] = []
    private(set) var beacons: [Int32] = []
    /// How many conditions of each kind were appended.
    private var geographicCount = 0, beaconCount = 0
    /// The audiences that name a device, and those that name a group.
    private var audiencesNaming: [String: [Int32]] = [:]
    private var audiencesOfGroup: [String: [Int32]] = [:]
    /// Per device, its private geographic conditions, ascending.
    private var privateGeographic: [String: [Int32]] = [:]
    /// The groups each device is in (`MonitoringEngine.setGroups(_:)`).
    private var groupsOfDevice: [String: [String]] = [:]
    private var groupsSet = false
    /// Changes whenever what a device watches may have (`ConditionCatalog.watchEpoch`).
    private(set) var epoch = 0
    /// Whether a condition in the shared index has an audience other than everyone: its queries then
    /// ask, per condition, whether the device watches it.
    private(set) var filtersShared = false
    /// Whether a beacon condition has an audience other than everyone.
    private(set) var filtersBeacons = false

    /// Whether any condition has an audience other than everyone.
    var hasAudiences: Bool { audiences.count > 1 }

    mutating func appendGeographic(_ i: Int32, audience: ConditionAudience) {
        precondition(Int(i) == geographicCount, "conditions are numbered in order")
        let number = self.number(of: audience)
        geographicCount += 1
        guard hasAudiences else { return }
        geographic.append(number)
        guard number != 0 else { return }
        if audience.isPrivate {
            for device in audience.devices { privateGeographic[device, default: []].append(i) }
        } else {
            filtersShared = true
        }
        epoch += 1
    }

    mutating func appendBeacon(_ i: Int32, audience: ConditionAudience) {
        precondition(Int(i) == beaconCount, "conditions are numbered in order")
        let number = self.number(of: audience)
        beaconCount += 1
        guard hasAudiences else { return }
        beacons.append(number)
        if number != 0 { filtersBeacons = true }
    }

    /// Whether geographic condition `i` is kept with its devices rather than in the shared index.
    @inline(__always)
    func isPrivate(geographic i: Int32) -> Bool { isPrivateAudience[Int(geographic[Int(i)])] }

    func audience(geographic i: Int32) -> ConditionAudience { hasAudiences ? audiences[Int(geographic[Int(i)])] : .everyone }
    func audience(beacon i: Int32) -> ConditionAudience { hasAudiences ? audiences[Int(beacons[Int(i)])] : .everyone }

    /// Sets every device's groups anew: `members` lists each group's devices.
    mutating func setGroups(_ members: [String: [String]]) {
        var groups: [String: [String]] = [:]
        for (group, devices) in members { for device in devices { groups[device, default: []].append(group) } }
        groupsOfDevice = groups
        groupsSet = true
        epoch += 1
    }

    /// Each group's devices, as `setGroups(_:)` was given them (sorted); `nil` if it never was.
    var members: [String: [String]]? {
        guard groupsSet else { return nil }
        var members: [String: [String]] = [:]
        for (device, groups) in groupsOfDevice { for group in groups { members[group, default: []].append(device) } }
        return members.mapValues { $0.sorted() }
    }

    /// The groups `device` is in, sorted.
    func groups(of device: String) -> [String] { (groupsOfDevice[device] ?? []).sorted() }

    /// `device`'s private geographic conditions, ascending.
    func privateGeographic(of device: String) -> [Int32] { privateGeographic[device] ?? [] }

    /// What `device` watches now.
    func watch(for device: String) -> Watch {
        guard hasAudiences else { return Watch(epoch: epoch, device: device) }
        var numbers = audiencesNaming[device] ?? []
        for group in groupsOfDevice[device] ?? [] { numbers += audiencesOfGroup[group] ?? [] }
        numbers = Array(Set(numbers)).sorted()
        return Watch(epoch: epoch, device: device, audiences: numbers, privateGeographic: privateGeographic[device] ?? [],
                     filtersShared: filtersShared)
    }

    private mutating func number(of audience: ConditionAudience) -> Int32 {
        if audience.isEveryone { return 0 }  // (most conditions: no hashing)
        // (A file lists a device's conditions together: the same audience again, not hashed again.)
        if let last = lastNumbered, audiences[Int(last)] == audience { return last }
        if let n = numbers[audience] {
            lastNumbered = n
            return n
        }
        if !hasAudiences {
            // The first audience other than everyone: every condition so far is everyone's.
            geographic = Array(repeating: 0, count: geographicCount)
            beacons = Array(repeating: 0, count: beaconCount)
        }
        let n = Int32(audiences.count)
        lastNumbered = n
        audiences.append(audience)
        numbers[audience] = n
        isPrivateAudience.append(audience.isPrivate)
        for device in audience.devices { audiencesNaming[device, default: []].append(n) }
        for group in audience.groups { audiencesOfGroup[group, default: []].append(n) }
        epoch += 1
        return n
    }

    /// About how many heap bytes this takes: arrays by capacity, each dictionary entry as its key,
    /// value and a slot of hash table, and the strings' and arrays' own storage.
    var heapBytes: Int {
        func strings(_ s: [String]) -> Int { HeapBytes.of(s) + s.reduce(0) { $0 + HeapBytes.of($1) } }
        func table<Value>(_ d: [String: Value], _ value: (Value) -> Int) -> Int {
            d.reduce(d.capacity * (MemoryLayout<String>.stride + MemoryLayout<Value>.stride + 1)) {
                $0 + HeapBytes.of($1.key) + value($1.value)
            }
        }
        return HeapBytes.of(geographic) + HeapBytes.of(beacons) + HeapBytes.of(isPrivateAudience)
            + audiences.reduce(HeapBytes.of(audiences)) { $0 + strings($1.devices) + strings($1.groups) }
            + numbers.capacity * (MemoryLayout<ConditionAudience>.stride + 4 + 1)
            + table(audiencesNaming, HeapBytes.of) + table(audiencesOfGroup, HeapBytes.of)
            + table(privateGeographic, HeapBytes.of) + table(groupsOfDevice, strings)
    }
}

/// What one device watches (`ConditionAudiences.watch(for:)`), kept with its state and made again
/// when the audiences' epoch moves on.
struct Watch: Sendable {
    /// The `ConditionCatalog.watchEpoch` this was made at; −1: never made.
    var epoch = -1
    var device = ""
    /// The numbers of the audiences other than everyone that the device is in, ascending.
    var audiences: [Int32] = []
    /// The geographic conditions the device tests as a list of its own, ascending: its private ones
    /// (under a limit, those it monitors), and the shared ones it monitors when `skipsShared`.
    var privateGeographic: [Int32] = []
    /// Whether the shared index's answers are filtered (`ConditionCatalog.isAdmitted`).
    var filtersShared = false
    /// Under a profile's limits (`ConditionCatalog.perDeviceLimits`).
    var isLimited = false
    /// Under a limit that leaves some of the device's conditions out: those it monitors, ascending.
    var monitoredGeographic: [Int32]?
    /// The shared index is not asked: the shared conditions the device monitors are in
    /// `privateGeographic`.
    var skipsShared = false
    /// The shared conditions the device monitors, when the index's answers must be filtered by them.
    var sharedMonitored: [Int32]?
    /// Under a limit that leaves some of its beacon conditions out: those the device monitors.
    var monitoredBeacons: [Int32]?

    /// The same, for which conditions the device watches, whether it monitors them or not.
    var ignoringLimits: Watch { Watch(epoch: epoch, device: device, audiences: audiences) }

    /// Whether the device is in audience `number`.
    @inline(__always)
    func watches(_ number: Int32) -> Bool {
        number == 0 || (audiences.count <= 8 ? audiences.contains(number)
                            : audiences[SortedIndices.firstIndex(in: audiences, notBelow: number)...].first == number)
    }
}
