import Foundation
import TransferKit

/// The one place that turns saved resume data into a new download task.
///
/// TransferKit's `downloadTask(withResumeData:)` (SPEC S8) is being built in parallel; until
/// it exists this returns nil and callers start the download from zero (and say so). When it
/// lands, replace the body with `session.downloadTask(withResumeData: data)`.
enum ResumeSupport {
    static let isAvailable = false

    static func downloadTask(in session: TransferSession, resumeData data: Data) -> TransferDownloadTask? {
        _ = (session, data)
        return nil
    }
}
