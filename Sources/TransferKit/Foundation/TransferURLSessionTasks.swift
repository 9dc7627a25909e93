import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Foundation's task classes backed by TransferKit's tasks: what a `TransferURLSession` hands
// out and passes to Foundation's delegate methods. FoundationNetworking's `URLSessionTask`
// is open and its `init()` makes a task with no session of its own; every property a caller
// reads is overridden to answer from the TransferKit task, every control is forwarded to it.
// Three classes, because Foundation's hierarchy (an upload task is a data task) cannot share
// one: `TaskFace` holds what they have in common.

/// What the three task classes answer, read from the TransferKit task.
struct TaskFace: Sendable {
    let task: TransferTask

    var state: URLSessionTask.State {
        switch task.state {
        case .running: return .running
        case .suspended: return .suspended
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    /// Foundation's error: a `URLError` with TransferKit's error underneath.
    var error: (any Error)? { task.error?.urlError }
    var response: URLResponse? { task.response?.urlResponse }
    var originalRequest: URLRequest? { task.originalRequest.urlRequest }
    var currentRequest: URLRequest? { task.currentRequest.urlRequest }
}

public final class TransferURLSessionDataTask: URLSessionDataTask, @unchecked Sendable {
    // @unchecked: immutable; the TransferKit task is thread-safe.
    /// The TransferKit task doing the work (its snapshots, metrics and resume data).
    public let transferTask: TransferTask
    let face: TaskFace

    init(_ task: TransferTask) {
        transferTask = task
        face = TaskFace(task: task)
        super.init()
    }

    override public var taskIdentifier: Int { transferTask.taskIdentifier }
    override public var originalRequest: URLRequest? { face.originalRequest }
    override public var currentRequest: URLRequest? { face.currentRequest }
    override public var response: URLResponse? { face.response }
    override public var error: (any Error)? { face.error }
    override public var state: URLSessionTask.State { face.state }
    override public var countOfBytesReceived: Int64 { transferTask.countOfBytesReceived }
    override public var countOfBytesSent: Int64 { transferTask.countOfBytesSent }
    override public var countOfBytesExpectedToReceive: Int64 { transferTask.countOfBytesExpectedToReceive }
    override public var countOfBytesExpectedToSend: Int64 { transferTask.countOfBytesExpectedToSend }
    override public var progress: Progress { transferTask.progress }
    override public var taskDescription: String? {
        get { transferTask.taskDescription }
        set { transferTask.taskDescription = newValue }
    }
    override public var priority: Float {
        get { transferTask.priority }
        set { transferTask.priority = newValue }
    }
    override public func resume() { transferTask.resume() }
    override public func suspend() { transferTask.suspend() }
    override public func cancel() { transferTask.cancel() }
}

public final class TransferURLSessionUploadTask: URLSessionUploadTask, @unchecked Sendable {
    // @unchecked: immutable; the TransferKit task is thread-safe.
    public let transferTask: TransferTask
    let face: TaskFace

    init(_ task: TransferTask) {
        transferTask = task
        face = TaskFace(task: task)
        super.init()
    }

    override public var taskIdentifier: Int { transferTask.taskIdentifier }
    override public var originalRequest: URLRequest? { face.originalRequest }
    override public var currentRequest: URLRequest? { face.currentRequest }
    override public var response: URLResponse? { face.response }
    override public var error: (any Error)? { face.error }
    override public var state: URLSessionTask.State { face.state }
    override public var countOfBytesReceived: Int64 { transferTask.countOfBytesReceived }
    override public var countOfBytesSent: Int64 { transferTask.countOfBytesSent }
    override public var countOfBytesExpectedToReceive: Int64 { transferTask.countOfBytesExpectedToReceive }
    override public var countOfBytesExpectedToSend: Int64 { transferTask.countOfBytesExpectedToSend }
    override public var progress: Progress { transferTask.progress }
    override public var taskDescription: String? {
        get { transferTask.taskDescription }
        set { transferTask.taskDescription = newValue }
    }
    override public var priority: Float {
        get { transferTask.priority }
        set { transferTask.priority = newValue }
    }
    override public func resume() { transferTask.resume() }
    override public func suspend() { transferTask.suspend() }
    override public func cancel() { transferTask.cancel() }
}

public final class TransferURLSessionDownloadTask: URLSessionDownloadTask, @unchecked Sendable {
    // @unchecked: immutable; the TransferKit task is thread-safe.
    public let transferTask: TransferDownloadTask
    let face: TaskFace

    init(_ task: TransferDownloadTask) {
        transferTask = task
        face = TaskFace(task: task)
        super.init()
    }

    override public var taskIdentifier: Int { transferTask.taskIdentifier }
    override public var originalRequest: URLRequest? { face.originalRequest }
    override public var currentRequest: URLRequest? { face.currentRequest }
    override public var response: URLResponse? { face.response }
    override public var error: (any Error)? { face.error }
    override public var state: URLSessionTask.State { face.state }
    override public var countOfBytesReceived: Int64 { transferTask.countOfBytesReceived }
    override public var countOfBytesSent: Int64 { transferTask.countOfBytesSent }
    override public var countOfBytesExpectedToReceive: Int64 { transferTask.countOfBytesExpectedToReceive }
    override public var countOfBytesExpectedToSend: Int64 { transferTask.countOfBytesExpectedToSend }
    override public var progress: Progress { transferTask.progress }
    override public var taskDescription: String? {
        get { transferTask.taskDescription }
        set { transferTask.taskDescription = newValue }
    }
    override public var priority: Float {
        get { transferTask.priority }
        set { transferTask.priority = newValue }
    }
    override public func resume() { transferTask.resume() }
    override public func suspend() { transferTask.suspend() }
    override public func cancel() { transferTask.cancel() }

    /// TransferKit's resume data (docs/resume-data.md), for `downloadTask(withResumeData:)`.
    override public func cancel(byProducingResumeData completionHandler: @escaping (Data?) -> Void) {
        // Foundation's signature has no @Sendable; the handler is called once, on the delegate queue.
        nonisolated(unsafe) let handler = completionHandler
        transferTask.cancel { data in handler(data) }
    }
}
