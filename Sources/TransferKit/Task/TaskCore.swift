import Foundation

/// A task's mutable state, kept behind the task's lock. Written by the transfer thread and the
/// public API, read by snapshots.
struct TaskCore {
    /// Bumped by every change to a field a snapshot reads (their `didSet`; without `oldValue` Swift
    /// still mutates in place, SE-0268), so a snapshot can be reused while nothing changed:
    /// a monitor frame over 10,000 finished tasks made 10,000 new snapshots.
    private(set) var version: UInt64 = 0
    /// The last snapshot and the version it was made at (`TransferTask.snapshot`).
    var snapshotCache: (version: UInt64, nameVersion: Int, snapshot: TaskSnapshot)?

    var machine = TaskStateMachine() { didSet { version &+= 1 } }
    var taskDescription: String? { didSet { version &+= 1 } }
    var currentRequest: TransferRequest { didSet { version &+= 1 } }
    var response: TransferResponse? { didSet { version &+= 1 } }
    var countOfBytesReceived: Int64 = 0 { didSet { version &+= 1 } }
    var countOfBytesExpectedToReceive: Int64 = -1 { didSet { version &+= 1 } }
    var countOfBytesSent: Int64 = 0 { didSet { version &+= 1 } }
    var countOfBytesExpectedToSend: Int64 = -1 { didSet { version &+= 1 } }
    var metrics: TaskMetrics { didSet { version &+= 1 } }
    var error: TransferError? { didSet { version &+= 1 } }
    var isResumable = false { didSet { version &+= 1 } }
    var resumeOffset: Int64? { didSet { version &+= 1 } }
    var outputPath: String? { didSet { version &+= 1 } }
    /// What the task's owner could not do with what it fetched (`setOwnerError`).
    var ownerError: TransferError? { didSet { version &+= 1 } }
    /// The task's own bandwidth limit (TransferSession+Limits.swift; 0: none).
    var rateLimit: Int64 = 0 { didSet { version &+= 1 } }

    // Not in snapshots (no version bump).
    /// Orders the task among those waiting for the per-host limit (URLSession's `priority`).
    var priority: Float = TransferTask.defaultPriority
    /// How the outcome is delivered; taken (set to nil) when delivered.
    var completion: TaskCompletion?
    /// The body collected for a completion handler or `data(for:)`.
    var body: Data?
    /// A finished download's temporary file, handed over then deleted.
    var downloadFile: URL?
    /// A finished download whose body never left memory (at most `DownloadStorage.memoryLimit`),
    /// with the URL its file is named after: written on the delegate queue, or handed to the
    /// delegate whole (`didFinishDownloadingBody`), never by the transfer thread.
    var downloadBody: (data: Data, url: URL)?
    /// The finished download's descriptor, still open and so still `flock`ed until the
    /// delegate has moved the file (closed after *didFinishDownloadingTo*; -1 when none).
    var heldFileDescriptor: Int32 = -1
    /// Resume data produced by a cancel or a resumable failure.
    var producedResumeData: Data?
    /// Resume data for after a crash, made when the partial file is created.
    var crashRecoveryResumeData: Data?
    /// Run on the delegate queue once the outcome was delivered and the file let go of (a
    /// background session acknowledges the daemon's event here, DECISIONS 131).
    var afterDelivery: (@Sendable () -> Void)?
    /// `progress`, made on first use (most tasks never need one).
    var progress: Progress?
}

/// The completion handler of a task made with one. With a handler, the delegate's response
/// and data callbacks are not called.
enum TaskCompletion: Sendable {
    case data(@Sendable (Data?, TransferResponse?, TransferError?) -> Void)
    case download(@Sendable (URL?, TransferResponse?, TransferError?) -> Void)
}

/// Where a task's request body comes from.
enum UploadSource: Sendable {
    case data(Data)
    /// Streamed from disk in constant memory.
    case file(URL)
    /// A multipart form: bytes and files, the files streamed.
    case segments([MultipartLayout.Segment])
    /// From a stream the delegate gives in `needNewBodyStream`, length unknown (chunked).
    case streamed
}
