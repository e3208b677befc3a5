/// The devices that watch a condition (SPEC §5.6): on a phone each app's monitor holds its own
/// conditions; an engine serving many devices gives each condition its audience.
///
/// A condition is watched by the devices listed and by every member of the groups listed
/// (`MonitoringEngine.setGroups(_:)`); with neither, by every device. A device is never evaluated
/// against a condition it does not watch: no pair, no event, no place under a limit.
///
/// ```swift
/// try engine.add(.circle(home), identifier: "ana-home", audience: ConditionAudience(devices: ["ana"]))
/// try engine.add(.circle(depot), identifier: "depot", audience: ConditionAudience(groups: ["drivers"]))
/// engine.setGroups(["drivers": ["ana", "ben"]])
/// ```
public struct ConditionAudience: Sendable, Hashable, Codable {
    /// Device names, sorted, each once.
    public let devices: [String]
    /// Group names, sorted, each once.
    public let groups: [String]

    public init(devices: [String] = [], groups: [String] = []) {
        self.devices = Self.sortedOnce(devices)
        self.groups = Self.sortedOnce(groups)
    }

    /// `names` sorted, each once (one name, the common case, as it is).
    private static func sortedOnce(_ names: [String]) -> [String] {
        names.count < 2 ? names : Array(Set(names)).sorted()
    }

    /// Every device.
    public static let everyone = ConditionAudience()

    public var isEveryone: Bool { devices.isEmpty && groups.isEmpty }

    /// Devices named one by one and no group: such a condition is kept with each of its devices
    /// rather than in the shared index, so that no other device's query meets it.
    var isPrivate: Bool { groups.isEmpty && !devices.isEmpty }
}
