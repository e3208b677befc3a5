import Foundation
internal import GRDB
import Perimeter

/// A run of the tool over one observations file, as the store keeps it until it has finished: what
/// it was asked (to tell its command again), where its outputs are staged and how long they were at
/// its last checkpoint, and what it had counted.
public struct StoredRun: Sendable, Hashable {
    /// What must be the same for a later command to go on with this run (its inputs, outputs and
    /// options), as text.
    public var command: String
    /// The observations file's path.
    public var input: String
    /// Lines of the stream before the file's first (`BatchEvaluation.Continuation.causeBase`).
    public var causeBase: Int
    /// Whether the run had finished and was putting its outputs in place.
    public var committing: Bool
    public var summary: EvaluationSummary
    public var outputs: [Output]

    /// A staged output: the file it replaces, the partial file written meanwhile, and its length.
    public struct Output: Sendable, Hashable {
        public var option: String
        public var target: String
        public var partial: String
        public var length: Int

        public init(option: String, target: String, partial: String, length: Int) {
            (self.option, self.target, self.partial, self.length) = (option, target, partial, length)
        }
    }

    public init(command: String, input: String, causeBase: Int, committing: Bool = false, summary: EvaluationSummary,
                outputs: [Output]) {
        (self.command, self.input, self.causeBase, self.committing) = (command, input, causeBase, committing)
        (self.summary, self.outputs) = (summary, outputs)
    }
}

/// How far a monitor has read an observations file, and a digest of the bytes just before that
/// point, to tell the same file (perhaps grown since) from another one at the same path.
public struct StoredInput: Sendable, Hashable {
    public var path: String
    public var position: ReadPosition
    public var tail: String

    public init(path: String, position: ReadPosition, tail: String) {
        self.path = path
        self.position = position
        self.tail = tail
    }
}

extension SQLiteStore {
    /// The monitor's unfinished run, if it has one.
    public func unfinishedRun(monitor name: String) throws(MonitorStoreError) -> StoredRun? {
        try reading("cannot read monitor \(name)") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT run.monitor, command, input, causeBase, committing, summary FROM run JOIN monitor ON monitor.id = run.monitor
                WHERE monitor.name = ?
                """, arguments: [name]) else { return nil }
            let outputs = try Row.fetchAll(db, sql: "SELECT option, target, partial, length FROM runOutput WHERE monitor = ? ORDER BY option",
                                           arguments: [row["monitor"] as Int64]).map { output in
                StoredRun.Output(option: output["option"], target: output["target"], partial: output["partial"], length: output["length"])
            }
            let summary = try JSONDecoder().decode(EvaluationSummary.self, from: Data((row["summary"] as String).utf8))
            return StoredRun(command: row["command"], input: row["input"], causeBase: row["causeBase"], committing: row["committing"],
                             summary: summary, outputs: outputs)
        }
    }

    /// How far the monitor has read the observations file at `path`, if it has.
    public func input(monitor name: String, path: String) throws(MonitorStoreError) -> StoredInput? {
        try reading("cannot read monitor \(name)") { db in
            try Row.fetchOne(db, sql: """
                SELECT offset, line, tail FROM input JOIN monitor ON monitor.id = input.monitor WHERE monitor.name = ? AND path = ?
                """, arguments: [name, path]).map { row in
                StoredInput(path: path, position: ReadPosition(offset: row["offset"], line: row["line"]), tail: row["tail"])
            }
        }
    }

    /// Saves, in one transaction, the monitor and its run as they stand, and (when given) how far
    /// the run has read its file: a checkpoint. With `run` nil, the monitor's run is over and goes.
    public func save(monitor snapshot: Monitor.Snapshot, named name: String, run: StoredRun?,
                     input: StoredInput?) throws(MonitorStoreError) {
        do {
            try queue.write { db in
                try Self.saveMonitor(snapshot, named: name, db)
                let id = try Int64.fetchOne(db, sql: "SELECT id FROM monitor WHERE name = ?", arguments: [name])!
                try db.execute(sql: "DELETE FROM run WHERE monitor = ?", arguments: [id])
                if let run {
                    let summary = String(decoding: try JSONEncoder().encode(run.summary), as: UTF8.self)
                    try db.execute(sql: "INSERT INTO run (monitor, command, input, causeBase, committing, summary) VALUES (?, ?, ?, ?, ?, ?)",
                                   arguments: [id, run.command, run.input, run.causeBase, run.committing, summary])
                    for output in run.outputs {
                        try db.execute(sql: "INSERT INTO runOutput (monitor, option, target, partial, length) VALUES (?, ?, ?, ?, ?)",
                                       arguments: [id, output.option, output.target, output.partial, output.length])
                    }
                }
                if let input {
                    try db.execute(sql: """
                        INSERT INTO input (monitor, path, offset, line, tail) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (monitor, path) DO UPDATE SET offset = excluded.offset, line = excluded.line, tail = excluded.tail
                        """, arguments: [id, input.path, input.position.offset, input.position.line, input.tail])
                }
            }
        } catch {
            throw Self.problem(error, path: self.path, doing: "cannot save monitor \(name)")
        }
    }

    /// The monitor's run is over: its record goes (its outputs are in place).
    public func endRun(monitor name: String) throws(MonitorStoreError) {
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM run WHERE monitor = (SELECT id FROM monitor WHERE name = ?)", arguments: [name])
            }
        } catch {
            throw Self.problem(error, path: path, doing: "cannot save monitor \(name)")
        }
    }

    private func reading<T>(_ what: String, _ body: (Database) throws -> T) throws(MonitorStoreError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw Self.problem(error, path: path, doing: what)
        }
    }
}
