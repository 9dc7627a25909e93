import Foundation
import GRDB
import Testing
import TestSupport
@testable import BackgroundJournal

/// Sessions, submissions and tasks: what the daemon writes and finds again after a restart.
@Suite struct JournalContentTests {
    @Test func aReopenedJournalHoldsEverything() throws {
        let path = try journalPath()
        let before: ([JournalSession], [JournalSubmission], [JournalTask], [JournalEvent])
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("b")
            try journal.ensureSession("a")
            _ = try journal.addSubmission(session: "a", options: json(#"{"retries":2}"#), urls: ["https://x/1", "https://x/2"])
            try journal.record(session: "a", task: 2, state: .completed, statusCode: 200, path: "/tmp/2",
                               event: "completed", payload: json(#"{"ok":true}"#))
            try journal.checkpointProgress([(session: "a", task: 1, received: 10, expected: 100)])
            try journal.invalidateSession("b")
            try journal.appendEvent(session: "b", task: nil, kind: "invalidated", payload: json("{}"))
            try journal.markDelivered(session: "a", client: "cli-1", through: 1)
            before = (try journal.sessions(), try journal.submissions(session: nil), try journal.tasks(session: nil),
                      try journal.events(session: "a", after: 0) + journal.events(session: "b", after: 0))
            try journal.close()
        }
        let journal = try openJournal(path)
        #expect(try journal.sessions() == before.0)
        #expect(before.0.map(\.name) == ["a", "b"] && before.0.map(\.invalidated) == [false, true])
        #expect(try journal.submissions(session: nil) == before.1)
        #expect(try journal.tasks(session: nil) == before.2)
        #expect(try journal.events(session: "a", after: 0) + journal.events(session: "b", after: 0) == before.3)
        #expect(try journal.delivered(session: "a", client: "cli-1") == 1)
        #expect(try journal.lastSeq() == 2)
    }

    /// SQLite keeps a value of any type in any column: a hand edit that put text where a number
    /// belongs is read as no value, and a row whose identity cannot be read is left out, never
    /// a trap (GRDB's row subscript traps on a value it cannot convert). The file is unchanged.
    @Test func valuesOfTheWrongTypeReadAsAbsent() throws {
        let path = try journalPath()
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("a")
            _ = try journal.addSubmission(session: "a", options: json("{}"), urls: ["https://x/1", "https://x/2", "https://x/3"])
            try journal.record(session: "a", task: 1, state: .completed, statusCode: 200, path: "/tmp/1",
                               event: "completed", payload: json("{}"))
            try journal.setRateLimit(session: "a", task: 2, 500)
            try journal.close()
        }
        let edit = try DatabaseQueue(path: path)
        try edit.write { db in
            try db.execute(sql: "UPDATE task SET status_code = 'x', bytes_received = 'many', bytes_expected = X'00' WHERE number = 1")
            try db.execute(sql: "UPDATE task SET number = 'two' WHERE number = 2")
            try db.execute(sql: "UPDATE session SET created = 'yesterday', invalidated = 'no'")
            try db.execute(sql: "UPDATE limits SET rate = 'fast'")
            try db.execute(sql: "UPDATE submission SET created = 'now'")
        }
        let journal = try openJournal(path)
        let tasks = try journal.tasks(session: "a")
        #expect(tasks.map(\.number) == [1, 3], "the row whose number is text is left out")
        #expect(tasks[0].statusCode == nil && tasks[0].bytesReceived == 0 && tasks[0].bytesExpected == nil)
        #expect(tasks[0].state == .completed && tasks[0].path == "/tmp/1")
        #expect(try journal.task(session: "a", number: 1)?.url == "https://x/1")
        #expect(try journal.sessions().map(\.name) == ["a"])
        #expect(try journal.submissions(session: "a").count == 1)
        #expect(try journal.limits()["a"]?.taskRates.isEmpty ?? true)
        // A new submission: the session's edited flags read leniently, numbers go on after the
        // highest one there is.
        try edit.write { db in try db.execute(sql: "UPDATE session SET last_task = 'many'") }
        #expect(try journal.addSubmission(session: "a", options: json("{}"), urls: ["https://x/4"]).tasks == [4])
    }

    @Test func aRecordedStateIsCommittedBeforeRecordReturns() throws {
        let path = try journalPath()
        let journal = try openJournal(path)
        try journal.ensureSession("s")
        _ = try journal.addSubmission(session: "s", options: json("{}"), urls: ["https://x/1"])
        let other = try otherConnection(path)
        let event = try journal.record(session: "s", task: 1, state: .running, event: "state", payload: json(#"{"s":"running"}"#))
        let (state, seq) = try other.read { db in
            (try String.fetchOne(db, sql: "SELECT state FROM task WHERE session = 's' AND number = 1"),
             try Int64.fetchOne(db, sql: "SELECT max(seq) FROM event"))
        }
        #expect(state == "running")
        #expect(seq == event.seq)
        // And through a second journal, as a second daemon or `transfertop status` opens it.
        #expect(try openJournal(path).task(session: "s", number: 1)?.state == .running)
    }

    @Test func numbersContinueAcrossSubmissionsAndReopens() throws {
        let path = try journalPath()
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("s")
            try journal.ensureSession("t")
            let first = try journal.addSubmission(session: "s", options: json("{}"), urls: ["u1", "u2", "u3"])
            let other = try journal.addSubmission(session: "t", options: json("{}"), urls: ["v1"])
            let second = try journal.addSubmission(session: "s", options: json("{}"), urls: ["u4", "u5"])
            #expect(first.tasks == [1, 2, 3] && second.tasks == [4, 5] && other.tasks == [1])
            #expect(second.submission > first.submission)
            #expect(try journal.addSubmission(session: "s", options: json("{}"), urls: []).tasks == [])
            try journal.close()
        }
        let journal = try openJournal(path)
        #expect(try journal.addSubmission(session: "s", options: json("{}"), urls: ["u6"]).tasks == [6])
        let tasks = try journal.tasks(session: "s")
        #expect(tasks.map(\.number) == [1, 2, 3, 4, 5, 6])
        #expect(tasks.map(\.url) == ["u1", "u2", "u3", "u4", "u5", "u6"])
        #expect(tasks.allSatisfy { $0.state == .queued && $0.bytesReceived == 0 && $0.bytesExpected == nil })
        #expect(try journal.submissions(session: "t").count == 1)
        #expect(try journal.submissions(session: nil).map(\.id) == [1, 2, 3, 4, 5])
    }

    @Test func tenThousandURLsInOneSubmission() throws {
        let journal = try openJournal(try journalPath())
        try journal.ensureSession("big")
        let urls = (1...10_000).map { "https://example.com/file\($0)" }
        let added = try journal.addSubmission(session: "big", options: json("{}"), urls: urls)
        #expect(added.tasks == Array(1...10_000))
        let tasks = try journal.tasks(session: "big")
        #expect(tasks.map(\.number) == Array(1...10_000))
        #expect(tasks.map(\.url) == urls)
        #expect(tasks.allSatisfy { $0.submission == added.submission })
    }

    @Test func recordSetsOnlyTheGivenFields() throws {
        let journal = try openJournal(try journalPath())
        try journal.ensureSession("s")
        _ = try journal.addSubmission(session: "s", options: json("{}"), urls: ["https://x/1"])
        let resume = Data([1, 2, 3, 0, 255])
        try journal.record(session: "s", task: 1, state: .suspended, statusCode: 206, resumeData: resume,
                           event: "state", payload: json("{}"))
        try journal.record(session: "s", task: 1, state: .running, event: "state", payload: json("{}"))
        var task = try #require(try journal.task(session: "s", number: 1))
        #expect(task.state == .running && task.statusCode == 206 && task.resumeData == resume)
        try journal.record(session: "s", task: 1, state: .completed, error: "timed out", path: "/d/1",
                           clearResumeData: true, event: "completed", payload: json("{}"))
        task = try #require(try journal.task(session: "s", number: 1))
        #expect(task == JournalTask(session: "s", number: 1, submission: 1, url: "https://x/1", state: .completed,
                                    statusCode: 206, error: "timed out", path: "/d/1"))
        #expect(try journal.task(session: "s", number: 2) == nil)
    }

    @Test func progressIsCheckpointedInBatches() throws {
        let journal = try openJournal(try journalPath())
        try journal.ensureSession("s")
        _ = try journal.addSubmission(session: "s", options: json("{}"), urls: ["a", "b"])
        try journal.checkpointProgress([(session: "s", task: 1, received: 5, expected: 50),
                                        (session: "s", task: 2, received: 7, expected: nil),
                                        (session: "s", task: 99, received: 1, expected: 1)])
        let tasks = try journal.tasks(session: "s")
        #expect(tasks.map(\.bytesReceived) == [5, 7] && tasks.map(\.bytesExpected) == [50, nil])
        #expect(try journal.lastSeq() == 0, "progress makes no events")
        try journal.checkpointProgress([])
    }

    @Test func sessionsAreRevivedAndUnknownOnesRefused() throws {
        let journal = try openJournal(try journalPath())
        let created = try journal.ensureSession("s")
        #expect(!created.invalidated)
        try journal.invalidateSession("s")
        #expect(try journal.sessions() == [JournalSession(name: "s", created: created.created, invalidated: true)])
        #expect(throws: JournalError.self) { try journal.addSubmission(session: "s", options: json("{}"), urls: ["a"]) }
        #expect(try journal.ensureSession("s") == created, "revived, still created when first made")
        #expect(throws: JournalError.self) { try journal.addSubmission(session: "nope", options: json("{}"), urls: ["a"]) }
        #expect(throws: JournalError.self) { try journal.invalidateSession("nope") }
        #expect(throws: JournalError.self) { try journal.appendEvent(session: "nope", task: nil, kind: "x", payload: Data()) }
        let error = #expect(throws: JournalError.self) {
            try journal.record(session: "s", task: 1, state: .running, event: "state", payload: Data())
        }
        #expect(error?.message == "journal \(journal.path): no task 1 in session s")
        #expect(try journal.lastSeq() == 0, "a refused record appends no event")
    }
}
