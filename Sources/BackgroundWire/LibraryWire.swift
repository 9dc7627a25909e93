import Foundation

/// What TransferKit's background sessions ask the daemon (DECISIONS 131). The daemon's own
/// `DaemonRequest` (CLI side, it carries the CLI's options) has a case `library(LibraryRequest)`
/// and its `DaemonReply` a case `library(LibraryReply)`; the library, which cannot see those
/// enums, writes and reads the same JSON through `LibraryEnvelope` and `LibraryReplyEnvelope`
/// (a CLI test checks that both sides read each other).
public enum LibraryRequest: Codable, Sendable, Equatable {
    /// Opens (or creates) the session and turns the connection into its event stream: first
    /// `.attached` with the tasks the library has not seen end, then every journaled event
    /// after the library's bookmark, in order, then each new one, until the client hangs up.
    case attach(session: String)
    /// A download task resumed for the first time; answered `.submitted(task:)`.
    case download(session: String, LibraryDownload)
    /// suspend, resume, cancel, cancelWithResumeData on one task, or invalidate (task nil).
    case control(session: String, task: Int64?, action: String)
    /// The library's delegate calls for every event through `seq` have returned: the daemon
    /// moves the library's bookmark and prunes what every bookmark is past (DECISIONS 133).
    case acknowledge(session: String, through: Int64)
}

/// A download the library hands to the daemon. Headers as `Name: value` lines; secret ones and
/// the URL's userinfo are used for the transfer but never journaled (DECISIONS 132).
public struct LibraryDownload: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [String]
    /// A download made from the daemon's resume data: the task directory its partial file is
    /// in, where the daemon runs the URL again and so continues it (DECISIONS 131).
    public var resumeDirectory: String?
    /// An upload task from a file: a PUT of this file (absolute path) instead of a download.
    public var uploadFile: String?
    /// The session's time-outs in seconds (`timeoutIntervalForRequest`, or the request's own
    /// `timeoutInterval`, and `timeoutIntervalForResource`), which the daemon's transfer keeps.
    /// Absent from an older library: the daemon's defaults (60 s and 7 days) apply.
    public var requestTimeout: Double?
    public var resourceTimeout: Double?

    public init(url: String, headers: [String], resumeDirectory: String? = nil, uploadFile: String? = nil,
                requestTimeout: Double? = nil, resourceTimeout: Double? = nil) {
        self.url = url
        self.headers = headers
        self.resumeDirectory = resumeDirectory
        self.uploadFile = uploadFile
        self.requestTimeout = requestTimeout
        self.resourceTimeout = resourceTimeout
    }
}

public enum LibraryReply: Codable, Sendable, Equatable {
    /// `through`: the library's bookmark; `asOf`: the last seq when the tasks were read (an
    /// event up to it is older than their states: its state is not applied again).
    case attached(tasks: [LibraryTask], through: Int64, asOf: Int64)
    case submitted(task: Int64)
    case event(LibraryEvent)
    case ok
    /// A running task's bytes as the daemon last checkpointed them (about once a second).
    case progress(task: Int64, received: Int64, expected: Int64?)
}

/// A task of the session as the daemon's journal has it.
public struct LibraryTask: Codable, Sendable, Equatable {
    public var number: Int64
    public var url: String
    /// queued, running, suspended, canceling or completed.
    public var state: String
    public var bytesReceived: Int64
    public var bytesExpected: Int64?

    public init(number: Int64, url: String, state: String, bytesReceived: Int64, bytesExpected: Int64?) {
        (self.number, self.url, self.state, self.bytesReceived, self.bytesExpected) = (number, url, state, bytesReceived, bytesExpected)
    }
}

/// One journaled event of the session. `task` is nil for session events ("invalidated",
/// "note", "restored"); a completed task's event carries its file (`path`), its error text and,
/// when the daemon kept one, its resume data (without credentials).
public struct LibraryEvent: Codable, Sendable, Equatable {
    public var seq: Int64
    public var kind: String
    public var task: LibraryTask?
    public var statusCode: Int?
    public var error: String?
    public var path: String?
    public var resumeData: Data?

    public init(seq: Int64, kind: String, task: LibraryTask?, statusCode: Int? = nil, error: String? = nil, path: String? = nil,
                resumeData: Data? = nil) {
        (self.seq, self.kind, self.task, self.statusCode, self.error, self.path, self.resumeData) =
            (seq, kind, task, statusCode, error, path, resumeData)
    }
}

/// The library's side of `DaemonRequest`: the two cases it sends, encoded as the daemon reads
/// them (Swift's synthesized enum coding: `{"hello":{"version":…}}`, `{"library":{"_0":…}}`).
public enum LibraryEnvelope: Codable, Sendable, Equatable {
    case hello(version: String)
    case library(LibraryRequest)
}

/// The library's side of `DaemonReply`: the cases the daemon sends it.
public enum LibraryReplyEnvelope: Codable, Sendable, Equatable {
    case hello(version: String, pid: Int32, journal: String)
    case library(LibraryReply)
    case failure(String)
}

public enum LibraryWire {
    /// What a library client says in `hello`. The daemon answers a client of another CLI
    /// version only with its hello; a library speaks this wire, versioned on its own, so an
    /// app's TransferKit works with the user's daemon as long as both read wire 1.
    public static let helloVersion = "transferkit-wire-1"
    /// The journal's client name of the library's bookmark in each session.
    public static let client = "transferkit"

    /// Why `name` is not a background session name (nil when it is one): 1-64 letters, digits,
    /// `.`, `_` and `-`, not starting with `-`, and not `.` or `..`. The CLI's `--background`
    /// names and the library's identifiers follow it; an identifier names a directory.
    public static func nameProblem(_ name: String, _ what: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "._-".unicodeScalars.contains($0)
        }
        guard !name.isEmpty, name.count <= 64, allowed, name.first != "-", name != ".", name != ".." else {
            let shown = name.count > 30 ? String(name.prefix(30)) + "…" : name
            return "\(what) takes a session name of 1-64 letters, digits, '.', '_' or '-', not '\(shown.debugDescription.dropFirst().dropLast())'"
        }
        return nil
    }

    /// Where the daemon puts a library session's downloads: one directory per task under
    /// `background/<identifier>/` in the state directory, removed once the library has them.
    public static func directory(_ paths: DaemonPaths, session: String) -> String {
        paths.stateDirectory + "/background/" + session
    }
}
