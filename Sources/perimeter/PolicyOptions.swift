import ArgumentParser
import Perimeter

/// SPEC's policy values, one flag each. Each takes the argument after it as its value even when that
/// begins with a minus (`.unconditional`), so that `--hysteresis -1` is refused as a negative
/// hysteresis rather than as a missing value.
struct PolicyOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Hysteresis H in metres: a fix must be this far past a boundary to change state.")
    var hysteresis: Double = 0

    @Option(parsing: .unconditional, help: "Accuracy weight k: the margin is max(H, k × accuracy).")
    var accuracyWeight: Double = 1

    @Option(parsing: .unconditional, help: "Seconds the new side must hold before a geographic change completes.")
    var confirmation: Double = 0

    @Option(parsing: .unconditional, help: "Seconds without a matching sighting before a beacon condition becomes unsatisfied.")
    var beaconExitTimeout: Double = 30

    @Option(parsing: .unconditional, help: "Seconds an app still counts as in use after leaving the foreground.")
    var gracePeriod: Double = 5

    @Option(parsing: .unconditional, help: "Events held per device during provisional always.")
    var holdingCapacity: Int = 1

    @Option(parsing: .unconditional, help: "Seconds a held event is kept before it is dropped as expired.")
    var maximumHoldingAge: Double = 3600

    @Option(help: "Starting state of conditions without their own 'assuming': unknown, satisfied or unsatisfied.")
    var assume: ConditionState = .unknown

    @Option(help: "How every device's authorization starts: always (plain geofence evaluation), notDetermined (a fresh install) or restricted.")
    var initialAuthorization: InitialAuthorization = .always

    @Option(help: "Delivery rules: standard (iOS 13/14, SPEC §3) or ios18 (the 2024 service-session model; enables session records).")
    var profile: PlatformProfile = .standard

    func policy() throws -> MonitoringPolicy {
        var policy = MonitoringPolicy()
        policy.hysteresis = hysteresis
        policy.accuracyWeight = accuracyWeight
        policy.confirmation = confirmation
        policy.beaconExitTimeout = beaconExitTimeout
        policy.gracePeriod = gracePeriod
        policy.holdingCapacity = holdingCapacity
        policy.maximumHoldingAge = maximumHoldingAge
        policy.defaultAssumption = assume
        policy.initialAuthorization = initialAuthorization
        policy.profile = profile
        if let problem = policy.problem() { throw ValidationError(problem) }
        return policy
    }
}

extension ConditionState: ExpressibleByArgument {}
extension InitialAuthorization: ExpressibleByArgument {}
extension PlatformProfile: ExpressibleByArgument {}
