import Foundation
import GRDB

// Rows to values: the columns of JournalSchema, by name.

extension JournalSession {
    init(row: Row) {
        self.init(name: row["name"], created: Date(journalMilliseconds: row["created"]),
                  invalidated: row["invalidated"])
    }
}

extension JournalSubmission {
    init(row: Row) {
        self.init(id: row["id"], session: row["session"], options: row["options"],
                  created: Date(journalMilliseconds: row["created"]))
    }
}

extension JournalTask {
    init(row: Row) {
        // An unknown state word can only come from a newer build writing this file; reading
        // it as queued restarts the task rather than losing it.
        let state = JournalTaskState(rawValue: row["state"]) ?? .queued
        self.init(session: row["session"], number: row["number"], submission: row["submission"], url: row["url"],
                  state: state, statusCode: row["status_code"], error: row["error"], path: row["path"],
                  bytesReceived: row["bytes_received"], bytesExpected: row["bytes_expected"],
                  resumeData: row["resume_data"])
    }
}

extension JournalEvent {
    init(row: Row) {
        self.init(seq: row["seq"], session: row["session"], task: row["task"], kind: row["kind"],
                  payload: row["payload"], created: Date(journalMilliseconds: row["created"]))
    }
}
