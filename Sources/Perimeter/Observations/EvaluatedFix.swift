/// A fix as evaluation reads it — time, position and accuracy — for the records a batch copies at
/// every step (decoded, merged, selected, read by the shards): 32 bytes where a `Fix` takes 56.
/// Speed, course and altitude, which no condition reads, are not kept: `fix` gives them back nil.
package struct EvaluatedFix: Sendable, Hashable {
    package var time: Timestamp
    private var coordinate: Coordinate
    private var horizontalAccuracy: Double

    @inline(__always)
    package init(_ fix: Fix) {
        time = fix.time
        coordinate = fix.coordinate
        horizontalAccuracy = fix.horizontalAccuracy
    }

    /// Whether the fix is valid with its position in range and a finite accuracy: one that
    /// `MonitoringEngine.validate` accepts without a look at anything else.
    @inline(__always)
    package var isPlainlyValid: Bool {
        horizontalAccuracy >= 0 && horizontalAccuracy.isFinite
            && abs(coordinate.latitude) <= 90 && abs(coordinate.longitude) <= 180
    }

    @inline(__always)
    package var fix: Fix { Fix(time: time, coordinate: coordinate, horizontalAccuracy: horizontalAccuracy) }
}
