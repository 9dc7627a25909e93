import Foundation

/// A unit of transfer work in a session. Thread-safe: call any method from any
/// thread.
public class TransferTask: @unchecked Sendable, Identifiable, CustomStringConvertible {
    // @unchecked: every mutable field is inside `core` (a lock); the rest is immutable.
    public let taskIdentifier: Int
    public let kind: TaskKind
    public let originalRequest: TransferRequest
    let session: TransferSession
    let core: Locked<TaskCore>
    let upload: UploadSource?
    /// The request body's length (-1 unknown), measured once at creation (a file is stat'ed).
    let uploadLength: Int64
    /// Set when the task was refused at creation (bad resume data): it fails on resume.
    nonisolated(unsafe) var rejection: TransferError?
    /// The resume data this download continues, if it was made from some.
    let resumeFrom: ResumeData?

    init(session: TransferSession, identifier: Int, kind: TaskKind, request: TransferRequest,
         upload: UploadSource? = nil, resumeFrom: ResumeData? = nil, completion: TaskCompletion? = nil) {
        self.session = session
        self.taskIdentifier = identifier
        self.kind = kind
        self.originalRequest = request
        self.upload = upload
        self.uploadLength = upload?.expectedLength ?? -1
        self.resumeFrom = resumeFrom
        // From the engine's anchored monotonic clock, as every hop date and the interval's end:
        // a wall-clock `Date()` here could land microseconds after the first fetchStart.
        let start = session.engine.clock.date(Monotonic.now())
        var c = TaskCore(currentRequest: request, metrics: TaskMetrics(taskIntervalStart: start))
        c.completion = completion
        c.countOfBytesExpectedToSend = uploadLength
        c.resumeOffset = resumeFrom?.bytesReceived
        c.countOfBytesReceived = resumeFrom?.bytesReceived ?? 0
        self.core = Locked(c)
    }

    public var id: Int { taskIdentifier }
    public var state: TaskState { core.withLock { $0.machine.state } }
    public var currentRequest: TransferRequest { core.withLock { $0.currentRequest } }
    public var response: TransferResponse? { core.withLock { $0.response } }
    public var error: TransferError? { core.withLock { $0.error } }
    public var countOfBytesReceived: Int64 { core.withLock { $0.countOfBytesReceived } }
    /// 0 before a response, as Foundation's; -1 (unknown) once a response gave no length.
    /// Snapshots keep the engine's -1 for "not known yet", which the monitor shows as such.
    public var countOfBytesExpectedToReceive: Int64 {
        core.withLock { $0.response == nil && $0.countOfBytesExpectedToReceive < 0 ? 0 : $0.countOfBytesExpectedToReceive }
    }
    public var countOfBytesSent: Int64 { core.withLock { $0.countOfBytesSent } }
    public var countOfBytesExpectedToSend: Int64 { core.withLock { $0.countOfBytesExpectedToSend } }
    /// Metrics so far; final once the task completed.
    public var metrics: TaskMetrics { core.withLock { $0.metrics } }
    public var taskDescription: String? {
        get { core.withLock { $0.taskDescription } }
        set { core.withLock { $0.taskDescription = newValue } }
    }

    /// URLSessionTask's priorities: tasks waiting for the per-host connection limit start
    /// highest first, in creation order among equals (DECISIONS 65).
    public static let defaultPriority: Float = 0.5
    public static let lowPriority: Float = 0.25
    public static let highPriority: Float = 0.75
    /// 0.0-1.0 (other values are clamped). Read when the task queues for its host: a change
    /// after that applies from its next queueing (a redirect or a resume).
    public var priority: Float {
        get { core.withLock { $0.priority } }
        set { core.withLock { $0.priority = PriorityFIFO<Int>.clamp(newValue) } }
    }

    public var description: String { "\(kind) task \(taskIdentifier) (\(state))" }

    /// Starts the task, or continues it after `suspend()`.
    public func resume() { apply(.resume) }

    /// Stops the flow of bytes at once; `resume()` continues the same transfer. No timeout
    /// fires while suspended.
    public func suspend() { apply(.suspend) }

    /// Cancels the task: it moves to `canceling`, then `completed` with a `.cancelled` error.
    public func cancel() { apply(.cancel(byProducingResumeData: false)) }

