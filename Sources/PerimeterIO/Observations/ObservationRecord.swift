import Perimeter

/// A record read from an observations file: the device, what it observed, and where it was written.
public struct ObservationRecord: Sendable, Hashable {
    public var device: String
    public var observation: Observation
    /// 1-based line in the file (for CSV the header is line 1).
    public var line: Int
    /// The reader's number for the device: distinct names count from 0 in the order the reader first
    /// met them (−1 when the record did not come from an `ObservationReader`). Lets a caller keep its
    /// own per-device data in an array instead of looking the name up on every record.
    public var deviceNumber: Int32

    public init(device: String, observation: Observation, line: Int, deviceNumber: Int32 = -1) {
        self.device = device
        self.observation = observation
        self.line = line
        self.deviceNumber = deviceNumber
    }
}

/// A plain fix as `ObservationReader.readPlainFixes` reads it: the reader's number for its device, the
/// fix, and its line.
public struct PlainFixRecord: Sendable, Hashable {
    /// The reader's number for the device (`ObservationReader.deviceName(_:)` names it).
    public var deviceNumber: Int32
    /// The fix as the engine evaluates it (`FixRecord.fix`): speed, course and altitude are not kept.
    public var fix: Fix {
        @inline(__always) get { evaluated.fix }
        set { evaluated = EvaluatedFix(newValue) }
    }
    /// 1-based line in the file.
    public var line: Int
    private var evaluated: EvaluatedFix

    public init(deviceNumber: Int32, fix: Fix, line: Int) {
        self.deviceNumber = deviceNumber
        self.line = line
        evaluated = EvaluatedFix(fix)
    }
}

/// The two observation formats of SPEC §1.
public enum ObservationFormat: String, Sendable, CaseIterable {
    case jsonLines = "jsonl"
    case csv

    /// By extension (`.jsonl`, `.ndjson`, `.json` / `.csv`); `nil` when the name does not say.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || lower.hasSuffix(".json") {
            self = .jsonLines
        } else if lower.hasSuffix(".csv") {
            self = .csv
        } else {
            return nil
        }
    }
}
