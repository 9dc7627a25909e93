import Foundation
import GRDB

/// A background session's live controls as the user set them (`control NAME limit`,
/// `connections`, the monitor's `l`, `L`, `+`, `-`): kept so that a restarted daemon runs
/// its tasks within them again (DECISIONS 211).
public struct JournalLimits: Sendable, Equatable {
    /// The session's rate in bytes per second; nil when never set, 0 for none.
    public var sessionRate: Int64?
    /// Connections per host for the session's transfers; nil when never set.
    public var connectionsPerHost: Int?
    /// Per task number, the task's own rate (0: none).
    public var taskRates: [Int64: Int64]

    public init(sessionRate: Int64? = nil, connectionsPerHost: Int? = nil, taskRates: [Int64: Int64] = [:]) {
        self.sessionRate = sessionRate
        self.connectionsPerHost = connectionsPerHost
        self.taskRates = taskRates
    }
}

extension Journal {
    // Each write makes the table when the open could not (it is optional there): a limit a
    // user sets is kept whenever the journal can be written at all.

    /// Keeps the session's rate (`task` nil) or one task's.
    public func setRateLimit(session: String, task: Int64?, _ rate: Int64) throws(JournalError) {
        try write("keep the rate limit of \(session)\(task.map { ":\($0)" } ?? "")") { db in
            try db.execute(sql: JournalSchema.optionalTables)
            try db.execute(sql: """
                INSERT INTO limits (session, task, rate) VALUES (?, ?, ?)
                ON CONFLICT(session, task) DO UPDATE SET rate = excluded.rate
                """, arguments: [session, task ?? 0, rate])
        }
    }

    /// Keeps the session's connections per host.
    public func setConnectionsPerHost(session: String, _ n: Int) throws(JournalError) {
        try write("keep the connections per host of \(session)") { db in
            try db.execute(sql: JournalSchema.optionalTables)
            try db.execute(sql: """
                INSERT INTO limits (session, task, connections) VALUES (?, 0, ?)
                ON CONFLICT(session, task) DO UPDATE SET connections = excluded.connections
                """, arguments: [session, n])
        }
    }

    /// Every session's kept limits, by name (sessions without any are absent).
    public func limits() throws(JournalError) -> [String: JournalLimits] {
        try read("read the kept limits") { db in
            var all: [String: JournalLimits] = [:]
            // Not made at open (a full disk, a busy lock): nothing was kept.
            guard try Self.hasLimitsTable(db) else { return all }
            for row in try Row.fetchAll(db, sql: "SELECT session, task, rate, connections FROM limits") {
                guard let session = row.lenient("session", as: String.self), let task = row.lenient("task", as: Int64.self) else { continue }
                let rate = row.lenient("rate", as: Int64.self)
                if task == 0 {
                    all[session, default: JournalLimits()].sessionRate = rate
                    all[session, default: JournalLimits()].connectionsPerHost = row.lenient("connections")
                } else if let rate {
                    all[session, default: JournalLimits()].taskRates[task] = rate
                }
            }
            return all
        }
    }

    /// Forgets a session's limits (an invalidated session's: one made again under its name is
    /// new). Nothing to do, and nothing written, when the table was never made.
    public func dropLimits(session: String) throws(JournalError) {
        try write("forget the limits of \(session)") { db in try Self.dropLimits(db, session: session) }
    }

    static func dropLimits(_ db: Database, session: String) throws {
        guard try hasLimitsTable(db) else { return }
        try db.execute(sql: "DELETE FROM limits WHERE session = ?", arguments: [session])
    }

    /// Asked of SQLite, not of GRDB's schema cache, which another connection's change does not
    /// reach.
    static func hasLimitsTable(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'limits'") == true
    }
}
