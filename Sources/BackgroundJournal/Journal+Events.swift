import Foundation
import GRDB

extension Journal {
    /// A session-level event (e.g. invalidation), returned with its seq.
    @discardableResult
    public func appendEvent(session: String, task: Int64?, kind: String, payload: Data) throws(JournalError) -> JournalEvent {
        try write("append a \(kind) event to session \(session)") { db in
            if try Self.session(db, session) == nil { throw JournalError("journal \(path): no session named \(session)") }
            return try Self.append(db, session: session, task: task, kind: kind, payload: payload)
        }
    }

    /// The session's events with a seq above `seq`, ascending.
    public func events(session: String, after seq: Int64) throws(JournalError) -> [JournalEvent] {
        try read("read events of session \(session)") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM event WHERE session = ? AND seq > ? ORDER BY seq",
                             arguments: [session, seq]).compactMap(JournalEvent.init(row:))
        }
    }

    /// The highest seq ever given out, 0 when none. Pruning does not lower it: a client that
    /// starts from it misses nothing later.
    public func lastSeq() throws(JournalError) -> Int64 {
        try read("read the last seq") { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
        }
    }

    /// Delivery bookmark per (session, client name): events a client has acknowledged. A
    /// bookmark only moves forward: a late, lower acknowledgement does not bring events back.
    public func markDelivered(session: String, client: String, through seq: Int64) throws(JournalError) {
        try write("mark events of session \(session) delivered to \(client)") { db in
            try db.execute(
                sql: """
                    INSERT INTO delivery (session, client, through) VALUES (?, ?, ?)
                    ON CONFLICT(session, client) DO UPDATE SET through = max(through, excluded.through)
                    """,
                arguments: [session, client, seq])
        }
    }

    /// The seq a client has acknowledged through, 0 when never.
    public func delivered(session: String, client: String) throws(JournalError) -> Int64 {
        try read("read the bookmark of \(client) in session \(session)") { db in
            try Int64.fetchOne(db, sql: "SELECT through FROM delivery WHERE session = ? AND client = ?",
                               arguments: [session, client]) ?? 0
        }
    }

    /// Deletes events every bookmark of the session is past, and all events of sessions
    /// invalidated and fully delivered; returns how many were deleted. A session no client has
    /// a bookmark in keeps all its events: nobody has been told them yet. (An invalidated
    /// session fully delivered is the first rule's case where every event is past.)
    /// `keepingAfter` holds, per session, the position of its least advanced live reader that
    /// has no bookmark (a CLI `wait`/`attach`): nothing after it goes.
    @discardableResult
    public func pruneDeliveredEvents(keepingAfter floors: [String: Int64] = [:]) throws(JournalError) -> Int {
        try write("prune delivered events") { db in
            var deleted = 0
            let followed = Array(floors.keys)
            let marks = followed.map { _ in "?" }.joined(separator: ", ")
            try db.execute(sql: """
                DELETE FROM event WHERE seq <= (SELECT min(through) FROM delivery WHERE delivery.session = event.session)
                """ + (followed.isEmpty ? "" : " AND session NOT IN (\(marks))"), arguments: StatementArguments(followed))
            deleted += db.changesCount
            for (session, floor) in floors {
                try db.execute(sql: """
                    DELETE FROM event WHERE session = ? AND seq <= ?
                        AND seq <= (SELECT min(through) FROM delivery WHERE delivery.session = event.session)
                    """, arguments: [session, floor])
                deleted += db.changesCount
            }
            return deleted
        }
    }

    /// Deletes the task's events of `kind` older than `seq` (a completion's picture of its
    /// task supersedes the task's earlier ones: DECISIONS 133), those at or below `floor`;
    /// returns how many.
    @discardableResult
    public func pruneEvents(session: String, task: Int64, kind: String, before seq: Int64,
                            through floor: () -> Int64 = { .max }) throws(JournalError) -> Int {
        try pruneEvents(session: session, kind: kind, supersededBy: [(task, seq)], through: floor)
    }

    /// Deletes, for each completion `(task, seq)`, the task's events of `kind` older than it,
    /// in one transaction, only those at or below `floor`: the position of the session's least
    /// advanced live follower (one that has not read an event yet still gets it). `floor` is
    /// asked inside the transaction, so a follower it misses registered after every event
    /// this can delete was written: one that connects later. Returns how many.
    @discardableResult
    public func pruneEvents(session: String, kind: String, supersededBy completions: [(task: Int64, seq: Int64)],
                            through floor: () -> Int64) throws(JournalError) -> Int {
        guard !completions.isEmpty else { return 0 }
        return try write("prune superseded events of session \(session)") { db in
            let floor = floor()
            let delete = try db.cachedStatement(sql: "DELETE FROM event WHERE session = ? AND task = ? AND kind = ? AND seq < ? AND seq <= ?")
            var deleted = 0
            for (task, seq) in completions {
                try delete.execute(arguments: [session, task, kind, seq, floor])
                deleted += db.changesCount
            }
            return deleted
        }
    }

    /// Deletes, at or below `floor` (asked inside the transaction, as `pruneEvents` does), the
    /// session's events of `kind` that a completed task's completion supersedes: every one of
    /// the task's but its last (a completed task is written no more, so its last is the
    /// completion). What a completion kept for a follower that left before reading it goes
    /// here. Returns how many.
    @discardableResult
    public func pruneSupersededEvents(session: String, kind: String,
                                      through floor: () -> Int64 = { .max }) throws(JournalError) -> Int {
        try write("prune superseded events of session \(session)") { db in
            try db.execute(sql: """
                DELETE FROM event WHERE seq IN (
                    SELECT e.seq FROM event e
                    JOIN task t ON t.session = e.session AND t.number = e.task AND t.state = ?
                    JOIN (SELECT task, max(seq) AS last FROM event WHERE session = ? AND kind = ? GROUP BY task) l
                        ON l.task = e.task
                    WHERE e.session = ? AND e.kind = ? AND e.seq < l.last AND e.seq <= ?)
                """, arguments: [JournalTaskState.completed.rawValue, session, kind, session, kind, floor()])
            return db.changesCount
        }
    }

    static func append(_ db: Database, session: String, task: Int64?, kind: String, payload: Data) throws -> JournalEvent {
        let created = Date.journalNow
        try db.execute(sql: "INSERT INTO event (session, task, kind, payload, created) VALUES (?, ?, ?, ?, ?)",
                       arguments: [session, task, kind, payload, created.journalMilliseconds])
        return JournalEvent(seq: db.lastInsertedRowID, session: session, task: task, kind: kind, payload: payload,
                            created: created)
    }
}
