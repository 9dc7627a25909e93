import Foundation
import GRDB

// Rows to values: the columns of JournalSchema, by name.
//
// SQLite keeps any value in any column, and GRDB's row subscript traps on one it cannot
// convert: a journal edited by hand (or by a foreign writer) stopped the daemon at every start.
// So each column is read leniently: a value of the wrong type reads as absent, a row whose
// identity (its session's name, its number) cannot be read is left out of what is listed, and
// the file itself is never changed by reading it.

extension Row {
    /// The column's value; nil when it is NULL, missing or not convertible to `T`.
    func lenient<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) -> T? {
        (try? decode(T?.self, forColumn: column)) ?? nil
    }
}

extension JournalSession {
    init?(row: Row) {
        guard let name = row.lenient("name", as: String.self) else { return nil }
        self.init(name: name, created: Date(journalMilliseconds: row.lenient("created") ?? 0),
                  invalidated: row.lenient("invalidated") ?? false)
    }
}

extension JournalSubmission {
    init?(row: Row) {
        guard let id = row.lenient("id", as: Int64.self), let session = row.lenient("session", as: String.self) else { return nil }
        self.init(id: id, session: session, options: row.lenient("options") ?? Data(),
                  created: Date(journalMilliseconds: row.lenient("created") ?? 0))
    }
}

extension JournalTask {
    init?(row: Row) {
        guard let session = row.lenient("session", as: String.self), let number = row.lenient("number", as: Int64.self),
              let url = row.lenient("url", as: String.self) else { return nil }
        // An unknown state word can only come from a newer build writing this file; reading
        // it as queued restarts the task rather than losing it.
        let state = row.lenient("state", as: String.self).flatMap(JournalTaskState.init(rawValue:)) ?? .queued
        self.init(session: session, number: number, submission: row.lenient("submission") ?? 0, url: url,
                  state: state, statusCode: row.lenient("status_code"), error: row.lenient("error"), path: row.lenient("path"),
                  bytesReceived: row.lenient("bytes_received") ?? 0, bytesExpected: row.lenient("bytes_expected"),
                  resumeData: row.lenient("resume_data"))
    }
}

extension JournalEvent {
    init?(row: Row) {
        guard let seq = row.lenient("seq", as: Int64.self), let session = row.lenient("session", as: String.self) else { return nil }
        self.init(seq: seq, session: session, task: row.lenient("task"), kind: row.lenient("kind") ?? "",
                  payload: row.lenient("payload") ?? Data(), created: Date(journalMilliseconds: row.lenient("created") ?? 0))
    }
}
