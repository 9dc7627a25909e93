import Foundation

/// Everything the monitor, the exporters and tests may read about a task at one instant.
///
/// Snapshots are values: the engine makes them on request, and readers never touch live
/// engine state. The fields live in one copy-on-write box, so copying a
/// snapshot is one retain instead of one per string and array: the monitor copies every
/// task's snapshot several times per frame, and with 10,000 tasks those copies were most of
/// the frame.
public struct TaskSnapshot: Sendable, Equatable, Identifiable {
    /// Session and task identifiers together identify a task in a process.
    public var id: TaskID { TaskID(session: sessionID, task: taskIdentifier) }

    struct Fields: Sendable, Equatable {
        var sessionID: Int
        var sessionName: String
        var taskIdentifier: Int
        var kind: TaskKind
        var state: TaskState
        var taskDescription: String?
        var method: String
        var originalURL: String
        var currentURL: String
        var countOfBytesReceived: Int64
        var countOfBytesExpectedToReceive: Int64
        var countOfBytesSent: Int64
        var countOfBytesExpectedToSend: Int64
        var statusCode: Int?
        var networkProtocolName: String?
        var metrics: TaskMetrics
        var error: TransferError?
        var isResumable: Bool
        var resumeOffset: Int64?
        var outputPath: String?
        var rateLimit: Int64
    }

    /// Mutated only when uniquely referenced (`update`), so sharing it is safe.
    final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    private mutating func update(_ body: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        body(&storage.fields)
    }

    /// Whether both are the same snapshot, not only equal: a task hands out its last snapshot
    /// again while nothing in it changed, so a reader can keep what it derived from it.
    public func sharesStorage(with other: TaskSnapshot) -> Bool { storage === other.storage }

    public static func == (a: TaskSnapshot, b: TaskSnapshot) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    public var sessionID: Int {
        get { storage.fields.sessionID }
        set { update { $0.sessionID = newValue } }
    }
    public var sessionName: String {
        get { storage.fields.sessionName }
        set { update { $0.sessionName = newValue } }
    }
    public var taskIdentifier: Int {
        get { storage.fields.taskIdentifier }
        set { update { $0.taskIdentifier = newValue } }
    }
    public var kind: TaskKind {
        get { storage.fields.kind }
        set { update { $0.kind = newValue } }
    }
    public var state: TaskState {
        get { storage.fields.state }
        set { update { $0.state = newValue } }
    }
    public var taskDescription: String? {
        get { storage.fields.taskDescription }
        set { update { $0.taskDescription = newValue } }
    }
    public var method: String {
        get { storage.fields.method }
        set { update { $0.method = newValue } }
    }
    public var originalURL: String {
        get { storage.fields.originalURL }
        set { update { $0.originalURL = newValue } }
    }
    public var currentURL: String {
        get { storage.fields.currentURL }
        set { update { $0.currentURL = newValue } }
    }
    public var countOfBytesReceived: Int64 {
        get { storage.fields.countOfBytesReceived }
        set { update { $0.countOfBytesReceived = newValue } }
    }
    /// -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 {
        get { storage.fields.countOfBytesExpectedToReceive }
        set { update { $0.countOfBytesExpectedToReceive = newValue } }
    }
    public var countOfBytesSent: Int64 {
        get { storage.fields.countOfBytesSent }
        set { update { $0.countOfBytesSent = newValue } }
    }
    /// -1 when unknown.
    public var countOfBytesExpectedToSend: Int64 {
        get { storage.fields.countOfBytesExpectedToSend }
        set { update { $0.countOfBytesExpectedToSend = newValue } }
    }
    public var statusCode: Int? {
        get { storage.fields.statusCode }
        set { update { $0.statusCode = newValue } }
    }
    public var networkProtocolName: String? {
        get { storage.fields.networkProtocolName }
        set { update { $0.networkProtocolName = newValue } }
    }
    /// Metrics so far; the last transaction may still be running (its `currentPhase` says where).
    public var metrics: TaskMetrics {
        get { storage.fields.metrics }
        set { update { $0.metrics = newValue } }
    }
    public var error: TransferError? {
        get { storage.fields.error }
        set { update { $0.error = newValue } }
    }
    /// Whether cancelling now with resume data could later continue this download.
    public var isResumable: Bool {
        get { storage.fields.isResumable }
        set { update { $0.isResumable = newValue } }
    }
    /// The offset the task resumed at, when it was made from resume data.
    public var resumeOffset: Int64? {
        get { storage.fields.resumeOffset }
        set { update { $0.resumeOffset = newValue } }
    }
    /// Where a finished download was placed by its owner, if known (e.g. the CLI's output file).
    public var outputPath: String? {
        get { storage.fields.outputPath }
        set { update { $0.outputPath = newValue } }
    }
    /// The task's own bandwidth limit in bytes per second (0: none), set while it runs.
    public var rateLimit: Int64 {
        get { storage.fields.rateLimit }
        set { update { $0.rateLimit = newValue } }
    }

    public init(sessionID: Int, sessionName: String, taskIdentifier: Int, kind: TaskKind,
                state: TaskState, taskDescription: String? = nil, method: String = "GET",
                originalURL: String, currentURL: String? = nil, countOfBytesReceived: Int64 = 0,
                countOfBytesExpectedToReceive: Int64 = -1, countOfBytesSent: Int64 = 0,
                countOfBytesExpectedToSend: Int64 = -1, statusCode: Int? = nil,
                networkProtocolName: String? = nil, metrics: TaskMetrics, error: TransferError? = nil,
                isResumable: Bool = false, resumeOffset: Int64? = nil, outputPath: String? = nil,
                rateLimit: Int64 = 0) {
        storage = Storage(Fields(sessionID: sessionID, sessionName: sessionName, taskIdentifier: taskIdentifier, kind: kind, state: state, taskDescription: taskDescription, method: method, originalURL: originalURL, currentURL: currentURL ?? originalURL, countOfBytesReceived: countOfBytesReceived, countOfBytesExpectedToReceive: countOfBytesExpectedToReceive, countOfBytesSent: countOfBytesSent, countOfBytesExpectedToSend: countOfBytesExpectedToSend, statusCode: statusCode, networkProtocolName: networkProtocolName, metrics: metrics, error: error, isResumable: isResumable, resumeOffset: resumeOffset, outputPath: outputPath, rateLimit: rateLimit))
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
    /// The session's bandwidth limit in bytes per second, shared by its transfers (0: none).
    public var rateLimit: Int64
    /// A limit (bandwidth, connections per host) was changed while the session ran: the
    /// monitor's header shows them from then on.
    public var limitsChanged: Bool
    public var tasks: [TaskSnapshot]

    public init(id: Int, name: String, kind: SessionKind, state: SessionState,
                maxConnectionsPerHost: Int, rateLimit: Int64 = 0, limitsChanged: Bool = false, tasks: [TaskSnapshot]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.state = state
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.rateLimit = rateLimit
        self.limitsChanged = limitsChanged
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
