// perimeter-bench: Perimeter on the peer-comparison workloads of Benchmarks/workloads/generate.py,
// printing the same JSON line as the peers (Benchmarks/peers/compare.py runs it as
// `perimeter-bench MODE WORKDIR [NAME] [--repeat R]`).
//
// Modes: circles | polygons | mixed | single NAME | beacons — stateless containment through the
// engine's index and exact predicates (the batch query, or one call per point with --per-point),
// hash-checked against the peers (Containment.swift); and circles-state | polygons-state |
// mixed-state | beacons-state — the same records through the stateful engine (accuracy margins,
// per-device state machines, events), whose JSON line carries the stateless containment hash
// (computed in a separate pass) so that the comparison still checks agreement; in batches by
// default, one record at a time with --per-point (StatefulRun.swift). The line also gives the fixes
// their device's anchor answered without geometry (`anchored`), and those that measured only the
// conditions whose anchor terms they broke (`near`). `monitor` prints latency percentiles of one
// fix at a time instead (MonitorLatency.swift). `storage CONDITIONS` prints what a conditions file's
// conditions take in the engine, by part and per condition (StorageReport.swift).
//
// Everything timed runs inside functions on local values: top-level code's variables are globals.
import Foundation

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "storage" {
    StorageReport.run(CommandLine.arguments[2])
    exit(0)
}
let options = BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
if options.mode == "monitor" {
    await MonitorLatency.run(options)
    exit(0)
}
print(PeerRun.run(options).json)
