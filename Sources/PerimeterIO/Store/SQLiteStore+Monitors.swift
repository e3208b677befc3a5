import Dispatch
import Foundation
import Synchronization
internal import GRDB
import Perimeter

// A monitor in the store's tables: one row for the monitor (policy, and the engine's state apart from
// its conditions and devices, as JSON), one per condition added (in order, removed ones kept), one per
// device (its whole state, as JSON), one per record's last event.

extension SQLiteStore {
    public func loadMonitor(named name: String) throws(MonitorStoreError) -> Monitor.Snapshot? {
        do {
            return try queue.read { db in try Self.loadMonitor(named: name, db) }
        } catch {
            throw Self.problem(error, path: path, doing: "cannot read monitor \(name)")
        }
    }

    public func saveMonitor(_ snapshot: Monitor.Snapshot, named name: String) throws(MonitorStoreError) {
        do {
            try queue.write { db in try Self.saveMonitor(snapshot, named: name, db) }
        } catch {
            throw Self.problem(error, path: path, doing: "cannot save monitor \(name)")
        }
    }

    /// The names of the monitors the store holds, in order.
    public func monitorNames() throws(MonitorStoreError) -> [String] {
        do {
            return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM monitor ORDER BY name") }
        } catch {
            throw Self.problem(error, path: path, doing: "cannot read")
        }
    }

    /// Removes the monitor saved under `name`, with everything it holds; `false` if there was none.
    @discardableResult
    public func removeMonitor(named name: String) throws(MonitorStoreError) -> Bool {
        do {
            return try queue.write { db in
                try db.execute(sql: "DELETE FROM monitor WHERE name = ?", arguments: [name])
                return db.changesCount > 0
            }
        } catch {
            throw Self.problem(error, path: path, doing: "cannot remove monitor \(name)")
        }
    }

