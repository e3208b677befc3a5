import Perimeter

/// The time of the tests' fixes that need one time only: 2026-03-01T08:00:00Z.
enum T0 {
    static let t = Timestamp(nanosecondsSinceEpoch: 1_772_352_000_000_000_000)
}
