import ArgumentParser
import Testing
@testable import perimeter

/// The tool's policy flags: a value that begins with a minus is the flag's value, so a negative one
/// is refused with the policy's own message rather than reported missing.
@Suite struct CommandLineTests {
    @Test(arguments: [
        (["--hysteresis", "-1"], "hysteresis must be a finite number ≥ 0, got -1.0"),
        (["--accuracy-weight", "-0.5"], "accuracy weight must be a finite number ≥ 0, got -0.5"),
        (["--confirmation", "-2"], "confirmation must be a finite number of seconds ≥ 0, got -2.0"),
        (["--beacon-exit-timeout", "-30"], "beacon exit timeout must be a finite number of seconds > 0, got -30.0"),
        (["--grace-period", "-5"], "grace period must be a finite number of seconds ≥ 0, got -5.0"),
        (["--holding-capacity", "-1"], "holding capacity must be ≥ 0, got -1"),
        (["--maximum-holding-age", "-1e3"], "maximum holding age must be a finite number of seconds ≥ 0, got -1000.0"),
    ])
    func negativePolicyValuesAreRefusedByName(_ arguments: [String], _ message: String) throws {
        let options = try PolicyOptions.parse(arguments)
        let error = #expect(throws: ValidationError.self) { try options.policy() }
        #expect(error?.message == message)
    }

    @Test func policyValuesReachThePolicy() throws {
        let policy = try PolicyOptions.parse(["--hysteresis", "20", "--confirmation", "10", "--holding-capacity", "3"]).policy()
        #expect(policy.hysteresis == 20 && policy.confirmation == 10 && policy.holdingCapacity == 3)
        // A flag in place of a value is still an error, not a value.
        #expect(throws: (any Error).self) { try PolicyOptions.parse(["--hysteresis", "--confirmation", "3"]) }
    }
}
