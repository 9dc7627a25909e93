import Foundation
import TransferKit

/// Downloads survive `kill -9`: once a download's partial file exists, its
/// `crashRecoveryResumeData` is saved in the resume store like Ctrl-C's resume data, so the
/// same command continues it. The record follows the file as it grows with the length an
/// fsync covered (`ResumeCheckpoints`, DECISIONS 174); a record of 0 bytes (none was durable
/// yet, or an older version's) takes the partial file's length when the run starts
/// (`ResumeSupport.afterCrash`).
extension Runner {
    /// On the delegate queue, at each coalesced `didWriteData`: the record is checkpointed.
    func keepCrashRecovery(_ task: TransferDownloadTask) {
        guard store != nil, let data = task.crashRecoveryResumeData else { return }
        state.withLock { _ = $0.crashRecorded.insert(ObjectIdentifier(task)) }
        checkpoints.grew(task, record: data) { [self] data, task in save(data, for: task) }
    }

    /// The download ended without resume data: a crash record of it would only point at a
    /// partial file that is gone (a success removes it when the file is placed).
    func dropCrashRecovery(_ task: TransferTask, failed: Bool) {
        let had = state.withLock { $0.crashRecorded.remove(ObjectIdentifier(task)) != nil }
        if had, failed { store?.remove(url: task.originalRequest.url.absoluteString, outputDirectory: plan.outputDirectory) }
    }
}

extension ResumeSupport {
    /// A crash-recovery record (0 bytes received) whose partial file holds bytes: continue
    /// after them. Any other resume data is returned unchanged.
    static func afterCrash(_ data: Data) -> Data {
        guard var r = try? ResumeData(decoding: data), r.bytesReceived == 0 else { return data }
        var st = stat()
        guard lstat(r.partialFilePath, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return data }
        r.bytesReceived = Int64(st.st_size)
        return r.encoded()
    }
}
