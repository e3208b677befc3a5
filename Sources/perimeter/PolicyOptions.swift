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

    @Option(help: "The platform's rules: standard (every condition), ios17 (20 conditions of each type per device), ios18 (as ios17, and the 2024 service sessions; enables session records) or android (100 circles, no polygons or beacons, dwelling).")
    var profile: PlatformProfile.Name = .standard

    @Option(parsing: .unconditional, help: "Conditions of each type a device has monitored at most (ios17, ios18: 20; android: 100).")
    var conditionLimit: Int?

    @Option(parsing: .unconditional, help: "Seconds inside a circle before a dwelling event (android: 30).")
    var loiteringDelay: Double?

    @Option(parsing: .unconditional, help: "Seconds after a relaunch within which sessions must be taken again (ios18: 10).")
    var relaunchWindow: Double?

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
        var profile = PlatformProfile(profile)
        if let conditionLimit {
            guard profile.conditionLimit != nil else {
                throw ValidationError("--condition-limit: the \(profile.name.rawValue) profile has no condition limit (ios17, ios18 and android have)")
            }
            profile = profile.withConditionLimit(conditionLimit)
        }
        if let loiteringDelay {
            guard profile.loiteringDelay != nil else {
                throw ValidationError("--loitering-delay: the \(profile.name.rawValue) profile reports no dwelling (android does)")
            }
            profile = profile.withLoiteringDelay(loiteringDelay)
        }
        if let relaunchWindow {
            guard profile.relaunchWindow != nil else {
                throw ValidationError("--relaunch-window: the \(profile.name.rawValue) profile has no service sessions (ios18 has)")
            }
            profile = profile.withRelaunchWindow(relaunchWindow)
        }
        policy.profile = profile
        if let problem = policy.problem() { throw ValidationError(problem) }
        return policy
    }
}

extension ConditionState: ExpressibleByArgument {}
extension InitialAuthorization: ExpressibleByArgument {}
extension PlatformProfile.Name: ExpressibleByArgument {}
