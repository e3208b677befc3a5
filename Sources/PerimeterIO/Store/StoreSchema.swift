internal import GRDB

/// The store file's tables, one migration per schema version: a file written by an older version
/// is brought up to date when opened, one written by a newer one is refused.
enum StoreSchema {
    /// `PRAGMA application_id` of a Perimeter store ("PRMT"): a SQLite file of another application
    /// is told apart from an empty one.
    static let applicationID: Int32 = 0x5052_4D54

    /// The schema version this build writes (`PRAGMA user_version`, and the migrations below).
    static let version = 3

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
        // Version 2: the tool's runs. How far each observations file was read (`input`), and the
        // unfinished run of a monitor with its staged outputs and their lengths at the last
        // checkpoint (`run`, `runOutput`), so that a run stopped at any moment goes on exactly.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE input (
                    monitor INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    offset INTEGER NOT NULL,
                    line INTEGER NOT NULL,
                    tail TEXT NOT NULL,
                    PRIMARY KEY (monitor, path)
                ) WITHOUT ROWID;
                CREATE TABLE run (
                    monitor INTEGER PRIMARY KEY REFERENCES monitor(id) ON DELETE CASCADE,
                    command TEXT NOT NULL,
                    input TEXT NOT NULL,
                    causeBase INTEGER NOT NULL,
                    committing INTEGER NOT NULL,
                    summary TEXT NOT NULL
                );
                CREATE TABLE runOutput (
                    monitor INTEGER NOT NULL REFERENCES run(monitor) ON DELETE CASCADE,
                    option TEXT NOT NULL,
                    target TEXT NOT NULL,
                    partial TEXT NOT NULL,
                    length INTEGER NOT NULL,
                    PRIMARY KEY (monitor, option)
                ) WITHOUT ROWID;
                PRAGMA user_version = 2;
                """)
        }
        // Version 3: conditions per device (SPEC §5.6): each condition's audience, as JSON; NULL for
        // every device (all conditions of older files).
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                ALTER TABLE condition ADD COLUMN audience TEXT;
                PRAGMA user_version = 3;
                """)
        }
        return migrator
    }
}
