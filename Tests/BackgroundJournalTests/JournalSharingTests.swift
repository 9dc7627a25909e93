import Foundation
import Testing
import TestSupport
@testable import BackgroundJournal

/// Two opens of one file, as the daemon and a `transfertop status` in two processes: their
/// writes wait for each other (busy timeout, immediate transactions) instead of failing.
@Suite struct JournalSharingTests {
    @Test func twoWritersOnOneFileBothSucceed() async throws {
        let path = try journalPath()
        let first = try openJournal(path)
        let second = try openJournal(path)
        try first.ensureSession("s")
        _ = try first.addSubmission(session: "s", options: json("{}"), urls: ["a", "b"])
        async let one: Void = offPool { try Self.write(first, task: 1, times: 300) }
        async let two: Void = offPool { try Self.write(second, task: 2, times: 300) }
        _ = try await (one, two)
        #expect(try first.events(session: "s", after: 0).count == 600)
        #expect(try second.lastSeq() == 600)
        #expect(try first.tasks(session: "s").map(\.bytesReceived) == [299, 299])
    }

    private static func write(_ journal: Journal, task: Int64, times: Int) throws {
        for i in 0..<times {
            try journal.record(session: "s", task: task, state: .running, event: "state", payload: json("{}"))
            try journal.checkpointProgress([(session: "s", task: task, received: Int64(i), expected: nil)])
            _ = try journal.addSubmission(session: "s", options: json("{}"), urls: [])
        }
    }
}
