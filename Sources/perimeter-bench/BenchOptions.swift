import Foundation

/// The command line: `perimeter-bench MODE WORKDIR [NAME] [--repeat R] [--threads T] [--per-point]`,
/// options anywhere; a bad count reads as 1.
struct BenchOptions {
    /// As given: a peer's mode, the same with `-state`, or `monitor`.
    let mode: String
    /// The workload directory (`Benchmarks/workloads/generate.py --out`).
    let work: String
    /// NAME: the polygon of `single`, or the kind of conditions of `monitor`.
    let name: String?
    /// Timed runs, of which the best is reported.
    private(set) var repeatCount = 1
    /// Threads of the stateful engine's batch path and of building the cover grid; the stateless
    /// queries run on one.
    private(set) var threads = 1
    /// One query call per point instead of the batch query (P1's way; the default is P2's, all at
    /// once); in state modes, one record at a time.
    let perPoint: Bool

    init(arguments: [String]) {
        var arguments = arguments
        if let r = arguments.firstIndex(of: "--threads"), r + 1 < arguments.count {
            threads = Int(arguments[r + 1]) ?? 1
            arguments.removeSubrange(r...(r + 1))
        }
        perPoint = arguments.contains("--per-point")
        arguments.removeAll { $0 == "--per-point" }
        if let r = arguments.firstIndex(of: "--repeat"), r + 1 < arguments.count {
            repeatCount = Int(arguments[r + 1]) ?? 1
            arguments.removeSubrange(r...(r + 1))
        }
        guard arguments.count >= 2 else {
            die("usage: perimeter-bench MODE WORKDIR [NAME] [--repeat R] [--threads T] [--per-point]")
        }
        mode = arguments[0]
        work = arguments[1]
        name = arguments.count > 2 ? arguments[2] : nil
    }

    /// Whether the records go through the stateful engine (`MODE-state`).
    var stateful: Bool { mode.hasSuffix("-state") }
    /// The peers' mode: which conditions and records.
    var baseMode: String { stateful ? String(mode.dropLast(6)) : mode }
}

/// Stops with a message on standard error; status 3 tells `compare.py` the mode is not supported.
func die(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("perimeter-bench: \(message)\n".utf8))
    exit(code)
}
