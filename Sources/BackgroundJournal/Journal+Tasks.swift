import Foundation
import GRDB

extension Journal {
    /// Tasks of one session, or of all when `session` is nil; by session, then number.
    public func tasks(session: String?) throws(JournalError) -> [JournalTask] {
        try read("list tasks") { db in
            let rows = if let session {
                try Row.fetchAll(db, sql: "SELECT * FROM task WHERE session = ? ORDER BY number", arguments: [session])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM task ORDER BY session, number")
            }
            return rows.compactMap(JournalTask.init(row:))
        }
    }

    /// Names of the sessions with a task not completed (the monitor's watch lists an
    /// invalidated session only while one of its tasks is unfinished).
    public func sessionsWithUnfinishedTasks() throws(JournalError) -> Set<String> {
        try read("list sessions with unfinished tasks") { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT session FROM task WHERE state != 'completed'"))
        }
    }

    public func task(session: String, number: Int64) throws(JournalError) -> JournalTask? {
        try read("read task \(session)/\(number)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM task WHERE session = ? AND number = ?", arguments: [session, number])
                .flatMap(JournalTask.init(row:))
        }
    }

    /// A state change and its event in ONE transaction (committed before it returns: the caller
    /// acknowledges only after). Updates state and the given fields (nil leaves a field as is,
    /// except `resumeData` which `clearResumeData` clears), appends the event, returns it.
    @discardableResult
    public func record(session: String, task: Int64, state: JournalTaskState, statusCode: Int? = nil, error: String? = nil,
                       path: String? = nil, resumeData: Data? = nil, clearResumeData: Bool = false,
                       event kind: String, payload: Data) throws(JournalError) -> JournalEvent
    {
        try write("record \(state.rawValue) of task \(session)/\(task)") { db in
            // COALESCE(?, column): a nil argument keeps what is there.
            try db.execute(
                sql: """
                    UPDATE task SET state = ?, status_code = COALESCE(?, status_code), error = COALESCE(?, error),
                        path = COALESCE(?, path),
                        resume_data = CASE WHEN ? THEN NULL ELSE COALESCE(?, resume_data) END
                    WHERE session = ? AND number = ?
                    """,
                arguments: [state.rawValue, statusCode, error, path, clearResumeData, resumeData, session, task])
            if db.changesCount == 0 { throw JournalError("journal \(self.path): no task \(task) in session \(session)") }
            return try Self.append(db, session: session, task: task, kind: kind, payload: payload)
        }
    }

    /// Progress in batches (the caller calls it about once a second with every changed task),
    /// one transaction, no events. Updates for tasks the journal does not hold are ignored:
    /// progress is a checkpoint, not a fact a client waits for.
    public func checkpointProgress(_ updates: [(session: String, task: Int64, received: Int64, expected: Int64?)])
        throws(JournalError)
    {
        if updates.isEmpty { return }
        try write("checkpoint progress of \(updates.count) tasks") { db in
            let update = try db.makeStatement(sql: """
                UPDATE task SET bytes_received = ?, bytes_expected = ? WHERE session = ? AND number = ?
                """)
            for u in updates {
                try update.execute(arguments: [u.received, u.expected, u.session, u.task])
            }
        }
    }
}
