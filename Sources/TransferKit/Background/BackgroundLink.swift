import BackgroundWire
import Foundation
import TransferModel

/// A background session's line to the per-user daemon (DECISIONS 131): download
/// tasks are handed to it, and what happens to them comes back as the journal's events, to the
/// delegate, once each (the library acknowledges an event after its delegate calls returned).
/// Two connections: one that carries the event stream (`attach`), read by a thread of its
/// own, and one for requests, one at a time. Thread-safe.
final class BackgroundLink: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a lock); `commandLock` orders the requests and
    // `routing` makes an event wait for the submission that numbers its task.
    let identifier: String
    let paths: Result<DaemonPaths, DaemonError>
    let environment: [String: String]
    /// Submissions and controls, in the order the tasks' methods were called.
    let queue: DispatchQueue
    let state = Locked(LinkState())
    let commandLock = NSLock()
    let routing = NSLock()
    nonisolated(unsafe) weak var session: TransferSession?

    struct LinkState {
        var command: LineChannel?
        var events: LineChannel?
        var attached = false
        var ended = false
        /// The daemon's number of each task (`taskIdentifier` →), and back.
        var numbers: [Int: Int64] = [:]
        var tasks: [Int64: TransferTask] = [:]
        /// Numbers whose completion this process delivered (`restore` skips them).
        var finished: Set<Int64> = []
        /// Attaches tried since the last message from the daemon (`reattach`).
        var reattempts = 0
        /// `cancel(byProducingResumeData:)` handlers, answered when the completion arrives.
        var resumeReplies: [Int: @Sendable (Data?) -> Void] = [:]
        /// The last event handled: a stream opened again after a lost connection may repeat
        /// events not yet acknowledged.
        var lastSeq: Int64 = 0
        /// Events up to this seq are older than the restored tasks' states (`attached`).
        var statesAsOf: Int64 = 0
    }

    init(identifier: String, environment: [String: String] = ProcessEnvironment.current()) {
        self.identifier = identifier
        self.environment = environment
        queue = DispatchQueue(label: "transferkit.background.\(identifier)")
        // Nothing is created until the daemon must be started: most sessions may never need it.
        // An identifier that is no session name is refused before it names any directory:
        // its tasks fail with the reason (review 14).
        if let problem = LibraryWire.nameProblem(identifier, "a background session identifier") {
            paths = .failure(DaemonError(problem))
            return
        }
        do { paths = .success(try DaemonPaths.standard(environment, create: false)) } catch { paths = .failure(error) }
    }

    /// Called once the session is made: a session whose identifier the daemon already knows
    /// (its directory exists) or whose daemon runs attaches now, so the events of its tasks
    /// that ended meanwhile reach the new delegate and `allTasks` lists the unfinished ones.
    func bind(_ session: TransferSession) {
        self.session = session
        guard case .success(let paths) = paths else { return }
        let known = FileManager.default.fileExists(atPath: LibraryWire.directory(paths, session: identifier))
        let running = DaemonLock.holderPID(paths.lock) != nil
        guard known || running else { return }
        do { try attach(start: true) } catch {
            session.emit(.delegateCallback("background"), detail: "cannot attach to the daemon: \(error)")
        }
    }

    // MARK: connections

    /// Connects and says hello, starting the daemon if `start` and none answers.
    func open(start: Bool) throws(DaemonError) -> LineChannel {
        let paths = try paths.get()
        do { return try hello(paths) } catch {
            guard start else { throw error }
        }
        guard let executable = DaemonLauncher.executable() else {
            throw DaemonError("no transfertop daemon is running and no transfertop executable was found to start one "
                              + "(set TRANSFERTOP_EXECUTABLE, or put transfertop beside this program or on PATH)")
        }
        _ = try DaemonPaths.standard(environment, create: true)  // the daemon's log is opened in the state directory
        try DaemonLauncher.start(paths, executable: executable)
        // It listens from the moment it holds its lock; another client's start may have won.
        let deadline = Date().addingTimeInterval(10)
        while true {
            do { return try hello(paths) } catch {
                guard DaemonLock.holderPID(paths.lock) != nil, Date() < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    func hello(_ paths: DaemonPaths) throws(DaemonError) -> LineChannel {
        let channel = try LineChannel.connect(paths.socket)
        guard case .hello? = try DaemonHello.exchange(LibraryEnvelope.hello(version: LibraryWire.helloVersion), on: channel,
                                                      reply: LibraryReplyEnvelope.self, paths: paths) else {
            throw DaemonError("the daemon at '\(paths.socket)' did not answer hello")
        }
        return channel
    }

    /// Opens both connections once; restores the tasks the daemon lists and starts reading.
    func attach(start: Bool) throws(DaemonError) {
        if state.withLock({ $0.attached || $0.ended }) { return }
        let command = try open(start: start)
        let events = try open(start: false)
        try events.send(LibraryEnvelope.library(.attach(session: identifier)))
        let first = try events.receive(LibraryReplyEnvelope.self)
        guard case .library(.attached(let tasks, let through, let asOf))? = first else {
            if case .failure(let why)? = first { throw DaemonError(why) }
            throw DaemonError("the daemon did not attach the session (an older daemon? 'transfertop daemon stop' replaces it)")
        }
        state.withLock { s in
            s.command = command
            s.events = events
            s.attached = true
            s.lastSeq = max(s.lastSeq, through)
            s.statesAsOf = max(s.statesAsOf, asOf)
        }
        restore(tasks)
        Thread.detachNewThread { [self] in read(events) }
    }

    /// One request and its answer; a refusal is thrown with the daemon's words.
    @discardableResult
    func request(_ r: LibraryRequest) throws(DaemonError) -> LibraryReply {
        commandLock.lock()
        defer { commandLock.unlock() }
        guard let channel = state.withLock({ $0.command }) else { throw DaemonError("not connected to the daemon") }
        try channel.send(LibraryEnvelope.library(r))
        switch try channel.receive(LibraryReplyEnvelope.self) {
        case .library(let reply)?: return reply
        case .failure(let why)?: throw DaemonError(why)
        case .hello?: throw DaemonError("the daemon answered hello twice")
        case nil: throw DaemonError("the daemon closed the connection")
        }
    }

    // MARK: commands from the tasks

    /// The session's engine commands for a task of this session go here instead.
    func send(_ command: TransferEngine.Command) {
        switch command {
        case .start(let task, _):
            queue.async { [self] in submit(task) }
        case .suspend(let task):
            queue.async { [self] in control(task, "suspend") }
        case .resume(let task):
            queue.async { [self] in control(task, "resume") }
        case .cancel(let task, let withResumeData, let reply):
            if let reply { state.withLock { $0.resumeReplies[task.taskIdentifier] = reply } }
            queue.async { [self] in control(task, withResumeData ? "cancelWithResumeData" : "cancel") }
        case .shutdown(let done):
            done.signal()
        default:
            command.task?.fail(TransferError(.invalidRequest, "not supported by a background session"))
        }
    }

    /// A download's first resume: submitted to the daemon, which numbers it.
    func submit(_ task: TransferTask) {
        routing.lock()
        defer { routing.unlock() }
        let request = task.originalRequest
        var uploadFile: String?
        if Self.isFileUpload(task), case .file(let file)? = task.upload {
            // The daemon's uploads are line mode's: a PUT of the file.
            guard request.httpMethod == "PUT" else {
                return finishHere(task, TransferError(.invalidRequest, "a background upload is a PUT of its file (this is \(request.httpMethod))"))
            }
            uploadFile = file.standardizedFileURL.path
        } else if request.httpMethod != "GET" || request.httpBody != nil {
            return finishHere(task, TransferError(.invalidRequest, "a background session downloads with GET only (this is \(request.httpMethod))"))
        }
        // Cancelled before it reached the daemon: it ends here.
        if task.state == .canceling { return finishHere(task, .cancelled(url: request.url.absoluteString)) }
        let headers = ((session?.configuration.httpAdditionalHeaders ?? []) + request.headers).map { "\($0.name): \($0.value)" }
        let resumeDirectory = task.resumeFrom.flatMap { taskDirectory(of: $0.partialFilePath) }
        do {
            try attach(start: true)
            guard case .submitted(let number) = try self.request(.download(session: identifier, LibraryDownload(
                url: request.url.absoluteString, headers: headers, resumeDirectory: resumeDirectory, uploadFile: uploadFile,
                requestTimeout: (request.timeoutInterval ?? session?.configuration.timeoutIntervalForRequest).map(Self.daemonIdleSeconds),
                resourceTimeout: (session?.configuration.timeoutIntervalForResource).map(Self.daemonResourceSeconds)))) else {
                throw DaemonError("the daemon did not take the download")
            }
            state.withLock { s in
                s.numbers[task.taskIdentifier] = number
                s.tasks[number] = task
            }
        } catch {
            finishHere(task, TransferError(.cannotConnectToHost, "background session '\(identifier)': \(error)"))
        }
    }

    /// The time-outs as the daemon takes them (0.001 s to ten years), meaning what they mean to
    /// this process's engine (TransferTimers): an idle time-out that is not positive (or NaN) is
    /// none, so the longest; a resource time-out that is not positive ends the task at once, so
    /// the shortest. Anything longer than ten years is ten years.
    static func daemonIdleSeconds(_ t: TimeInterval) -> Double {
        t > 0 ? NumericBounds.clampedSeconds(t) : NumericBounds.maximumSeconds
    }

    static func daemonResourceSeconds(_ t: TimeInterval) -> Double {
        t > 0 ? NumericBounds.clampedSeconds(t) : NumericBounds.minimumSeconds
    }

    /// An upload task whose body is a file: the one kind of upload a background session takes.
    static func isFileUpload(_ task: TransferTask) -> Bool {
        guard task is TransferUploadTask, case .file? = task.upload else { return false }
        return true
    }

    /// The task directory of the daemon's that holds `partialPath` directly, if it is one of
    /// this identifier's (`background/<identifier>/<task>/`).
    func taskDirectory(of partialPath: String) -> String? {
        guard case .success(let paths) = paths else { return nil }
        let directory = (partialPath as NSString).deletingLastPathComponent
        guard (directory as NSString).deletingLastPathComponent == LibraryWire.directory(paths, session: identifier),
              PartialFileName.isPartialName((partialPath as NSString).lastPathComponent) else { return nil }
        return directory
    }

    func control(_ task: TransferTask, _ action: String) {
        guard let number = state.withLock({ $0.numbers[task.taskIdentifier] }) else { return }
        // Refused when the task ended meanwhile: its completion event is on its way.
        _ = try? request(.control(session: identifier, task: number, action: action))
    }

    /// Ends a task the daemon never had.
    func finishHere(_ task: TransferTask, _ error: TransferError) {
        let reply = state.withLock { $0.resumeReplies.removeValue(forKey: task.taskIdentifier) }
        task.fail(error)
        // Not here: this runs on `queue` holding `routing`, and a handler that invalidates the
        // session would wait for `queue` in end() (review 7).
        if let reply { (session?.delegateQueue ?? .global()).async { reply(nil) } }
    }

    /// The session was invalidated (every task ended): the daemon's session ends too, and the
    /// connections close, before *didBecomeInvalidWithError* (a process may exit after it).
    func end() {
        queue.sync { [self] in
            let (attached, events) = state.withLock { s -> (Bool, LineChannel?) in
                s.ended = true
                return (s.attached, s.events)
            }
            if attached { _ = try? request(.control(session: identifier, task: nil, action: "invalidate")) }
            events?.shutdown()
            state.withLock { $0.command?.shutdown() }
        }
    }
}
