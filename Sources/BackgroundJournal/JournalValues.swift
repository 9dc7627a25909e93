import Foundation

/// A task's state as the mission names them, plus queued.
public enum JournalTaskState: String, Codable, Sendable {
    case queued, running, suspended, canceling, completed
}

public struct JournalSession: Sendable, Equatable {
    public var name: String
    public var created: Date
    public var invalidated: Bool

    public init(name: String, created: Date, invalidated: Bool) {
        self.name = name
        self.created = created
        self.invalidated = invalidated
    }
}

public struct JournalSubmission: Sendable, Equatable {
    public var id: Int64
    public var session: String
    /// Opaque JSON the caller already stripped of secrets: the journal never sees credentials.
    public var options: Data
    public var created: Date

    public init(id: Int64, session: String, options: Data, created: Date) {
        self.id = id
        self.session = session
        self.options = options
        self.created = created
    }
}

public struct JournalTask: Sendable, Equatable {
    public var session: String
    /// 1, 2, 3 ... per session, never reused.
    public var number: Int64
    public var submission: Int64
    public var url: String
    public var state: JournalTaskState
    /// HTTP status once known.
    public var statusCode: Int?
    /// Failure text when completed with an error (nil = ok).
    public var error: String?
    /// Where the finished file was placed.
    public var path: String?
    public var bytesReceived: Int64
    /// nil = unknown.
    public var bytesExpected: Int64?
    /// TransferKit resume data (already without credentials).
    public var resumeData: Data?

    public init(session: String, number: Int64, submission: Int64, url: String, state: JournalTaskState,
                statusCode: Int? = nil, error: String? = nil, path: String? = nil, bytesReceived: Int64 = 0,
                bytesExpected: Int64? = nil, resumeData: Data? = nil) {
        self.session = session
        self.number = number
        self.submission = submission
        self.url = url
        self.state = state
        self.statusCode = statusCode
        self.error = error
        self.path = path
        self.bytesReceived = bytesReceived
        self.bytesExpected = bytesExpected
        self.resumeData = resumeData
    }
}

public struct JournalEvent: Sendable, Equatable {
    /// Global and increasing; never reused, even after pruning.
    public var seq: Int64
    public var session: String
    /// The task number, nil for session-level events.
    public var task: Int64?
    /// e.g. "state", "completed", "invalidated" (caller-defined).
    public var kind: String
    /// The caller's JSON.
    public var payload: Data
    public var created: Date

    public init(seq: Int64, session: String, task: Int64?, kind: String, payload: Data, created: Date) {
        self.seq = seq
        self.session = session
        self.task = task
        self.kind = kind
        self.payload = payload
        self.created = created
    }
}
