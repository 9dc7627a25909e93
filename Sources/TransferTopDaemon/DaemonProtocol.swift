import BackgroundWire
import Foundation
import TransferTopRun

/// What a client asks the daemon, one JSON line each (`LineChannel`). Every connection starts
/// with `hello`, whose answer carries the daemon's version: a client of another version says
/// so instead of sending messages the daemon may read differently (version skew).
public enum DaemonRequest: Codable, Sendable, Equatable {
    case hello(version: String)
    /// Options as the client parsed them, paths already absolute and `-i` files read into
    /// `urls`. The daemon answers `.submitted` once the tasks are in the journal.
    case submit(session: String, options: Options)
    /// Every background session, or the named one.
    case status(session: String?)
    /// The session's events after `after` (0: all the journal still has), then each new one
    /// as it happens; `untilDone` ends the stream with `.done` when no task is unfinished.
    case follow(session: String, after: Int64, untilDone: Bool)
    /// A key of the monitor on a background task, or on every task of the session (nil).
    case control(session: String, task: Int64?, action: BackgroundAction)
    /// `control NAME retry|limit|connections`: a change to a running session or task.
    case change(session: String, task: Int64?, change: BackgroundChange)
    /// `transfertop daemon stop`: cancels downloads with resume data, then exits.
    case stop
    /// The monitor's feed (DECISIONS 128): `.status` of the live background sessions (not
    /// invalidated, or with an unfinished task, or already shown on this connection), or of
    /// the named one, at once, then again whenever it changed, at most about four times a
    /// second while a task runs (live byte counts, not only the journal's checkpoints); until
    /// the client hangs up; between two pictures `.progress` carries the byte counts of running
    /// tasks that moved. `.failure` ends it (an unknown session, a journal error).
    case watch(session: String?)
    /// A TransferKit background session's request (DECISIONS 131).
    case library(LibraryRequest)
}

public enum BackgroundAction: String, Codable, Sendable, Equatable, CaseIterable {
    /// `s`, `r`, `d` (cancel keeping resume data), `c` (cancel), `X` (invalidate the session).
    case suspend, resume, cancelWithResumeData, cancel, invalidate
}

/// Control while a background session runs (DECISIONS 178): retry a failed task, a bandwidth
/// limit for a task or the whole session, the session's connections per host.
public enum BackgroundChange: Codable, Sendable, Equatable {
    case retry
    /// Bytes per second, 0 for none.
    case rateLimit(Int64)
    case connectionsPerHost(Int)
}

public enum DaemonReply: Codable, Sendable, Equatable {
    case hello(version: String, pid: Int32, journal: String)
    case submitted(session: String, tasks: [Int64])
    case status([BackgroundSessionStatus])
    case event(BackgroundEvent)
    /// End of a `follow … untilDone`: every task is completed; `failed` of them did not succeed.
    case done(total: Int, failed: Int)
    case ok(String)
    /// The request was refused; the text is for the user.
    case failure(String)
    /// The answer to a `library` request, or an event of a library's `attach` stream.
    case library(LibraryReply)
    /// A `watch` between two pictures: only the byte counts of running tasks that changed
    /// (a picture of ten thousand tasks is not sent again four times a second for six).
    case progress([BackgroundTaskProgress])
}

public struct BackgroundTaskProgress: Codable, Sendable, Equatable {
    public var session: String
    public var number: Int64
    public var bytesReceived: Int64
    public var bytesExpected: Int64?
}

public struct BackgroundSessionStatus: Codable, Sendable, Equatable {
    public var name: String
    public var invalidated: Bool
    public var tasks: [BackgroundTaskStatus]
    /// The session's rate in bytes per second as a user set it (0: none); nil when never set.
    public var rateLimit: Int64? = nil
    /// Connections per host as a user set them, else as the running submissions have them;
    /// nil when neither is known (an earlier daemon's reply has neither field).
    public var connectionsPerHost: Int? = nil
    /// Whether `connectionsPerHost` is one a user set (the monitor's header shows it then).
    public var connectionsKept: Bool? = nil
}

/// A task as `status` shows it; also every event's picture of its task.
public struct BackgroundTaskStatus: Codable, Sendable, Equatable {
    public var number: Int64
    public var url: String
    /// queued, running, suspended, canceling or completed.
    public var state: String
    public var statusCode: Int?
    public var error: String?
    public var path: String?
    public var bytesReceived: Int64
    public var bytesExpected: Int64?
    /// Cancelled with resume data the journal keeps (`control … cancel` of a download, a
    /// library's cancel by producing resume data): an outcome of its own, not a failure.
    /// Optional: an event journaled before it existed still decodes.
    public var keptResumeData: Bool? = nil
    /// Cancelled and continuable from the journal's resume data.
    public var isCancelledWithResumeData: Bool {
        state == "completed" && keptResumeData == true && (error?.hasPrefix("cancelled") ?? false)
    }
    /// Completed without error, with a 2xx response (or none needed) and its file placed.
    public var succeeded: Bool { state == "completed" && error == nil && statusCode.map { (200..<300).contains($0) } ?? true }
}

public struct BackgroundEvent: Codable, Sendable, Equatable {
    public var seq: Int64
    public var session: String
    /// "state" (a task's state changed), "invalidated" (the session ended), "restored" (the
    /// daemon restarted and picked the session up from its journal).
    public var kind: String
    public var task: BackgroundTaskStatus?
    public var note: String?
}
