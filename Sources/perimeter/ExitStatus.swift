import ArgumentParser

/// The tool's exit statuses, the one table of them: the commands return these, and `--help` and the
/// README show `table`.
enum ExitStatus {
    /// The run finished (warnings, such as empty inputs, do not change it).
    static let success = ExitCode.success
    /// The input or a file was refused: a bad record (without `--quarantine`), a conditions file with
    /// problems, a file that cannot be read or written, an output that would destroy an input.
    static let refused = ExitCode(1)
    /// The command line is wrong: an unknown option, a missing or bad value (argument parsing's own,
    /// EX_USAGE).
    static let usage = ExitCode.validationFailure

    /// Stopped by `signal` (SIGINT, SIGTERM, SIGHUP), as a shell reports a process a signal ended.
    /// A function, not a constant: the signal handler calls it, and touches no global.
    static func interrupted(by signal: Int32) -> Int32 { 128 + signal }

    /// The statuses as `--help` shows them (lines shorter than 80 characters: help is wrapped there).
    static let table = """
        EXIT STATUS:
          0    the run finished, also with a warning (no conditions, no records)
          \(refused.rawValue)    input refused: a bad record (without --quarantine), conditions with
               problems, a file that cannot be read or written, an output that is
               also an input
          \(usage.rawValue)   usage: an unknown option, a missing or bad value (--threads 0)
          \(interrupted(by: 1))  stopped by SIGHUP, \(interrupted(by: 2)) by SIGINT, \(interrupted(by: 15)) by SIGTERM (128 + the signal)
        """
}
