import Foundation
import TransferKit

/// A running download's resume record follows its partial file as it grows (DECISIONS 174):
/// about once a second while bytes come, and once more after the last of them, a checkpoint
/// fsyncs the partial file and saves the record with the length that fsync covered. A run or a
/// daemon killed without warning continues from there, and a record never claims bytes that
/// are not on disk. The fsync runs on a queue of its own: neither the transfer thread nor the
/// delegate queue waits for the disk.
final class ResumeCheckpoints: Sendable {
    private struct Entry {
        /// The task's crash-recovery data (0 bytes received), the latest it published.
        var record: Data
        /// A checkpoint is queued; bytes that come meanwhile ask for one more after it.
        var queued = false
        var grewSince = false
        /// The last checkpoint; none yet, so the first comes at once: a run killed in its first
        /// second still leaves a record for its partial file.
        var lastAt = DispatchTime(uptimeNanoseconds: 0)
    }

    /// Tasks that have not ended; an ended task's entry is gone, and a checkpoint that finds
    /// none saves nothing.
    private let entries = Locked<[ObjectIdentifier: Entry]>([:])
    private let queue = DispatchQueue(label: "transfertop.resume-checkpoints")
    private let interval: DispatchTimeInterval

    init(interval: DispatchTimeInterval = .seconds(1)) { self.interval = interval }

    typealias Save = @Sendable (Data, TransferDownloadTask) -> Void

    /// Bytes of `task` were written (on the delegate queue, at each coalesced `didWriteData`).
    func grew(_ task: TransferDownloadTask, record: Data, save: @escaping Save) {
        let key = ObjectIdentifier(task)
        let due = entries.withLock { e -> DispatchTime? in
            var entry = e[key] ?? Entry(record: record)
            entry.record = record
            defer { e[key] = entry }
            guard !entry.queued else {
                entry.grewSince = true
                return nil
            }
            entry.queued = true
            return max(entry.lastAt + interval, .now())
        }
        if let due { schedule(task, at: due, save: save) }
    }

    /// The task ended (placed, failed, cancelled): its own outcome decides the record from now
    /// on. Waits for a checkpoint that is saving, so none lands after the caller's own save or
    /// removal.
    func ended(_ task: TransferTask) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    private func schedule(_ task: TransferDownloadTask, at due: DispatchTime, save: @escaping Save) {
        queue.asyncAfter(deadline: due) { [self] in checkpoint(task, save: save) }
    }

    private func checkpoint(_ task: TransferDownloadTask, save: @escaping Save) {
        let key = ObjectIdentifier(task)
        let record = entries.withLock { e -> Data? in
            e.inPlace(key) { entry in
                entry.grewSince = false
                return entry.record
            }
        }
        guard let record, var r = try? ResumeData(decoding: record) else { return }
        let durable = Self.syncedLength(r.partialFilePath)
        // Saved under the lock: an end meanwhile waits, and its save or removal comes last.
        let again = entries.withLock { e -> DispatchTime? in
            guard var entry = e[key] else { return nil }
            if let durable, durable > 0 {
                r.bytesReceived = durable
                let data = r.encoded()
                // Only a record the next run can use: one it refused would be removed, and the
                // download would start from zero.
                if (try? ResumeData(decoding: data)) != nil { save(data, task) }
            }
            entry.lastAt = .now()
            entry.queued = entry.grewSince
            e[key] = entry
            return entry.queued ? entry.lastAt + interval : nil
        }
        if let again { schedule(task, at: again, save: save) }
    }

    /// The file's length, once every byte up to it is on disk; nil when it cannot be made so
    /// (the file is gone: the download ended and was placed).
    static func syncedLength(_ path: String) -> Int64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        // The length first: fsync covers every byte written before it is called.
        guard fstat(fd, &st) == 0, fdatasync(fd) == 0 else { return nil }
        return Int64(st.st_size)
    }
}
