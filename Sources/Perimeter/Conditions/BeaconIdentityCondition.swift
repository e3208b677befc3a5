import Foundation

/// A concrete beacon identity: what a sighting reports and what a refinement names.
public struct BeaconIdentity: Sendable, Hashable, Codable {
    /// The proximity UUID.
    public var uuid: UUID
    /// The major value (0…65535).
    public var major: UInt16
    /// The minor value (0…65535).
    public var minor: UInt16

    /// The beacon with exactly this UUID, major and minor.
    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }
}

/// A beacon identity with optional wildcards, as `CLMonitor.BeaconIdentityCondition`:
/// UUID only, UUID and major, or UUID, major and minor.
public struct BeaconIdentityCondition: Sendable, Hashable {
    /// The UUID every matching beacon has (compared as UUIDs, so case does not matter).
    public let uuid: UUID
    /// The major a matching beacon must have; nil matches any.
    public let major: UInt16?
    /// The minor a matching beacon must have; nil matches any (only with a major).
    public let minor: UInt16?

    /// Matches every beacon with this UUID.
    public init(uuid: UUID) {
        self.uuid = uuid
        major = nil
        minor = nil
    }

    /// Matches every beacon with this UUID and major.
    public init(uuid: UUID, major: UInt16) {
        self.uuid = uuid
        self.major = major
        minor = nil
    }

    /// Matches exactly one beacon identity.
    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Whether a sighted beacon matches: same UUID, and each present major/minor equal.
    /// (`UUID` compares its bytes, so the text's case never matters.)
    public func matches(_ identity: BeaconIdentity) -> Bool {
        identity.uuid == uuid
            && (major == nil || major == identity.major)
            && (minor == nil || minor == identity.minor)
    }
}
