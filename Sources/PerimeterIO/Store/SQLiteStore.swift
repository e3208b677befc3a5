#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import GRDB
import Perimeter
import Synchronization

/// Named monitors in one SQLite file (through GRDB): each monitor's conditions as added, every
/// device's state, its records' last events; WAL journal, versioned schema.
///
/// ```swift
/// let store = try SQLiteStore(path: "monitors.sqlite")
/// let monitor = try Monitor(name: "stores", store: store)
/// ```
///
/// One process at a time: the file stays locked while the store is open, and a second process (or a
/// second store on the same file) is told it is in use. A file that is not a Perimeter store — another
/// application's database, anything else, an empty or damaged file, a store of a newer schema — is
/// refused with its name and the reason, never overwritten or started afresh.
public final class SQLiteStore: MonitorStore {
    /// The file, as given.
    public let path: String
    let queue: DatabaseQueue

    /// The files this process has open as stores, by device and inode. A second store on one of them
    /// is refused before the file is touched: closing any descriptor of a file drops every POSIX lock
    /// the process holds on it, the first store's included.
    private static let openFiles = Mutex<Set<FileIdentity>>([])
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }
    /// This store's file, while it holds it.
    private let identity = Mutex<FileIdentity?>(nil)

    /// Opens the store at `path`, creating it when there is no file there.
    public init(path: String) throws(MonitorStoreError) {
        self.path = path
        var status = stat()
        if stat(path, &status) != 0 && errno == ENOENT {
            try Self.create(path)
        }
        guard stat(path, &status) == 0 else {
            throw MonitorStoreError("\(path): cannot open the store: \(String(cString: strerror(errno)))")
        }
        let file = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        guard Self.openFiles.withLock({ $0.insert(file).inserted }) else {
            throw MonitorStoreError("\(path): the store is in use by another store in this process; one at a time")
        }
        do {
            // A run killed while SQLite copied its journal into the file can leave the file shorter than
            // its header says, with every missing page still in the journal: SQLite finishes the copy on
            // opening, and the file's length is checked once that is done.
            let journaled = Self.journalHasFrames(path)
            try Self.checkFile(path, lengthIsFinal: !journaled)
            queue = try DatabaseQueue(path: path, configuration: Self.configuration)
            try Self.start(queue, path: path)
            if journaled {
                try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                try Self.checkFile(path, lengthIsFinal: true)
            }
        } catch {
            Self.forget(file)
            throw Self.problem(error, path: path, doing: "cannot open")
        }
        identity.withLock { $0 = file }
    }

    /// Held for as long as the store is open: the first write takes the lock, and another connection
    /// is refused at once rather than left waiting.
    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        return configuration
    }

    /// Takes the lock, checks the file, sets the journal and brings the schema up to date.
    private static func start(_ queue: DatabaseQueue, path: String) throws {
        try queue.writeWithoutTransaction { db in
            try prepare(db, path: path)
            // Only once the file is known to be a store: the journal mode is written into it.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try StoreSchema.migrator.migrate(queue)
    }

    /// Makes a new store at `path` whole or not at all: built beside it under a name of its own, then
    /// linked into place. SQLite would make the file at once and write it later, and a process killed
    /// in between would leave an empty file that no later run may take for a store.
    private static func create(_ path: String) throws(MonitorStoreError) {
        var template = Array((path + ".creating-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw MonitorStoreError("\(path): cannot create the store beside it: \(String(cString: strerror(errno)))")
        }
        let building = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(building + suffix) }
        }
        // (A new file's permissions, as SQLite would have made it; mkstemp makes it private.)
        let mask = umask(0)
        umask(mask)
        _ = fchmod(fd, 0o644 & ~mask)
        Glibc.close(fd)
        do {
            let queue = try DatabaseQueue(path: building, configuration: configuration)
            try start(queue, path: path)
            try queue.close()
        } catch {
            throw problem(error, path: path, doing: "cannot create")
        }
        // (A file that appeared at `path` meanwhile is left alone and opened, or refused, as any other.)
        guard link(building, path) == 0 || errno == EEXIST else {
            throw MonitorStoreError("\(path): cannot create the store: \(String(cString: strerror(errno)))")
        }
    }

    deinit { release() }

    private func release() {
        Self.forget(identity.withLock { value in defer { value = nil }; return value })
    }

    private static func forget(_ file: FileIdentity?) {
        guard let file else { return }
        _ = openFiles.withLock { $0.remove(file) }
    }

    /// Closes the file (and lets another process open it). Later calls fail; a store is closed too when
    /// it is released.
    public func close() throws(MonitorStoreError) {
        do {
            try queue.close()
            release()
        } catch {
            throw Self.problem(error, path: path, doing: "cannot close")
        }
    }

    /// Whether a write-ahead journal with at least one frame lies beside the file (its header alone is
    /// 32 bytes).
    private static func journalHasFrames(_ path: String) -> Bool {
        var status = stat()
        return stat(path + "-wal", &status) == 0 && status.st_size > 32
    }

    /// Refuses what SQLite must not be let near: a file that is not a regular file, an empty one
    /// (SQLite would make a new database of it silently), or one that is not a SQLite database; and,
    /// when `lengthIsFinal`, one shorter than its header says.
    private static func checkFile(_ path: String, lengthIsFinal: Bool) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            guard errno == ENOENT else { throw MonitorStoreError("\(path): cannot open the store: \(String(cString: strerror(errno)))") }
            return
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw MonitorStoreError("\(path): not a Perimeter store (not a regular file)") }
        guard status.st_size > 0 else {
            throw MonitorStoreError("\(path): not a Perimeter store (the file is empty); remove it to start a new store there")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw MonitorStoreError("\(path): cannot open the store: \(String(cString: strerror(errno)))") }
        defer { _ = Glibc.close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let n = read(fd, &header, 100)
        guard n == 100, header.prefix(16).elementsEqual("SQLite format 3\u{0}".utf8) else {
            throw MonitorStoreError("\(path): not a Perimeter store (not a SQLite database)")
        }
        // SQLite reads past the end of a file cut short as zeros, and its checks look at the tree, not at
        // every byte of the records: a file shorter than its header says is refused here.
        func bigEndian(_ range: Range<Int>) -> Int { header[range].reduce(0) { $0 << 8 | Int($1) } }
        let pageSize = bigEndian(16..<18) == 1 ? 65_536 : bigEndian(16..<18)
        let pages = bigEndian(28..<32)
        let sizeIsValid = pages > 0 && bigEndian(24..<28) == bigEndian(92..<96)
        if pageSize >= 512 && (Int(status.st_size) % pageSize != 0 || (lengthIsFinal && sizeIsValid && Int(status.st_size) < pages * pageSize)) {
            throw MonitorStoreError("\(path): the store is damaged: it is \(status.st_size) bytes long, and its header says \(sizeIsValid ? "\(pages) pages of \(pageSize) bytes" : "pages of \(pageSize) bytes")")
        }
    }

    /// Takes the lock, checks the file is a whole Perimeter store of a schema this build knows, and
    /// brings an older schema up to date.
    private static func prepare(_ db: Database, path: String) throws {
        // (An immediate transaction takes the write lock, which exclusive locking mode then keeps.)
        try db.inTransaction(.immediate) {
            let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
            let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            if tables > 0 && application != StoreSchema.applicationID {
                throw MonitorStoreError("\(path): not a Perimeter store (a SQLite database of another application)")
            }
            let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard check == ["ok"] else {
                throw MonitorStoreError("\(path): the store is damaged (SQLite: \(check.prefix(3).joined(separator: "; ")))")
            }
            let migrator = StoreSchema.migrator
            if try migrator.hasBeenSuperseded(db) {
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                throw MonitorStoreError("\(path): the store was written by a newer Perimeter (schema version \(version)); this one reads up to version \(StoreSchema.version)")
            }
            if tables == 0 { try db.execute(sql: "PRAGMA application_id = \(StoreSchema.applicationID)") }
            return .commit
        }
    }

    /// A store error naming the file for what SQLite (or decoding) reported.
    static func problem(_ error: any Error, path: String, doing what: String) -> MonitorStoreError {
        if let error = error as? MonitorStoreError { return error }
        guard let error = error as? DatabaseError else { return MonitorStoreError("\(path): \(what): \(error)") }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return MonitorStoreError("\(path): the store is in use by another process (or another store in this one); one at a time")
        case .SQLITE_NOTADB:
            return MonitorStoreError("\(path): not a Perimeter store (not a SQLite database, or damaged)")
        case .SQLITE_CORRUPT:
            return MonitorStoreError("\(path): the store is damaged (SQLite: \(error.message ?? "corrupt"))")
        default:
            return MonitorStoreError("\(path): \(what): \(error.message ?? "\(error.resultCode)")")
        }
    }
}
