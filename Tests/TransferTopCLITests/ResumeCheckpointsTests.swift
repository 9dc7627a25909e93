import Foundation
import TestSupport
import Testing
import TransferKit
@testable import TransferTopRun

/// The checkpoints of a growing partial file on a real file: each saved record holds a length
/// that was on disk when it was taken, the last one the file's final length, and an ended task
/// gets no more.
@Suite struct ResumeCheckpointsTests {
    final class Saved: @unchecked Sendable {
        // @unchecked: `offsets` and `savers` are behind their locks.
        let offsets = Locked<[Int64]>([])
        /// The task of each save, in order.
        let savers = Locked<[Int]>([])
        var save: ResumeCheckpoints.Save {
            { [offsets, savers] data, task in
                let offset = (try? ResumeData(decoding: data))?.bytesReceived ?? -1
                offsets.withLock { $0.append(offset) }
                savers.withLock { $0.append(task.taskIdentifier) }
            }
        }
    }

    func record(_ path: String) -> Data {
        ResumeData(url: "http://127.0.0.1/f", entityTag: "\"e\"", lastModified: nil, bytesReceived: 0,
                   expectedTotal: 3_000, partialFilePath: path, createdAt: Date(),
                   sessionKindName: "default", originalTaskIdentifier: 1).encoded()
    }

    @Test func theRecordFollowsTheFileAndStopsAtTheEnd() async throws {
        let dir = try Run.tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/partial"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let file = try #require(FileHandle(forWritingAtPath: path))
        defer { try? file.close() }
        let session = TransferSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: URL(string: "http://127.0.0.1/f")!)
        let checkpoints = ResumeCheckpoints(interval: .milliseconds(20))
        let saved = Saved()
        try file.write(contentsOf: Data(count: 1_000))
        checkpoints.grew(task, record: record(path), save: saved.save)
        try await waitFor("the first checkpoint") { saved.offsets.withLock { $0 } == [1_000] }
        // Bytes that come while no checkpoint is due are recorded by the next one.
        try file.write(contentsOf: Data(count: 1_500))
        checkpoints.grew(task, record: record(path), save: saved.save)
        try await waitFor("the trailing checkpoint") { saved.offsets.withLock { $0.last } == 2_500 }
        #expect(saved.offsets.withLock { $0 }.allSatisfy { $0 == 1_000 || $0 == 2_500 })
        // An end while a checkpoint is queued: that checkpoint saves nothing.
        try file.write(contentsOf: Data(count: 500))
        checkpoints.grew(task, record: record(path), save: saved.save)
        checkpoints.ended(task)
        let count = saved.offsets.withLock { $0.count }
        // Another task's second checkpoint, due an interval after its first (so after the
        // ended task's queued one), is the event that the queue has run the ended task's.
        let other = session.downloadTask(with: URL(string: "http://127.0.0.1/g")!)
        checkpoints.grew(other, record: record(path), save: saved.save)
        try await waitFor("the other task's checkpoint") { saved.offsets.withLock { $0.count } == count + 1 }
        checkpoints.grew(other, record: record(path), save: saved.save)
        try await waitFor("the other task's second checkpoint") { saved.offsets.withLock { $0.count } == count + 2 }
        #expect(saved.offsets.withLock { $0.last } == 3_000)
        #expect(saved.savers.withLock { Array($0.dropFirst(count)) } == [other.taskIdentifier, other.taskIdentifier])
    }
}
