import Foundation
import GRDB

/// The journal's tables, one GRDB migration per schema version.
///
/// Dates are INTEGER milliseconds since 1970-01-01 UTC: exact (a value read back equals the
/// value written, which text dates parsed through a calendar do not promise) and free of time
/// zones. `PRAGMA user_version` mirrors the schema version so that a newer transfertop's
/// journal is recognised as such even by tools that know nothing of GRDB's migration table.
enum JournalSchema {
    static let version = 1

    /// Indexes a schema version works without, made at every open when missing. Outside the
    /// migrations: a journal with them is still version 1, which an earlier build opens as
    /// before instead of taking it for a newer one and moving it aside.
    /// - `event_by_task`: a completion deletes its task's earlier events (DECISIONS 133); by
    ///   `event_by_session` alone each such delete read every earlier event of the session,
    ///   quadratic in a session's tasks.
    static let indexes = "CREATE INDEX IF NOT EXISTS event_by_task ON event(session, task, seq);"

    /// Tables a schema version works without, made at every open when missing, for the same
    /// reason: an earlier build opens the journal as before and ignores them.
    /// - `limits`: the live controls a user set on a session (task 0) or a task (DECISIONS
    ///   211). An earlier build runs the tasks without them, as it always did.
    static let optionalTables = """
        CREATE TABLE IF NOT EXISTS limits (
            session TEXT NOT NULL,
            task INTEGER NOT NULL,
            rate INTEGER,
            connections INTEGER,
            PRIMARY KEY (session, task)
        );
        """

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE session (
                    name TEXT PRIMARY KEY NOT NULL,
                    created INTEGER NOT NULL,
                    invalidated INTEGER NOT NULL DEFAULT 0,
                    -- The highest task number ever given out: numbers are never reused, even if
                    -- tasks are one day deleted.
                    last_task INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE submission (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    session TEXT NOT NULL REFERENCES session(name),
                    options BLOB NOT NULL,
                    created INTEGER NOT NULL
                );
                CREATE TABLE task (
                    session TEXT NOT NULL REFERENCES session(name),
                    number INTEGER NOT NULL,
                    submission INTEGER NOT NULL REFERENCES submission(id),
                    url TEXT NOT NULL,
                    state TEXT NOT NULL,
                    status_code INTEGER,
                    error TEXT,
                    path TEXT,
                    bytes_received INTEGER NOT NULL DEFAULT 0,
                    bytes_expected INTEGER,
                    resume_data BLOB
                );
                CREATE UNIQUE INDEX task_by_number ON task(session, number);
                -- AUTOINCREMENT: a seq is never handed out twice, even after pruning deleted
                -- the newest events, so a client's bookmark never hides a later event.
                CREATE TABLE event (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    session TEXT NOT NULL,
                    task INTEGER,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    created INTEGER NOT NULL
                );
                CREATE INDEX event_by_session ON event(session, seq);
                CREATE TABLE delivery (
                    session TEXT NOT NULL,
                    client TEXT NOT NULL,
                    through INTEGER NOT NULL,
                    PRIMARY KEY (session, client)
                );
                PRAGMA user_version = 1;
                """)
        }
        return migrator
    }

    /// Why the database is not a journal this build can use, or nil when it is one (or empty).
    /// Run before migrating: a newer or foreign schema must be moved aside, never altered.
    static func unreadableReason(_ db: Database) throws -> String? {
        let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
        if check != ["ok"] { return "damaged (\(check.first ?? "no answer from quick_check"))" }
        let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if userVersion > version { return "schema version \(userVersion), newer than this build's \(version)" }
        let hasMigrations = try db.tableExists("grdb_migrations")
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        if !hasMigrations && objects > 0 { return "a SQLite database that is not a transfertop journal" }
        if try migrator.hasBeenSuperseded(db) { return "written by a newer transfertop: migrations this build does not know" }
        return nil
    }
}

extension Date {
    /// Milliseconds since 1970 UTC, as stored.
    var journalMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(journalMilliseconds ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }

    /// Now, at the precision the journal stores, so a returned value equals what is read back.
    static var journalNow: Date { Date(journalMilliseconds: Date().journalMilliseconds) }
}
