import Foundation
import Perimeter
import PropertyBased

/// Generators of `Scenario`s for `propertyCheck`.
///
/// Every choice is a small integer from `Gen.int`, combined with `zip` and `array`, and only then
/// mapped to conditions, records and policy: the library's own shrinkers then drop records and
/// conditions one at a time and move each integer towards 0, and 0 is always the plainest choice (a
/// fix, a circle at the origin, the default policy value, device `d0`, no time step).
public enum ScenarioGen {
    /// What a scenario may contain.
    public struct Options: Sendable {
        /// At most this many generated records (the authorization prelude comes on top).
        public var maxRecords = 40
        /// Devices `d0`…: their records interleave.
        public var devices = 3
        /// Whether `app`, `request`, `answer` and `settings` records are generated, and a prelude that
        /// puts devices in provisional always or reduced accuracy.
        public var authorization = true
        /// Whether fixes may carry a negative accuracy (no valid fix).
        public var invalidFixes = true

        public init(maxRecords: Int = 40, devices: Int = 3, authorization: Bool = true, invalidFixes: Bool = true) {
            self.maxRecords = maxRecords
            self.devices = devices
            self.authorization = authorization
            self.invalidFixes = invalidFixes
        }
    }

    /// Policies with random hysteresis, accuracy weight, confirmation, beacon exit timeout, grace
    /// period, holding rules, default assumption, initial authorization and platform profile (with
    /// small limits and short loitering delays, so that they matter); index 0 is SPEC's default.
    public static var policy: Generator<PolicySpec, some SendableSequenceType> {
        zip(values, profile).map { spec, profile in
            var spec = spec
            spec.engine.profile = profile
            return spec
        }
    }

    /// The standard profile, ios17 with 2 conditions of each type, android with 2 circles and a 10 s
    /// loitering delay, android with 1 circle and no delay.
    static var profile: Generator<PlatformProfile, some SendableSequenceType> {
        Gen.int(in: 0...3).map { k in
            [PlatformProfile.standard, PlatformProfile.ios17.withConditionLimit(2),
             PlatformProfile.android.withConditionLimit(2).withLoiteringDelay(10),
             PlatformProfile.android.withConditionLimit(1).withLoiteringDelay(0)][k]
        }
    }

