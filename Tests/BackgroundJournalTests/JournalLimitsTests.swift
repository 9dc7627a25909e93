import Foundation
import GRDB
import Testing
import TestSupport
@testable import BackgroundJournal

/// The limits a user set on a background session or task: kept across reopening, and in a
/// table an earlier build's journal gains without becoming a newer schema (DECISIONS 211).
@Suite struct JournalLimitsTests {
    @Test func limitsAreKeptPerSessionAndTaskAndSurviveAReopen() throws {
        let path = try journalPath()
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("a")
            try journal.ensureSession("b")
            #expect(try journal.limits().isEmpty)
            try journal.setRateLimit(session: "a", task: nil, 1_048_576)
            try journal.setConnectionsPerHost(session: "a", 3)
            try journal.setRateLimit(session: "a", task: 2, 102_400)
            try journal.setRateLimit(session: "b", task: 7, 5_000)
            // A later value replaces the earlier one; a rate of 0 (none) is kept as such.
            try journal.setRateLimit(session: "a", task: 2, 0)
            try journal.setConnectionsPerHost(session: "a", 4)
            try journal.close()
        }
        let journal = try openJournal(path)
        let kept = try journal.limits()
        #expect(kept["a"] == JournalLimits(sessionRate: 1_048_576, connectionsPerHost: 4, taskRates: [2: 0]))
        // A task's limit alone says nothing of its session's.
        #expect(kept["b"] == JournalLimits(sessionRate: nil, connectionsPerHost: nil, taskRates: [7: 5_000]))
        #expect(kept.count == 2)
    }

    /// A journal made before the table existed (the table dropped here) gets it at the next
    /// open, and stays schema version 1: an earlier build still opens it as its own.
    @Test func aJournalWithoutTheTableGainsItAndKeepsItsVersion() throws {
        let path = try journalPath()
        do {
            let journal = try openJournal(path)
            try journal.ensureSession("a")
            try journal.close()
        }
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP TABLE limits") }
        let journal = try openJournal(path)
        try journal.setConnectionsPerHost(session: "a", 2)
        #expect(try journal.limits()["a"]?.connectionsPerHost == 2)
        #expect(try journal.sessions().map(\.name) == ["a"])
        try journal.close()
        #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 1)
    }

    /// An invalidated session's limits go (a session made again under its name is new); a
    /// journal whose table is missing (the open could not make it) reads as no limits and
    /// makes it at the next limit written.
    @Test func invalidationDropsTheLimitsAndAWriteMakesAMissingTable() throws {
        let path = try journalPath()
        let journal = try openJournal(path)
        try journal.ensureSession("a")
        try journal.ensureSession("b")
        try journal.setRateLimit(session: "a", task: nil, 500)
        try journal.setRateLimit(session: "b", task: 3, 700)
        try journal.invalidateSession("a")
        #expect(try journal.limits() == ["b": JournalLimits(taskRates: [3: 700])])
        try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP TABLE limits") }
        #expect(try journal.limits().isEmpty)
        try journal.invalidateSession("b")
        try journal.setConnectionsPerHost(session: "b", 5)
        #expect(try journal.limits() == ["b": JournalLimits(connectionsPerHost: 5)])
    }
}
