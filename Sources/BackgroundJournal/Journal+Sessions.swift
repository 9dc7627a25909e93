import Foundation
import GRDB

extension Journal {
    /// Creates the session if absent; re-creating an invalidated one revives it (invalidated=false). Returns it.
    @discardableResult
    public func ensureSession(_ name: String) throws(JournalError) -> JournalSession {
        try write("ensure session \(name)") { db in
            try db.execute(
                sql: """
                    INSERT INTO session (name, created) VALUES (?, ?)
                    ON CONFLICT(name) DO UPDATE SET invalidated = 0
                    """,
                arguments: [name, Date.journalNow.journalMilliseconds])
            return try Self.session(db, name)!
        }
    }

    /// All sessions, by name.
    public func sessions() throws(JournalError) -> [JournalSession] {
        try read("list sessions") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM session ORDER BY name").compactMap(JournalSession.init(row:))
        }
    }

    /// Marks the session invalidated; its tasks, events and bookmarks stay until pruned. Its
    /// kept limits go: a session made again under the name is a new one (DECISIONS 211).
    public func invalidateSession(_ name: String) throws(JournalError) {
        try write("invalidate session \(name)") { db in
            try db.execute(sql: "UPDATE session SET invalidated = 1 WHERE name = ?", arguments: [name])
            if db.changesCount == 0 { throw JournalError("journal \(path): no session named \(name)") }
            try Self.dropLimits(db, session: name)
        }
    }

    static func session(_ db: Database, _ name: String) throws -> JournalSession? {
        try Row.fetchOne(db, sql: "SELECT * FROM session WHERE name = ?", arguments: [name]).flatMap(JournalSession.init(row:))
    }
}