    private static var values: Generator<PolicySpec, some SendableSequenceType> {
        zip(Gen.int(in: 0...5), Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...1),
            Gen.int(in: 0...3), Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...2))
            .map { hysteresis, weight, confirmation, exit, initial, capacity, age, grace, assume in
                var p = MonitoringPolicy()
                p.hysteresis = Double(hysteresis) * 10
                p.accuracyWeight = [1, 0, 0.5, 2, 3][weight]
                p.confirmation = Double(confirmation) * 5
                p.beaconExitTimeout = [30, 5, 10, 20][exit]
                p.initialAuthorization = [.always, .notDetermined][initial]
                p.holdingCapacity = [1, 0, 2, 3][capacity]
                p.maximumHoldingAge = [3600, 30, 0][age]
                p.gracePeriod = [5, 0, 15][grace]
                p.defaultAssumption = [.unknown, .satisfied, .unsatisfied][assume]
                return PolicySpec(p)
            }
    }

    /// Circles (radius 10–300 m), star-shaped polygons of 3–6 vertices, and beacon conditions with
    /// wildcards, centred within 200 m of the origin; `assuming` nil (the policy's), or one of the states.
    public static var condition: Generator<ConditionSpec, some SendableSequenceType> {
        zip(Gen.int(in: 0...2), Gen.int(in: -20...20), Gen.int(in: -20...20), Gen.int(in: 1...30),
            Gen.int(in: 1...20).array(of: 3...6), Gen.int(in: 0...3), Gen.int(in: 0...1), Gen.int(in: 0...3),
            Gen.int(in: 0...3))
            .map { kind, x, y, size, radii, assuming, uuid, major, minor in
                let assumed: ConditionState? = [nil, .unknown, .satisfied, .unsatisfied][assuming]
                switch kind {
                case 0: return ConditionSpec(.circle(x: x, y: y, radius: size), assuming: assumed)
                case 1: return ConditionSpec(.polygon(x: x, y: y, radii: radii), assuming: assumed)
                default:
                    // 0 is the wildcard; a minor only with a major (SPEC §1).
                    let major = major == 0 ? nil : UInt16(major - 1)
                    let minor = major == nil || minor == 0 ? nil : UInt16(minor - 1)
                    return ConditionSpec(.beacon(uuid: uuid, major: major, minor: minor), assuming: assumed)
                }
            }
    }

    /// A record before its time is known: its kind, device, the seconds since the previous record, and
    /// three small integers whose meaning depends on the kind.
    public struct RawRecord: Sendable, Hashable {
        var kind: Int, device: Int, step: Int, a: Int, b: Int, c: Int
    }

    static func rawRecord(_ options: Options) -> Generator<RawRecord, some SendableSequenceType> {
        // Kinds 0–3 fixes, 4–6 sightings, then app, request, answer and settings records.
        zip(Gen.int(in: 0...(options.authorization ? 10 : 6)), Gen.int(in: 0...(options.devices - 1)),
            Gen.int(in: 0...40), Gen.int(in: -40...40), Gen.int(in: -40...40), Gen.int(in: (options.invalidFixes ? -1 : 0)...8))
            .map { RawRecord(kind: $0, device: $1, step: $2, a: $3, b: $4, c: $5) }
    }

    /// The observation a raw record stands for at `t`.
    static func observation(_ r: RawRecord, at t: Timestamp) -> Observation {
        let a = abs(r.a), b = abs(r.b), c = abs(r.c)
        let tristate: [Bool?] = [nil, true, false]
        switch r.kind {
        case 0...3:
            return .fix(Fix(time: t, coordinate: Grid.coordinate(Double(r.a), Double(r.b)),
                            horizontalAccuracy: r.c < 0 ? -1 : Double(r.c) * 5))
        case 4...6:
            // Mostly the first UUID, so that sightings meet the conditions.
            return .sighting(BeaconSighting(time: t, identity: BeaconIdentity(uuid: Grid.uuids[a % 5 == 4 ? 1 : 0],
                                                                             major: UInt16(b % 3), minor: UInt16(c % 3)),
                                            rssi: -60))
        case 7:
            return .app(AppStateChange(time: t, state: [.foreground, .background, .indicator, .terminated][a % 4]))
        case 8:
            return .request(AuthorizationRequest(time: t, kind: AuthorizationRequest.Kind.allCases[a % 3]))
        case 9:
            return .answer(PromptAnswer(time: t, choice: PromptAnswer.Choice.allCases[a % 5], precise: tristate[b % 3]))
        default:
            let statuses: [SettingsChange.Status?] = [nil, .never, .whenInUse, .always, .askNextTime]
            return .settings(SettingsChange(time: t, status: statuses[a % 5], precise: tristate[b % 3],
                                            locationServices: tristate[c % 3]))
        }
    }

    /// Records at t = 0 that take a device from `notDetermined` to provisional always in the background
    /// (1: its events are held) or to a foreground Allow Once with reduced accuracy (2).
    static func prelude(_ kind: Int, device: String) -> [RecordSpec] {
        let t = Grid.time(0)
        let steps: [Observation]
        switch kind {
        case 1:
            steps = [.app(AppStateChange(time: t, state: .foreground)), .request(AuthorizationRequest(time: t, kind: .always)),
                     .answer(PromptAnswer(time: t, choice: .allowWhileUsing)), .app(AppStateChange(time: t, state: .background))]
        case 2:
            steps = [.app(AppStateChange(time: t, state: .foreground)), .request(AuthorizationRequest(time: t, kind: .whenInUse)),
                     .answer(PromptAnswer(time: t, choice: .allowOnce, precise: false))]
        default:
            steps = []
        }
        return steps.map { RecordSpec(device: device, seconds: 0, observation: $0) }
    }

    /// Scenarios of 1–4 conditions and up to `options.maxRecords` records over `options.devices` devices.
    public static func scenario(_ options: Options = Options()) -> Generator<Scenario, some SendableSequenceType> {
        zip(policy, condition.array(of: 1...4), rawRecord(options).array(of: 0...options.maxRecords),
            Gen.int(in: 0...(options.authorization ? 2 : 0)))
            .map { policy, conditions, raw, preludeKind in
                var policy = policy
                var records: [RecordSpec] = []
                if preludeKind != 0 {
                    // The prelude needs a first prompt to answer.
                    policy.engine.initialAuthorization = .notDetermined
                    for d in 0..<options.devices { records += prelude(preludeKind, device: "d\(d)") }
                }
                var seconds = 0
                for r in raw {
                    seconds += r.step
                    records.append(RecordSpec(device: "d\(r.device)", seconds: seconds,
                                              observation: observation(r, at: Grid.time(seconds))))
                }
                return Scenario(policy: policy, conditions: conditions, records: records)
            }
    }
}
