import Foundation
import Synchronization
import Testing
@testable import Perimeter
@testable import PerimeterIO

/// What the store does with a file that is not a whole Perimeter store of a schema it knows, and with
/// a second opener: a clear error naming the file, never a crash, and the file left as it was.
@Suite struct StoreFileTests {
    /// Opening `path` fails with a message naming it and containing `reason`; the file is unchanged.
    func expectRefused(_ path: String, _ reason: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("\(path) (\(before.count) bytes) was opened")
        } catch {
            #expect(error.message.hasPrefix(path + ": "), "\(error.message)")
            #expect(reason.isEmpty || error.message.contains(reason), "\(error.message)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file was changed")
    }

    /// A small store with one monitor, closed.
    func store() async throws -> String {
        let path = Fixture.temporaryPath("store.sqlite")
        let store = try SQLiteStore(path: path)
        let monitor = try Monitor(name: "m", store: store)
        try await monitor.add(.circle(CircularGeographicCondition(center: MonitorStoreTests.shop, radius: 100)), identifier: "shop")
        for k in 0..<50 { try await monitor.process(MonitorStoreTests.fix(k, metresNorth: Double(k) * 10), device: "d\(k % 7)") }
        try await monitor.checkpoint()
        try store.close()
        return path
    }

    @Test func filesThatAreNotStoresAreRefused() throws {
        try expectRefused(Fixture.write("", named: "empty.sqlite"), "the file is empty")
        try expectRefused(Fixture.write("type,device,t\n", named: "text.sqlite"), "not a SQLite database")
        try expectRefused(Fixture.path("city/conditions.geojson"), "not a SQLite database")
        // Another application's SQLite database.
        let foreign = Fixture.temporaryPath("foreign.sqlite")
        try Self.sqlite(foreign, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hello')")
        try expectRefused(foreign, "a SQLite database of another application")
        let directory = Fixture.temporaryPath("directory.sqlite")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(throws: MonitorStoreError.self) { try SQLiteStore(path: directory) }
    }

    @Test func aTruncatedOrDamagedStoreIsRefused() async throws {
        let path = try await store()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(whole.count > 4096)
        for cut in [100, 4096, whole.count / 2, whole.count - 1] {
            let truncated = Fixture.temporaryPath("truncated.sqlite")
            try whole.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            try expectRefused(truncated, "")
        }
        // Garbage over the pages after the first.
        var damaged = whole
        for k in 4096..<damaged.count where k % 3 == 0 { damaged[k] = UInt8(truncatingIfNeeded: k * 7919) }
        let garbled = Fixture.temporaryPath("garbled.sqlite")
        try damaged.write(to: URL(fileURLWithPath: garbled))
        try expectRefused(garbled, "damaged")
    }

    /// A run killed while SQLite copies its journal into the file leaves the file's first page new and
    /// the pages after it not yet written: shorter than its header says, with every page still in the
    /// journal. That store opens, whole; the same file without its journal is refused.
    @Test func aStoreKilledWhileItsJournalWasCopiedOpens() async throws {
        let path = Fixture.temporaryPath("journaled.sqlite")
        let store = try SQLiteStore(path: path)
        let monitor = try Monitor(name: "m", store: store)
        try await monitor.add(.circle(CircularGeographicCondition(center: MonitorStoreTests.shop, radius: 100)), identifier: "shop")
        for k in 0..<3_000 { try await monitor.process(MonitorStoreTests.fix(k, metresNorth: Double(k % 40) * 10), device: "device \(k)") }
        try await monitor.checkpoint()
        // The file and its journal as they are before the store copies the journal in on closing.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let journal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        try store.close()
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after.count > before.count + 4096, "the journal should make the file grow (\(before.count) → \(after.count) bytes)")
        #expect(journal.count > 32)
        var killed = before
        killed.replaceSubrange(0..<4096, with: after.prefix(4096))
        let copy = Fixture.temporaryPath("killed.sqlite")
        try killed.write(to: URL(fileURLWithPath: copy))
        try expectRefused(copy, "the store is damaged")
        try journal.write(to: URL(fileURLWithPath: copy + "-wal"))
        let reopened = try SQLiteStore(path: copy)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let recovered = try encoder.encode(try #require(try reopened.loadMonitor(named: "m")))
        try reopened.close()
        let original = try SQLiteStore(path: path)
        #expect(try encoder.encode(try #require(try original.loadMonitor(named: "m"))) == recovered)
        try original.close()
    }

    /// Python's sqlite3 cannot read the file while the store holds it.
    func expectRefusedByAnotherProcess(_ path: String) throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import sqlite3, sys; sqlite3.connect(sys.argv[1], timeout=0).execute('SELECT count(*) FROM monitor').fetchall()",
                            path]
        python.standardError = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus != 0, "another process read the store while it was open")
    }

    @Test func aStoreOfANewerSchemaIsRefused() async throws {
        let path = try await store()
        try Self.sqlite(path, "INSERT INTO grdb_migrations (identifier) VALUES ('v999'); PRAGMA user_version = 999")
        try expectRefused(path, "written by a newer Perimeter (schema version 999)")
    }

    /// Runs `sql` on the SQLite file at `path` through another SQLite client (Python's), as another
    /// application (or a later Perimeter) would write it.
    static func sqlite(_ path: String, _ sql: String) throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
                            path, sql]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0, "python3's sqlite3 failed on \(path)")
    }

    @Test func oneStoreAtATimeOnAFile() async throws {
        let path = try await store()
        do {
            let first = try SQLiteStore(path: path)
            defer { try? first.close() }
            #expect(try first.monitorNames() == ["m"])
            #expect {
                try SQLiteStore(path: path)
            } throws: { error in
                (error as? MonitorStoreError)?.message.contains("in use by another store in this process") == true
            }
            // Another process is told too, and the file is left as it was.
            try expectRefusedByAnotherProcess(path)
        }
        // Closed, the file opens again.
        let again = try SQLiteStore(path: path)
        #expect(try again.monitorNames() == ["m"])
        try again.close()
    }

    /// A new store appears at its path whole: never as the empty file SQLite makes before its first
    /// write, which a run killed at that moment would leave for every later run to refuse. A thread
    /// watches each path while the store is made; nothing is left beside it.
    @Test func aNewStoreAppearsWhole() throws {
        let folder = Fixture.temporaryPath("creating")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let seenEmpty = Mutex(0), seenWhole = Mutex(0)
        for k in 0..<100 {
            let path = folder + "/store-\(k).sqlite"
            let done = Mutex(false)
            let watcher = Thread {
                var status = stat()
                while !done.withLock({ $0 }) {
                    if stat(path, &status) == 0 {
                        if status.st_size == 0 { seenEmpty.withLock { $0 += 1 } } else { seenWhole.withLock { $0 += 1 } }
                    }
                }
            }
            watcher.start()
            let store = try SQLiteStore(path: path)
            try store.close()
            done.withLock { $0 = true }
            while !watcher.isFinished { usleep(100) }
            _ = try SQLiteStore(path: path)
        }
        #expect(seenEmpty.withLock { $0 } == 0, "a store was seen empty at its path")
        #expect(seenWhole.withLock { $0 } > 0, "the watcher never saw a store")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names == (0..<100).map { "store-\($0).sqlite" }.sorted(), "\(names.filter { !$0.hasSuffix(".sqlite") })")
    }
}