    /// Feeds an event to the state machine and performs its action.
    func apply(_ event: TaskStateMachine.Event, resumeDataReply: (@Sendable (Data?) -> Void)? = nil) {
        let (action, state) = core.withLock { c -> (TaskStateMachine.Action, TaskState) in
            (c.machine.handle(event), c.machine.state)
        }
        switch action {
        case .startTransfer: session.engineSend(.start(self, requestedAt: Monotonic.now()))
        case .pauseTransfer: session.engineSend(.suspend(self))
        case .unpauseTransfer: session.engineSend(.resume(self))
        case .cancelTransfer(let rd): session.engineSend(.cancel(self, byProducingResumeData: rd, reply: resumeDataReply))
        case .complete(let error): session.deliverCompletion(of: self, error: error)
        case .ignore:
            resumeDataReply?(nil)
            return
        case .none: break
        }
        if case .complete = action { return }  // delivery emits the final state itself
        session.emit(.taskStateChanged(state), task: self)
    }

    /// A snapshot for the monitor and exporters.
    public func snapshot() -> TaskSnapshot {
        let (name, nameVersion) = session.core.withLock { ($0.name, $0.nameVersion) }
        return snapshot(sessionName: name, nameVersion: nameVersion)
    }

    /// The last snapshot again while nothing it shows has changed (`TaskCore.version`): it
    /// shares its storage, so a frame over thousands of idle or finished tasks allocates
    /// nothing for them.
    func snapshot(sessionName: String, nameVersion: Int) -> TaskSnapshot {
        core.withLock { c in
            if let cache = c.snapshotCache, cache.version == c.version, cache.nameVersion == nameVersion {
                return cache.snapshot
            }
            let made = TaskSnapshot(
                sessionID: session.sessionID, sessionName: sessionName, taskIdentifier: taskIdentifier,
                kind: kind, state: c.machine.state, taskDescription: c.taskDescription,
                method: c.currentRequest.httpMethod, originalURL: originalRequest.url.absoluteString,
                currentURL: c.currentRequest.url.absoluteString, countOfBytesReceived: c.countOfBytesReceived,
                countOfBytesExpectedToReceive: c.countOfBytesExpectedToReceive, countOfBytesSent: c.countOfBytesSent,
                countOfBytesExpectedToSend: c.countOfBytesExpectedToSend, statusCode: c.response.flatMap { $0.hasStatusCode ? $0.statusCode : nil },
                networkProtocolName: c.response?.networkProtocolName, metrics: c.metrics, error: c.error ?? c.ownerError,
                isResumable: c.isResumable, resumeOffset: c.resumeOffset, outputPath: c.outputPath,
                rateLimit: c.rateLimit)
            c.snapshotCache = (c.version, nameVersion, made)
            return made
        }
    }

    /// Lets an owner (such as the CLI) record where it placed the finished file.
    public func setOutputPath(_ path: String?) { core.withLock { $0.outputPath = path } }

    /// Lets an owner record that it could not keep what the task fetched (the CLI could not
    /// place the file): snapshots show it as the task's error, so every view and export tells
    /// the same outcome. `error`, URLSession's, stays the transfer's own.
    public func setOwnerError(_ error: TransferError) { core.withLock { $0.ownerError = error } }

    /// What `setOwnerError` recorded.
    public var ownerError: TransferError? { core.withLock { $0.ownerError } }
}

/// A task whose response body is collected in memory or delivered to the delegate.
public class TransferDataTask: TransferTask, @unchecked Sendable {}

/// A data task with a request body from bytes or from a file streamed from disk.
public final class TransferUploadTask: TransferDataTask, @unchecked Sendable {}

/// A task whose response body goes to a temporary file handed over at completion.
public final class TransferDownloadTask: TransferTask, @unchecked Sendable {
    /// Cancels the download and yields resume data (nil when it cannot be resumed); the task
    /// completes with a `.cancelled` error, as URLSession's does.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        apply(.cancel(byProducingResumeData: true), resumeDataReply: completionHandler)
    }

    /// Whether cancelling now with resume data could later continue this download.
    public var isResumable: Bool { core.withLock { $0.isResumable } }

    /// Resume data to keep on disk while the download runs, so that a process killed without
    /// warning (`kill -9`, a crash) can continue it. nil until the partial file exists (made,
    /// or opened for a download continued from resume data, once its answer came), and for
    /// responses that cannot be resumed. It records **0 bytes received**: the owner sets
    /// `bytesReceived` to a length of the partial file it made durable (fsync), or after a
    /// crash to the file's length (the bytes in it were written in order, so they are a prefix
    /// of the representation the recorded validator names; `If-Range` makes the server send
    /// everything if it changed).
    public var crashRecoveryResumeData: Data? { core.withLock { $0.crashRecoveryResumeData } }
}

extension UploadSource {
    fileprivate var expectedLength: Int64 {
        switch self {
        case .data(let d): return Int64(d.count)
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)??.int64Value
            return size ?? -1
        case .segments(let s): return s.reduce(0) { $0 + $1.length }
        case .streamed: return -1
        }
    }
}
