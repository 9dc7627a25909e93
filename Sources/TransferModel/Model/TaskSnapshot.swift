import Foundation

/// Everything the monitor, the exporters and tests may read about a task at one instant.
///
/// Snapshots are values: the engine makes them on request, and readers never touch live
/// engine state (SPEC T1; STYLE 8).
public struct TaskSnapshot: Sendable, Equatable, Identifiable {
    /// Session and task identifiers together identify a task in a process.
    public var id: TaskID { TaskID(session: sessionID, task: taskIdentifier) }
    public var sessionID: Int
    public var sessionName: String
    public var taskIdentifier: Int
    public var kind: TaskKind
    public var state: TaskState
    public var taskDescription: String?
    public var method: String
    public var originalURL: String
    public var currentURL: String
    public var countOfBytesReceived: Int64
    /// -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64
    public var countOfBytesSent: Int64
    /// -1 when unknown.
    public var countOfBytesExpectedToSend: Int64
    public var statusCode: Int?
    public var networkProtocolName: String?
    /// Metrics so far; the last transaction may still be running (its `currentPhase` says where).
    public var metrics: TaskMetrics
    public var error: TransferError?
    /// Whether cancelling now with resume data could later continue this download (SPEC S8).
    public var isResumable: Bool
    /// The offset the task resumed at, when it was made from resume data.
    public var resumeOffset: Int64?
    /// Where a finished download was placed by its owner, if known (e.g. the CLI's output file).
    public var outputPath: String?

    public init(sessionID: Int, sessionName: String, taskIdentifier: Int, kind: TaskKind,
                state: TaskState, taskDescription: String? = nil, method: String = "GET",
                originalURL: String, currentURL: String? = nil, countOfBytesReceived: Int64 = 0,
                countOfBytesExpectedToReceive: Int64 = -1, countOfBytesSent: Int64 = 0,
                countOfBytesExpectedToSend: Int64 = -1, statusCode: Int? = nil,
                networkProtocolName: String? = nil, metrics: TaskMetrics, error: TransferError? = nil,
                isResumable: Bool = false, resumeOffset: Int64? = nil, outputPath: String? = nil) {
        self.sessionID = sessionID
        self.sessionName = sessionName
        self.taskIdentifier = taskIdentifier
        self.kind = kind
        self.state = state
        self.taskDescription = taskDescription
        self.method = method
        self.originalURL = originalURL
        self.currentURL = currentURL ?? originalURL
        self.countOfBytesReceived = countOfBytesReceived
        self.countOfBytesExpectedToReceive = countOfBytesExpectedToReceive
        self.countOfBytesSent = countOfBytesSent
        self.countOfBytesExpectedToSend = countOfBytesExpectedToSend
        self.statusCode = statusCode
        self.networkProtocolName = networkProtocolName
        self.metrics = metrics
        self.error = error
        self.isResumable = isResumable
        self.resumeOffset = resumeOffset
        self.outputPath = outputPath
    }
}

/// A task's identity across sessions.
public struct TaskID: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var session: Int
    public var task: Int
    public init(session: Int, task: Int) {
        self.session = session
        self.task = task
    }
    public static func < (a: TaskID, b: TaskID) -> Bool { (a.session, a.task) < (b.session, b.task) }
    public var description: String { "\(session).\(task)" }
}

/// A session at one instant, with its tasks in identifier order.
public struct SessionSnapshot: Sendable, Equatable, Identifiable {
    public var id: Int
    public var name: String
    public var kind: SessionKind
    public var state: SessionState
    public var maxConnectionsPerHost: Int
    public var tasks: [TaskSnapshot]

    public init(id: Int, name: String, kind: SessionKind, state: SessionState,
                maxConnectionsPerHost: Int, tasks: [TaskSnapshot]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.state = state
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.tasks = tasks
    }
}

/// One entry of the live event log: a delegate callback or a state change, as it happened.
public struct TransferEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case sessionCreated
        case sessionStateChanged(SessionState)
        case taskCreated
        case taskStateChanged(TaskState)
        /// A delegate callback by its URLSession name, e.g. `didReceiveResponse`.
        case delegateCallback(String)
        /// Bytes moved since the last progress event (coalesced: at most a few per second).
        case progress(received: Int64, sent: Int64)
    }

    public var date: Date
    public var sessionID: Int
    public var taskIdentifier: Int?
    public var kind: Kind
    /// A short, secret-free detail such as `200 OK` or `65536 bytes`.
    public var detail: String

    public init(date: Date, sessionID: Int, taskIdentifier: Int?, kind: Kind, detail: String = "") {
        self.date = date
        self.sessionID = sessionID
        self.taskIdentifier = taskIdentifier
        self.kind = kind
        self.detail = detail
    }
}
