import Perimeter

/// A record read from an observations file: the device, what it observed, and where it was written.
public struct ObservationRecord: Sendable, Hashable {
    public var device: String
    public var observation: Observation
    /// 1-based line in the file (for CSV the header is line 1).
    public var line: Int

    public init(device: String, observation: Observation, line: Int) {
        self.device = device
        self.observation = observation
        self.line = line
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
