import Perimeter

/// How records reach the engine.
public enum Feeding: Sendable, Hashable, CaseIterable {
    /// One `process(_:device:cause:into:)` call per record.
    case single
    /// Runs of consecutive fixes as one `[FixRecord]` batch, runs of sightings as one
    /// `[SightingRecord]` batch, any other record alone: what `BatchEvaluation` does.
    case batched
}

/// A record of a scenario with the cause its events carry: its index in `Scenario.records`, whatever
/// order it is fed in, so that events of differently ordered runs compare as they are.
public struct Numbered: Sendable, Hashable {
    public var cause: Int
    public var record: RecordSpec

    public init(cause: Int, record: RecordSpec) {
        self.cause = cause
        self.record = record
    }
}

/// A batch the engine refused: generated fixes and sightings are all valid and in time order, so this
/// is a failure of the property, not something to step over as a refused answer is.
public struct UnexpectedRefusal: Error, CustomStringConvertible {
    public var problem: BatchProblem
    public var description: String { "batch refused at \(problem.index): \(problem.problem)" }
}

/// An engine fed a scenario's records, with everything it produced.
public struct ScenarioRun {
    public var engine: MonitoringEngine
    public var events: [MonitorEvent] = []
    public var changes: [AuthorizationChange] = []
    /// Causes of the records the engine refused (answers no open prompt offers, say).
    public var refused: [Int] = []

    public init(_ scenario: Scenario, batchThreads: Int = 1) throws {
        engine = try scenario.engine(batchThreads: batchThreads)
    }

    /// The scenario's records in their own order, numbered.
    public static func numbered(_ scenario: Scenario) -> [Numbered] {
        scenario.records.enumerated().map { Numbered(cause: $0, record: $1) }
    }

    /// Feeds records, one at a time or in batches; `afterEach` runs after each record fed alone, with
    /// its cause and where its events begin.
    public mutating func feed(_ records: some Collection<Numbered>, _ feeding: Feeding,
                              afterEach: (Int, Int, inout ScenarioRun) -> Void = { _, _, _ in }) throws {
        var rest = records[...]
        while let first = rest.first {
            if feeding == .batched, first.record.isFix {
                let run = rest.prefix { $0.record.isFix }
                let batch = run.map { n -> FixRecord in
                    guard case .fix(let fix) = n.record.observation else { fatalError() }
                    return FixRecord(device: engine.deviceID(n.record.device), fix: fix, cause: n.cause)
                }
                do { try engine.process(batch, into: &events) } catch { throw UnexpectedRefusal(problem: error) }
                rest = rest.dropFirst(run.count)
            } else if feeding == .batched, first.record.isSighting {
                let run = rest.prefix { $0.record.isSighting }
                let batch = run.map { n -> SightingRecord in
                    guard case .sighting(let sighting) = n.record.observation else { fatalError() }
                    return SightingRecord(device: engine.deviceID(n.record.device), sighting: sighting, cause: n.cause)
                }
                do { try engine.process(batch, into: &events) } catch { throw UnexpectedRefusal(problem: error) }
                rest = rest.dropFirst(run.count)
            } else {
                let start = events.count
                do {
                    try engine.process(first.record.observation, device: first.record.device, cause: first.cause, into: &events)
                } catch {
                    refused.append(first.cause)
                }
                rest = rest.dropFirst()
                afterEach(first.cause, start, &self)
            }
            engine.takeAuthorizationChanges(into: &changes)
        }
    }

    /// Ends the input.
    public mutating func finish() {
        engine.finish(into: &events)
        engine.takeAuthorizationChanges(into: &changes)
    }

    /// One pass over the whole scenario in its own order, then the end of the input.
    public static func whole(_ scenario: Scenario, _ feeding: Feeding = .single, batchThreads: Int = 1) throws -> ScenarioRun {
        var run = try ScenarioRun(scenario, batchThreads: batchThreads)
        try run.feed(numbered(scenario), feeding)
        run.finish()
        return run
    }
}