    static func loadMonitor(named name: String, _ db: Database) throws -> Monitor.Snapshot? {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, policy, engine, recordCount FROM monitor WHERE name = ?",
                                         arguments: [name]) else { return nil }
        let id: Int64 = row["id"]
        let decoder = JSONDecoder()
        func decode<T: Decodable>(_ type: T.Type, _ text: String, _ what: @autoclosure () -> String) throws -> T {
            do {
                return try decoder.decode(type, from: Data(text.utf8))
            } catch {
                throw MonitorStoreError("monitor \(name): \(what()) cannot be read: \(error)")
            }
        }
        let policy = try decode(MonitoringPolicy.self, row["policy"], "its policy")
        var engine = try decode(MonitoringEngine.Snapshot.self, row["engine"], "its engine state")
        engine.conditions = try Row.fetchAll(db, sql: """
            SELECT identifier, definition, initialState, addedAt, removed, audience FROM condition WHERE monitor = ? ORDER BY position
            """, arguments: [id]).map { row in
            let identifier: String = row["identifier"]
            // (Version 1 kept JSON text; version 2 writes a blob.)
            let condition: Condition
            switch (row["definition"] as DatabaseValue).storage {
            case .blob(let blob):
                do {
                    condition = try ConditionBlob.decode(Array(blob))
                } catch {
                    throw MonitorStoreError("monitor \(name): condition \(identifier) cannot be read: \(error)")
                }
            case .string(let text):
                condition = try decode(Condition.self, text, "condition \(identifier)")
            default:
                throw MonitorStoreError("monitor \(name): condition \(identifier) has no definition")
            }
            guard let initialState = ConditionState(rawValue: row["initialState"]) else {
                throw MonitorStoreError("monitor \(name): condition \(identifier) has no starting state")
            }
            let addedAt: Int64? = row["addedAt"]
            let audience: String? = row["audience"]
            return ConditionAddition(condition: condition, identifier: identifier, initialState: initialState,
                                     addedAt: addedAt.map { Timestamp(nanosecondsSinceEpoch: $0) }, isRemoved: row["removed"],
                                     audience: try audience.map { try decode(ConditionAudience.self, $0, "the devices of condition \(identifier)") }
                                        ?? .everyone)
        }
        engine.devices = try Row.fetchAll(db, sql: "SELECT name, state FROM device WHERE monitor = ? ORDER BY position",
                                          arguments: [id]).map { row in
            try decode(MonitoringEngine.Snapshot.DeviceSnapshot.self, row["state"], "device \(row["name"] as String)")
        }
        let lastEvents = try Row.fetchAll(db, sql: "SELECT device, identifier, event FROM lastEvent WHERE monitor = ?",
                                          arguments: [id]).map { row in
            try decode(Monitor.LastEvent.self, row["event"], "the last event of \(row["identifier"] as String) for \(row["device"] as String)")
        }
        return Monitor.Snapshot(policy: policy, engine: engine, lastEvents: lastEvents, recordCount: row["recordCount"])
    }

    /// `values` as JSON texts, encoded in chunks on every core.
    static func encodeInParallel<T: Encodable & Sendable>(_ values: [T]) throws -> [String] {
        let chunks = values.count >= 1024 ? ProcessInfo.processInfo.activeProcessorCount : 1
        let texts = Mutex([String](repeating: "", count: values.count))
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: chunks) { k in
            let encoder = JSONEncoder()
            let range = values.count * k / chunks ..< values.count * (k + 1) / chunks
            do {
                let chunk = try values[range].map { String(decoding: try encoder.encode($0), as: UTF8.self) }
                texts.withLock { $0.replaceSubrange(range, with: chunk) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return texts.withLock { $0 }
    }

    static func saveMonitor(_ snapshot: Monitor.Snapshot, named name: String, _ db: Database) throws {
        let encoder = JSONEncoder()
        func text<T: Encodable>(_ value: T) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        var rest = snapshot.engine
        rest.conditions = []
        rest.devices = []
        try db.execute(sql: """
            INSERT INTO monitor (name, policy, engine, recordCount) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET policy = excluded.policy, engine = excluded.engine, recordCount = excluded.recordCount
            """, arguments: [name, try text(snapshot.policy), try text(rest), snapshot.recordCount])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM monitor WHERE name = ?", arguments: [name])!

        // Conditions are only ever appended, and marked removed: the saved ones are kept as they are.
        // (Rows past the snapshot's own, had another snapshot been saved under the name, go.)
        try db.execute(sql: "DELETE FROM condition WHERE monitor = ? AND position >= ?", arguments: [id, snapshot.engine.conditions.count])
        try db.execute(sql: "DELETE FROM device WHERE monitor = ? AND position >= ?", arguments: [id, snapshot.engine.devices.count])
        let saved = try Bool.fetchAll(db, sql: "SELECT removed FROM condition WHERE monitor = ? ORDER BY position", arguments: [id])
        let update = try db.cachedStatement(sql: "UPDATE condition SET removed = ? WHERE monitor = ? AND position = ?")
        for (position, addition) in snapshot.engine.conditions.enumerated().prefix(saved.count) where addition.isRemoved != saved[position] {
            try update.execute(arguments: [addition.isRemoved, id, position])
        }
        let insertCondition = try db.cachedStatement(sql: """
            INSERT INTO condition (monitor, position, identifier, definition, initialState, addedAt, removed, audience)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (position, addition) in snapshot.engine.conditions.enumerated().dropFirst(saved.count) {
            try insertCondition.execute(arguments: [id, position, addition.identifier, Data(ConditionBlob.encode(addition.condition)),
                                                    addition.initialState.rawValue, addition.addedAt?.nanosecondsSinceEpoch,
                                                    addition.isRemoved, addition.audience.isEveryone ? nil : try text(addition.audience)])
        }

        // Devices are never removed either: each saved one is replaced, new ones appended. Their JSON,
        // most of a checkpoint's work, is made on every core first.
        let states = try encodeInParallel(snapshot.engine.devices)
        let upsertDevice = try db.cachedStatement(sql: """
            INSERT INTO device (monitor, position, name, state) VALUES (?, ?, ?, ?)
            ON CONFLICT (monitor, position) DO UPDATE SET name = excluded.name, state = excluded.state
            """)
        for (position, device) in snapshot.engine.devices.enumerated() {
            try upsertDevice.execute(arguments: [id, position, device.name, states[position]])
        }

        try db.execute(sql: "DELETE FROM lastEvent WHERE monitor = ?", arguments: [id])
        let insertEvent = try db.cachedStatement(sql: "INSERT INTO lastEvent (monitor, device, identifier, event) VALUES (?, ?, ?, ?)")
        for last in snapshot.lastEvents {
            try insertEvent.execute(arguments: [id, last.event.device, last.event.identifier, try text(last)])
        }
    }
}
