internal import GRDB

/// The store file's tables, one migration per schema version: a file written by an older version
/// is brought up to date when opened, one written by a newer one is refused.
enum StoreSchema {
    /// `PRAGMA application_id` of a Perimeter store ("PRMT"): a SQLite file of another application
    /// is told apart from an empty one.
    static let applicationID: Int32 = 0x5052_4D54

    /// The schema version this build writes (`PRAGMA user_version`, and the migrations below).
    static let version = 1

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Version 1: named monitors, as the library's `Monitor` keeps them.
        migrator.registerMigration("v1") { db in
            // The engine's state apart from its conditions and devices (stream time, counters), and the
            // policy, as JSON.
            try db.execute(sql: """
                CREATE TABLE monitor (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    policy TEXT NOT NULL,
                    engine TEXT NOT NULL,
                    recordCount INTEGER NOT NULL
                );
                CREATE TABLE condition (
                    monitor INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    identifier TEXT NOT NULL,
                    definition TEXT NOT NULL,
                    initialState TEXT NOT NULL,
                    addedAt INTEGER,
                    removed INTEGER NOT NULL,
                    PRIMARY KEY (monitor, position)
                ) WITHOUT ROWID;
                CREATE TABLE device (
                    monitor INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    state TEXT NOT NULL,
                    PRIMARY KEY (monitor, position)
                ) WITHOUT ROWID;
                CREATE TABLE lastEvent (
                    monitor INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE,
                    device TEXT NOT NULL,
                    identifier TEXT NOT NULL,
                    event TEXT NOT NULL,
                    PRIMARY KEY (monitor, device, identifier)
                ) WITHOUT ROWID;
                PRAGMA user_version = 1;
                """)
        }
        return migrator
    }
}
