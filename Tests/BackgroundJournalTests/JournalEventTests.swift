import Foundation
import Testing
import TestSupport
@testable import BackgroundJournal

/// Events, delivery bookmarks and pruning: what a reattaching client is told.
@Suite struct JournalEventTests {
    /// Sessions a (tasks 1, 2) and b (task 1), events interleaved: a1 b1 a2 a3 b2.
    private func journalWithEvents() throws -> (Journal, [JournalEvent]) {
        let journal = try openJournal(try journalPath())
        try journal.ensureSession("a")
        try journal.ensureSession("b")
        _ = try journal.addSubmission(session: "a", options: json("{}"), urls: ["1", "2"])
        _ = try journal.addSubmission(session: "b", options: json("{}"), urls: ["1"])
        let events = [
            try journal.record(session: "a", task: 1, state: .running, event: "state", payload: json(#"{"n":1}"#)),
            try journal.record(session: "b", task: 1, state: .running, event: "state", payload: json(#"{"n":2}"#)),
            try journal.record(session: "a", task: 2, state: .completed, event: "completed", payload: json(#"{"n":3}"#)),
            try journal.appendEvent(session: "a", task: nil, kind: "note", payload: Data()),
            try journal.appendEvent(session: "b", task: nil, kind: "invalidated", payload: json(#"{"n":5}"#)),
        ]
        return (journal, events)
    }

    @Test func eventsAscendGloballyAndReadBackAfterASeq() throws {
        let (journal, events) = try journalWithEvents()
        #expect(events.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(events.map(\.task) == [1, 1, 2, nil, nil])
        #expect(try journal.events(session: "a", after: 0) == [events[0], events[2], events[3]])
        #expect(try journal.events(session: "a", after: 1) == [events[2], events[3]])
        #expect(try journal.events(session: "a", after: 4) == [])
        #expect(try journal.events(session: "b", after: 0) == [events[1], events[4]])
        #expect(try journal.lastSeq() == 5)
        #expect(events[3].payload == Data(), "an empty payload reads back empty")
    }

    @Test func bookmarksArePerClientAndOnlyMoveForward() throws {
        let (journal, _) = try journalWithEvents()
        #expect(try journal.delivered(session: "a", client: "one") == 0)
        try journal.markDelivered(session: "a", client: "one", through: 3)
        try journal.markDelivered(session: "a", client: "two", through: 1)
        try journal.markDelivered(session: "a", client: "one", through: 2)
        #expect(try journal.delivered(session: "a", client: "one") == 3)
        #expect(try journal.delivered(session: "a", client: "two") == 1)
        #expect(try journal.delivered(session: "b", client: "one") == 0)
    }

    @Test func pruningKeepsWhatSomeClientHasNotAcknowledged() throws {
        let (journal, events) = try journalWithEvents()
        #expect(try journal.pruneDeliveredEvents() == 0, "no bookmarks: nobody has been told anything")
        try journal.markDelivered(session: "a", client: "one", through: 4)
        try journal.markDelivered(session: "a", client: "two", through: 1)
        #expect(try journal.pruneDeliveredEvents() == 1)
        #expect(try journal.events(session: "a", after: 0) == [events[2], events[3]])
        try journal.markDelivered(session: "a", client: "two", through: 3)
        #expect(try journal.pruneDeliveredEvents() == 1)
        #expect(try journal.events(session: "a", after: 0) == [events[3]])
        #expect(try journal.events(session: "b", after: 0).count == 2)
    }

    /// Review finding 5: a live reader without a bookmark (a CLI `wait` on the session) keeps
    /// what it has not read, whatever the bookmarks say; other sessions prune as before.
    @Test func pruningKeepsWhatALiveFollowerHasNotRead() throws {
        let (journal, events) = try journalWithEvents()
        try journal.markDelivered(session: "a", client: "one", through: 4)
        try journal.markDelivered(session: "b", client: "one", through: 5)
        #expect(try journal.pruneDeliveredEvents(keepingAfter: ["a": 1]) == 3, "a's first and b's two")
        #expect(try journal.events(session: "a", after: 0) == [events[2], events[3]])
        #expect(try journal.events(session: "b", after: 0) == [])
        #expect(try journal.pruneDeliveredEvents() == 2)
        #expect(try journal.events(session: "a", after: 0) == [])
    }

    @Test func anInvalidatedSessionFullyDeliveredLosesAllItsEvents() throws {
        let (journal, _) = try journalWithEvents()
        try journal.invalidateSession("b")
        try journal.markDelivered(session: "b", client: "one", through: 2)
        #expect(try journal.pruneDeliveredEvents() == 1, "seq 5 not yet delivered")
        try journal.markDelivered(session: "b", client: "one", through: 5)
        #expect(try journal.pruneDeliveredEvents() == 1)
        #expect(try journal.events(session: "b", after: 0) == [])
        #expect(try journal.events(session: "a", after: 0).count == 3)
    }

    @Test func seqsAreNeverReusedAfterPruning() throws {
        let (journal, _) = try journalWithEvents()
        for session in ["a", "b"] { try journal.markDelivered(session: session, client: "c", through: 5) }
        #expect(try journal.pruneDeliveredEvents() == 5)
        #expect(try journal.lastSeq() == 5)
        let next = try journal.appendEvent(session: "a", task: nil, kind: "note", payload: Data())
        #expect(next.seq == 6)
        #expect(try journal.events(session: "a", after: journal.delivered(session: "a", client: "c")) == [next])
    }

    /// DECISIONS 133: a task's completion supersedes its earlier events of the same kind; other
    /// tasks, other kinds and other sessions keep theirs.
    @Test func aCompletionPrunesOnlyItsOwnTasksEarlierEventsOfItsKind() throws {
        let (journal, events) = try journalWithEvents()
        let suspended = try journal.record(session: "a", task: 1, state: .suspended, event: "state", payload: json(#"{"n":6}"#))
        let done = try journal.record(session: "a", task: 1, state: .completed, event: "state", payload: json(#"{"n":7}"#))
        #expect(try journal.pruneEvents(session: "a", task: 1, kind: "state", before: done.seq) == 2)
        #expect(try journal.events(session: "a", after: 0) == [events[2], events[3], done])
        #expect(try journal.events(session: "b", after: 0) == [events[1], events[4]])
        #expect(!(try journal.events(session: "a", after: 0)).contains(suspended))
        #expect(try journal.pruneEvents(session: "a", task: 1, kind: "state", before: done.seq) == 0)
    }

    /// A completion's prune stops at a live follower's position (what it has not read stays);
    /// the session's sweep takes the rest once the follower is past it or gone, and keeps
    /// unfinished tasks' events, each completed task's last one, and other sessions' events.
    @Test func aPruneStopsAtTheFollowersPositionAndTheSweepTakesTheRestLater() throws {
        let (journal, events) = try journalWithEvents()
        _ = try journal.addSubmission(session: "a", options: json("{}"), urls: ["3"])
        let suspended = try journal.record(session: "a", task: 1, state: .suspended, event: "state", payload: json(#"{"n":6}"#))
        let done = try journal.record(session: "a", task: 1, state: .completed, event: "state", payload: json(#"{"n":7}"#))
        let running3 = try journal.record(session: "a", task: 3, state: .running, event: "state", payload: json(#"{"n":8}"#))
        let suspended3 = try journal.record(session: "a", task: 3, state: .suspended, event: "state", payload: json(#"{"n":9}"#))
        // Session b's task 1 completes too, its running event (events[1]) kept so far.
        let doneB = try journal.record(session: "b", task: 1, state: .completed, event: "state", payload: json(#"{"n":10}"#))
        // A follower has read through seq 1: task 1's running event goes, its suspension stays.
        #expect(try journal.pruneEvents(session: "a", task: 1, kind: "state", before: done.seq, through: { events[0].seq }) == 1)
        #expect(try journal.events(session: "a", after: 0) == [events[2], events[3], suspended, done, running3, suspended3])
        #expect(try journal.pruneSupersededEvents(session: "a", kind: "state", through: { suspended.seq - 1 }) == 0)
        #expect(try journal.pruneSupersededEvents(session: "a", kind: "state", through: { suspended.seq }) == 1)
        #expect(try journal.events(session: "a", after: 0) == [events[2], events[3], done, running3, suspended3])
        #expect(try journal.pruneSupersededEvents(session: "a", kind: "state") == 0)
        #expect(try journal.events(session: "b", after: 0) == [events[1], events[4], doneB], "another session's events are its own")
        #expect(try journal.pruneSupersededEvents(session: "b", kind: "state") == 1)
        #expect(try journal.events(session: "b", after: 0) == [events[4], doneB])
    }

    /// Several completions read in one batch prune together, each only its own task's earlier
    /// events; a retried task keeps its second run's events until its second completion.
    @Test func completionsReadTogetherPruneTheirOwnTasks() throws {
        let journal = try openJournal(try journalPath())
        try journal.ensureSession("a")
        _ = try journal.addSubmission(session: "a", options: json("{}"), urls: ["1", "2", "3"])
        let r1 = try journal.record(session: "a", task: 1, state: .running, event: "state", payload: json("{}"))
        let r2 = try journal.record(session: "a", task: 2, state: .running, event: "state", payload: json("{}"))
        let r3 = try journal.record(session: "a", task: 3, state: .running, event: "state", payload: json("{}"))
        let c1 = try journal.record(session: "a", task: 1, state: .completed, event: "state", payload: json("{}"))
        let c2 = try journal.record(session: "a", task: 2, state: .completed, event: "state", payload: json("{}"))
        // Task 1 runs again (a retry): queued and running after its first completion.
        let q1 = try journal.record(session: "a", task: 1, state: .queued, event: "state", payload: json("{}"))
        let again1 = try journal.record(session: "a", task: 1, state: .running, event: "state", payload: json("{}"))
        #expect(try journal.pruneEvents(session: "a", kind: "state", supersededBy: [(1, c1.seq), (2, c2.seq)], through: { .max }) == 2)
        #expect(try journal.events(session: "a", after: 0) == [r3, c1, c2, q1, again1])
        let left = try journal.events(session: "a", after: 0)
        #expect(!left.contains(r1) && !left.contains(r2))
        // Task 1 is not completed now and task 3 never was: the sweep leaves their events.
        #expect(try journal.pruneSupersededEvents(session: "a", kind: "state") == 0)
        // Its second completion supersedes the first one and the second run's events.
        let c1b = try journal.record(session: "a", task: 1, state: .completed, event: "state", payload: json("{}"))
        #expect(try journal.pruneSupersededEvents(session: "a", kind: "state") == 3)
        #expect(try journal.events(session: "a", after: 0) == [r3, c2, c1b])
    }
}
