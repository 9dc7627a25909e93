import Foundation
import GRDB

extension Journal {
    /// One transaction adds the submission and one task per URL (state queued), numbered after
    /// the session's highest number so far; returns the numbers in order. The session must
    /// exist and not be invalidated (an invalidated session takes no new tasks, as URLSession's).
    public func addSubmission(session: String, options: Data, urls: [String]) throws(JournalError)
        -> (submission: Int64, tasks: [Int64])
    {
        try write("add a submission of \(urls.count) URLs to session \(session)") { db in
            guard let found = try Row.fetchOne(db, sql: "SELECT invalidated, last_task FROM session WHERE name = ?",
                                               arguments: [session]) else {
                throw JournalError("journal \(path): no session named \(session)")
            }
            // Read leniently (Row+Journal.swift): a hand-edited value must not trap.
            if found.lenient("invalidated", as: Bool.self) == true { throw JournalError("journal \(path): session \(session) is invalidated") }
            // An unreadable highest number is found again from the tasks (numbers are never reused).
            let last = try found.lenient("last_task", as: Int64.self)
                ?? Int64.fetchOne(db, sql: "SELECT MAX(number) FROM task WHERE session = ? AND typeof(number) = 'integer'",
                                  arguments: [session]) ?? 0
            guard last >= 0, last <= Int64.max - Int64(urls.count) else {
                throw JournalError("journal \(path): session \(session) has no task numbers left")
            }
            try db.execute(sql: "INSERT INTO submission (session, options, created) VALUES (?, ?, ?)",
                           arguments: [session, options, Date.journalNow.journalMilliseconds])
            let submission = db.lastInsertedRowID
            // One statement compiled once for all the URLs (10,000 in one call is ordinary).
            let insert = try db.makeStatement(sql: """
                INSERT INTO task (session, number, submission, url, state) VALUES (?, ?, ?, ?, 'queued')
                """)
            let numbers = urls.indices.map { last + 1 + Int64($0) }
            for (number, url) in zip(numbers, urls) {
                try insert.execute(arguments: [session, number, submission, url])
            }
            try db.execute(sql: "UPDATE session SET last_task = ? WHERE name = ?", arguments: [last + Int64(urls.count), session])
            return (submission, numbers)
        }
    }

    /// Submissions of one session, or of all when `session` is nil, by id.
    public func submissions(session: String?) throws(JournalError) -> [JournalSubmission] {
        try read("list submissions") { db in
            let rows = if let session {
                try Row.fetchAll(db, sql: "SELECT * FROM submission WHERE session = ? ORDER BY id", arguments: [session])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM submission ORDER BY id")
            }
            return rows.compactMap(JournalSubmission.init(row:))
        }
    }
}
