/// The JSON line every peer prints (Benchmarks/peers/README.md, "The result line"), with Perimeter's
/// `condition_bytes` and `index_bytes`, and in state modes what the stateful engine did.
struct ResultLine {
    let mode: String
    /// The polygon of `single`.
    let name: String?
    /// Fixes, points or sightings evaluated.
    var fixes = 0
    let conditions: Int
    /// The best of the timed runs: the stateless query's, or in state modes the stateful engine's.
    var seconds = Double.infinity
    /// Adding the conditions and building their indexes (in `single`, the best of the builds).
    let buildSeconds: Double
    /// The adding alone (its best), part of `buildSeconds`: where a slow build spends its time.
    let addSeconds: Double
    var containments = 0
    var hash: UInt64 = 0
    /// The heap bytes the conditions take in the engine.
    let conditionBytes: Int
    /// The part of `conditionBytes` that is shapes and their indexes (P3's `index_bytes` counts the
    /// same for its polygon: coordinates and index).
    let indexBytes: Int
    /// The stateful engine's counts, in state modes.
    var state: StatefulResult?

    var json: String {
        var line = "{\"peer\":\"Perimeter\",\"mode\":\"\(mode)\""
        if let name { line += ",\"name\":\"\(name)\"" }
        line += ",\"fixes\":\(fixes),\"conditions\":\(conditions),\"seconds\":\(seconds),\"build_seconds\":\(buildSeconds)"
        line += ",\"add_seconds\":\(addSeconds)"
        line += ",\"containments\":\(containments),\"hash\":\(hash),\"condition_bytes\":\(conditionBytes),\"index_bytes\":\(indexBytes)"
        if let state { line += ",\"events\":\(state.events),\"anchored\":\(state.anchored),\"near\":\(state.near)" }
        return line + "}"
    }
}
