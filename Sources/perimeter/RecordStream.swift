import Foundation
import Perimeter
import PerimeterIO

/// The one-record-at-a-time run of `updates` and `range`: reads the observations in order, hands
/// each record to `take`, stops at the first bad record naming file, line and field, and puts its
/// outputs in place only when the whole stream went through (as `evaluate` does, a run that stops
/// leaves each output file as it was, and names the partial file that holds what was written).
struct RecordStream {
    let observations: String
    let format: ObservationFormat?
    let maxLineBytes: Int

    /// Runs `take` over every record, then `finish`; returns the records read. An
    /// `ObservationProblem` that `take` throws is the record's, named by its line.
    func run(main: (option: String, path: String), events eventsPath: String?, inputs: [(option: String, path: String)],
             take: (ObservationRecord, inout BufferedOutput, inout BufferedOutput?) throws -> Void,
             finish: (inout BufferedOutput, inout BufferedOutput?) throws -> Void) throws -> Int {
        let outputs = [main] + (eventsPath.map { [("--events", $0)] } ?? [])
        do throws(InputError) {
            try SameFileCheck.refuseOverlaps(inputs: inputs + [("--observations", observations)], outputs: outputs)
        } catch {
            throw CommandSupport.fail(error.description)
        }
        var partials: [(option: String, path: String, partial: String)] = []
        var records = 0
        do {
            var out = try BufferedOutput(replacing: main.path)
            if let partial = out.partialPath { partials.append((main.option, main.path, partial)) }
            var events: BufferedOutput? = nil
            if let eventsPath {
                let file = try BufferedOutput(replacing: eventsPath)
                if let partial = file.partialPath { partials.append(("--events", eventsPath, partial)) }
                events = consume file
            }
            var reader = try ObservationReader(path: observations, format: format, maxLineBytes: maxLineBytes)
            while let next = reader.next() {
                let record = try next.get()
                records += 1
                do {
                    try take(record, &out, &events)
                } catch let problem as ObservationProblem {
                    throw InputError(file: reader.file, line: record.line, field: problem.field, message: problem.message)
                }
            }
            try finish(&out, &events)
            try out.commit()
            try events?.commit()
        } catch let error as InputError {
            var status = stat()
            let kept = partials.filter { stat($0.partial, &status) == 0 && (status.st_size > 0 || unlink($0.partial) != 0) }
            let left = kept.map { "the run did not finish: \($0.option) \($0.path) is not replaced; what was written is in \($0.partial)" }
            throw CommandSupport.fail(([error.description] + left).joined(separator: "\n"))
        }
        if records == 0 {
            CommandSupport.warn("\(observations == "-" ? "standard input" : observations): no records")
        }
        return records
    }

    /// Appends events to an output, as `evaluate` writes them, and empties the list.
    static func write(_ events: inout [MonitorEvent], to output: inout BufferedOutput?) throws(InputError) {
        defer { events.removeAll(keepingCapacity: true) }
        guard !events.isEmpty, output != nil else { return }
        let batch = events
        try output!.append { bytes in for event in batch { EventEncoding.append(event, to: &bytes) } }
    }
}

/// The engine's device identifiers by the reader's device numbers: a record's device without a
/// lookup by name (the reader numbers names as it first meets them).
struct DeviceNumbers {
    private var ids: [DeviceID] = []

    mutating func id(_ record: ObservationRecord, _ ranging: inout BeaconRanging) -> DeviceID {
        id(record) { ranging.deviceID($0) }
    }

    mutating func id(_ record: ObservationRecord, _ updates: inout LiveUpdates) -> DeviceID {
        id(record) { updates.deviceID($0) }
    }

    private mutating func id(_ record: ObservationRecord, name: (String) -> DeviceID) -> DeviceID {
        let n = Int(record.deviceNumber)
        guard n >= 0 else { return name(record.device) }
        if n < ids.count { return ids[n] }
        let id = name(record.device)
        if n == ids.count { ids.append(id) }
        return id
    }
}

/// Consecutive records of one kind (fixes, sightings) waiting to go through a batch path together.
struct PendingRun<Record> {
    private(set) var records: [Record] = []
    /// The most events the records' devices' starts can produce (`MonitoringEngine.startEventBound`).
    var eventBound = 0
    let file: String

    init(observations: String) {
        file = observations == "-" ? "<stdin>" : observations
    }

    mutating func append(_ record: Record) { records.append(record) }

    var count: Int { records.count }

    /// Hands the records to `apply` and empties the run; a record it refuses is named by its line.
    mutating func apply(_ apply: ([Record]) throws(BatchProblem) -> Void, line: (Record) -> Int) throws {
        guard !records.isEmpty else { return }
        defer {
            records.removeAll(keepingCapacity: true)
            eventBound = 0
        }
        do throws(BatchProblem) {
            try apply(records)
        } catch {
            throw InputError(file: file, line: line(records[error.index]), field: error.problem.field, message: error.problem.message)
        }
    }
}

extension BufferedOutput {
    /// Appends `items` encoded by `encode`, in order; a long list is encoded in parallel chunks (as
    /// `evaluate` encodes a large batch of events), each into its own bytes, appended in order.
    mutating func append<Item: Sendable>(encoding items: [Item], threads: Int,
                                         _ encode: @escaping @Sendable (Item, inout [UInt8]) -> Void) throws(InputError) {
        guard !items.isEmpty else { return }
        let chunks = items.count >= 512 ? max(1, threads) : 1
        guard chunks > 1 else {
            try append { bytes in for item in items { encode(item, &bytes) } }
            return
        }
        var parts = [[UInt8]](repeating: [], count: chunks)
        parts.withUnsafeMutableBufferPointer { parts in
            nonisolated(unsafe) let parts = parts  // (each chunk writes its own part)
            DispatchQueue.concurrentPerform(iterations: chunks) { k in
                var bytes: [UInt8] = []
                for item in items[items.count * k / chunks ..< items.count * (k + 1) / chunks] { encode(item, &bytes) }
                parts[k] = bytes
            }
        }
        for part in parts { try append(contentsOf: part) }
    }
}
