import Foundation

/// A task's mutable state, kept behind the task's lock. Written by the transfer thread and the
/// public API, read by snapshots.
struct TaskCore {
    var machine = TaskStateMachine()
    var taskDescription: String?
    var priority: Float = TransferTask.defaultPriority
    var currentRequest: TransferRequest
    var response: TransferResponse?
    var countOfBytesReceived: Int64 = 0
    var countOfBytesExpectedToReceive: Int64 = -1
    var countOfBytesSent: Int64 = 0
    var countOfBytesExpectedToSend: Int64 = -1
    var metrics: TaskMetrics
    var error: TransferError?
    var isResumable = false
    var resumeOffset: Int64?
    var outputPath: String?
    /// How the outcome is delivered; taken (set to nil) when delivered.
    var completion: TaskCompletion?
    /// The body collected for a completion handler or `data(for:)`.
    var body: Data?
    /// A finished download's temporary file, handed over then deleted.
    var downloadFile: URL?
    /// The finished download's descriptor, still open and so still `flock`ed until the
    /// delegate has moved the file (closed after *didFinishDownloadingTo*; -1 when none).
    var heldFileDescriptor: Int32 = -1
    /// Resume data produced by a cancel or a resumable failure.
    var producedResumeData: Data?
    /// Resume data for after a crash, made when the partial file is created (issue 8).
    var crashRecoveryResumeData: Data?
    /// `progress`, made on first use (most tasks never need one).
    var progress: Progress?
}

/// The completion handler of a task made with one. With a handler, the delegate's response
/// and data callbacks are not called (SPEC S4).
enum TaskCompletion: Sendable {
    case data(@Sendable (Data?, TransferResponse?, TransferError?) -> Void)
    case download(@Sendable (URL?, TransferResponse?, TransferError?) -> Void)
}

/// Where a task's request body comes from.
enum UploadSource: Sendable {
    case data(Data)
    /// Streamed from disk in constant memory.
    case file(URL)
}
