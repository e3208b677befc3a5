/// Conditions added but not monitored under the platform profile's rules (docs/profiles.md): past
/// the limit of their type, or of a kind the platform does not monitor. None is indexed or evaluated;
/// each device is told of each once, by an `unmonitored` event.
struct UnmonitoredConditions: Sendable, Codable {
    /// A condition waiting to be monitored (or, unsupported, waiting for good).
    struct Waiting: Sendable, Codable {
        var addition: ConditionAddition
        /// `conditionLimitExceeded` or `conditionUnsupported`.
        var diagnostic: Diagnostics
        /// Its place in `announcements`.
        var announcement: Int32

        var isGeographic: Bool { if case .beacon = addition.condition { false } else { true } }
    }

    /// What devices are told: every condition found unmonitored, in the order it was. A device
    /// announces those from its own count on; one monitored or removed since is passed over.
    struct Announcement: Sendable, Codable {
        var identifier: String
        var diagnostic: Diagnostics
        var isWithdrawn = false
    }

    /// In the order added.
    private(set) var waiting: [Waiting] = []
    private(set) var announcements: [Announcement] = []
    /// The waiting conditions' identifiers, for the duplicate check of every addition.
    private var identifiers: Set<String> = []

    /// Whether `identifier` names a waiting condition.
    func contains(_ identifier: String) -> Bool { identifiers.contains(identifier) }

    mutating func append(_ addition: ConditionAddition, diagnostic: Diagnostics) {
        waiting.append(Waiting(addition: addition, diagnostic: diagnostic, announcement: Int32(announcements.count)))
        announcements.append(Announcement(identifier: addition.identifier, diagnostic: diagnostic))
        identifiers.insert(addition.identifier)
    }

    /// Takes the waiting condition named `identifier` out; returns whether there was one.
    mutating func remove(_ identifier: String) -> Bool {
        guard identifiers.remove(identifier) != nil, let k = waiting.firstIndex(where: { $0.addition.identifier == identifier }) else {
            return false
        }
        announcements[Int(waiting[k].announcement)].isWithdrawn = true
        waiting.remove(at: k)
        return true
    }

    /// Takes out the earliest condition waiting for a place of its type (geographic or beacon) under
    /// the limit, to be monitored.
    mutating func removeFirstUnderLimit(geographic: Bool) -> ConditionAddition? {
        guard let k = waiting.firstIndex(where: { $0.diagnostic == .conditionLimitExceeded && $0.isGeographic == geographic }) else {
            return nil
        }
        announcements[Int(waiting[k].announcement)].isWithdrawn = true
        identifiers.remove(waiting[k].addition.identifier)
        return waiting.remove(at: k).addition
    }
}
