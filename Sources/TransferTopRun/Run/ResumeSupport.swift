import Foundation
import TransferKit

/// The one place that turns saved resume data into a new download task.
enum ResumeSupport {
    enum Outcome {
        case resumed(TransferDownloadTask)
        /// The data no longer applies (partial file gone, another session kind's directory,
        /// corrupt): the caller starts from zero and drops it.
        case unusable(String)
    }

    static func downloadTask(in session: TransferSession, resumeData data: Data) -> Outcome {
        do {
            _ = try session.validateResumeData(data)
        } catch {
            return .unusable("\(error)")
        }
        return .resumed(session.downloadTask(withResumeData: data))
    }
}
