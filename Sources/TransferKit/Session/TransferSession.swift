import Foundation
import Synchronization

/// A group of tasks with one configuration, one delegate and a private connection pool.
/// Thread-safe: create tasks and call methods from any thread.
public final class TransferSession: @unchecked Sendable {
    // @unchecked: mutable state lives in `core` and `observers` (locks); the engine is itself
    // thread-safe.

    /// A process-wide session with the default configuration and no delegate.
    public static let shared: TransferSession = {
        let s = TransferSession(configuration: .default)
        sharedID.store(s.sessionID, ordering: .relaxed)
        return s
    }()
    /// The shared session's id once it exists (ids start at 1). Invalidating a session asks
    /// whether it is the shared one without touching `shared`, which would make it and spend
    /// a session number (and the numbers users see count from 1).
    private static let sharedID = Atomic<Int>(0)
    var isShared: Bool { sessionID == Self.sharedID.load(ordering: .relaxed) }

    public let configuration: TransferConfiguration
    /// Serial: callbacks arrive one at a time, in order.
    public let delegateQueue: DispatchQueue
    /// Unique within the process; used by the monitor and exports.
    public let sessionID: Int
    let engine: TransferEngine
    /// The session's cookie store (URLSession's `configuration.httpCookieStorage`): the shared
    /// persistent one of default sessions, an ephemeral session's own in memory, or the one the
    /// configuration named.
    public let cookieStorage: TransferCookieStorage
    /// Lines of the configuration's `cookieFiles` that could not be read, as one-line warnings.
    public let cookieFileProblems: [String]
    let core: Locked<SessionCore>
    /// Apart from `core`: every event reads them, from the transfer thread and the delegate
    /// queue at once, and under `core` such a read waited for a task being made or retired.
    private let observers = Locked<[any TransferObserver]>([])

    struct SessionCore {
        var state: SessionState = .active
        var name: String
        /// Bumped by every rename, so a task's cached snapshot can tell its session name is
        /// stale without comparing strings (`TransferTask.snapshot`).
        var nameVersion = 0
        var nextTaskID = 1
        /// Every task made, in order (the monitor shows completed ones too).
        var tasks: [TransferTask] = []
        var liveTaskIDs: Set<Int> = []
        var delegate: (any TransferSessionDelegate)? { didSet { roles = DelegateRoles(delegate) } }
        /// The protocols the delegate adopts, found once, not at every callback (each `as?` to a
        /// delegate protocol is a conformance look-up, several per downloaded file).
        var roles: DelegateRoles
        /// `completeInvalidation` has begun (it runs once).
        var invalidationCompleting = false
        /// Changed while the session runs (TransferSession+Limits.swift).
        var maximumConnectionsPerHost: Int
        var rateLimit: Int64 = 0
        var limitsChanged = false
    }

    private static let ids = Atomic<Int>(0)
    private static let unnumberedIDs = Atomic<Int>(0)

    /// Background identifiers of the live sessions of this process (two live sessions with
    /// one identifier are an error, where Apple leaves it undefined).
    static let liveBackgroundIdentifiers = Locked<Set<String>>([])
    /// The first problem of the configuration's headers (checked once, not for every task:
    /// the configuration is immutable).
    let configurationHeaderProblem: HeaderValidation.Problem?
    /// Set when another live session had this one's background identifier: its tasks fail.
    let duplicateBackgroundIdentifier: String?
    /// A background session's line to the daemon, which runs its downloads (DECISIONS 131).
    let backgroundLink: BackgroundLink?

    /// - Parameters:
    ///   - configuration: copied; later changes to the original have no effect.
    ///   - delegate: kept until *didBecomeInvalidWithError* has been delivered.
    ///   - delegateQueue: a serial queue for callbacks; a private one by default.
    public convenience init(configuration: TransferConfiguration, delegate: (any TransferSessionDelegate)? = nil,
                            delegateQueue: DispatchQueue? = nil, name: String? = nil) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue, name: name,
                  timerClock: MonotonicEngineClock())
    }

    /// A session whose delegate's type adopts the download role, and with it the task role:
    /// the roles come from the type, where the initializer above looks them up at run time.
    /// The first `as?` to each delegate protocol scans every conformance record of the binary,
    /// 4 % of a one-URL run of the CLI. Same session, same roles: a subclass cannot drop a
    /// conformance its class has.
    package convenience init<D: TransferDownloadDelegate>(configuration: TransferConfiguration, delegate: D,
                                                          delegateQueue: DispatchQueue? = nil, name: String? = nil) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue, name: name,
                  timerClock: MonotonicEngineClock(), roles: DelegateRoles(task: delegate, download: delegate))
    }

    /// A session for the program's own work that users never see as a session (the CLI's
    /// probe of files a rerun may skip): its id is negative, from a count of its own, so the
    /// sessions a user sees are numbered 1, 2, 3 in the order they were made.
    package convenience init(unnumbered configuration: TransferConfiguration, delegate: (any TransferSessionDelegate)?,
                             name: String) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: nil, name: name,
                  timerClock: MonotonicEngineClock(), numbered: false)
    }

    /// `timerClock`: the time the engine checks its deadlines against. Internal, not a
    /// configuration field: only tests pass another clock (DECISIONS 180).
    /// `externalCookies`: a `TransferURLSession`'s `HTTPCookieStorage`, used instead of the
    /// session's own stores.
    init(configuration: TransferConfiguration, delegate: (any TransferSessionDelegate)?,
         delegateQueue: DispatchQueue?, name: String?, timerClock: any EngineClock, numbered: Bool = true,
         externalCookies: (any ExternalCookieStore)? = nil, roles: DelegateRoles? = nil) {
        let id = numbered ? Self.ids.wrappingAdd(1, ordering: .relaxed).newValue
            : Self.unnumberedIDs.wrappingSubtract(1, ordering: .relaxed).newValue
        self.sessionID = id
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "transferkit.session.\(id).delegate")
        self.core = Locked(SessionCore(name: name ?? "\(configuration.kind.name)-\(id)", delegate: delegate,
                                       roles: roles ?? DelegateRoles(delegate),
                                       maximumConnectionsPerHost: configuration.httpMaximumConnectionsPerHost))
        let cookies = TransferCookieStorage.forConfiguration(configuration)
        // A cookie file is the session's, in memory (DECISIONS 109): imported into the shared
        // persistent store it would be sent by every later run, as curl never does.
        let own = TransferCookieStorage()
        var problems: [String] = []
        for file in configuration.cookieFiles {
            switch own.importFile(file) {
            case nil: problems.append("cannot read cookie file '\(SafeQuote.quote(file))'")
            case let lines? where !lines.isEmpty:
                let shown = lines.prefix(10).map(String.init).joined(separator: ", ") + (lines.count > 10 ? ", …" : "")
                problems.append("skipped \(lines.count) unreadable line\(lines.count == 1 ? "" : "s") of cookie file '\(SafeQuote.quote(file))' (line\(lines.count == 1 ? "" : "s") \(shown))")
            default: break
            }
        }
        self.cookieStorage = cookies
        self.cookieFileProblems = problems
        self.configurationHeaderProblem = HeaderValidation.firstProblem(configuration.httpAdditionalHeaders)
        self.engine = TransferEngine(configuration: configuration, sessionID: id, cookieStorage: cookies, sessionCookies: own,
                                     externalCookies: externalCookies,
                                     timerClock: timerClock)
        if case .background(let identifier) = configuration.kind,
           !Self.liveBackgroundIdentifiers.withLock({ $0.insert(identifier).inserted }) {
            duplicateBackgroundIdentifier = identifier
        } else {
            duplicateBackgroundIdentifier = nil
        }
        if case .background(let identifier) = configuration.kind, duplicateBackgroundIdentifier == nil {
            backgroundLink = BackgroundLink(identifier: identifier,
                                            environment: configuration.backgroundEnvironment ?? ProcessEnvironment.current())
        } else {
            backgroundLink = nil
        }
        backgroundLink?.bind(self)
    }

    public var name: String {
        get { core.withLock { $0.name } }
        set { core.withLock { $0.name = newValue; $0.nameVersion &+= 1 } }
    }

    public var state: SessionState { core.withLock { $0.state } }
    public var delegate: (any TransferSessionDelegate)? { core.withLock { $0.delegate } }

    /// The delegate as the protocols it adopts (nil once the session let go of it).
    var delegateRoles: DelegateRoles { core.withLock { $0.roles } }

    /// The session delegate's task and download roles, cast once when it is set.
    struct DelegateRoles {
        let task: (any TransferTaskDelegate)?
        let download: (any TransferDownloadDelegate)?
        /// Found by `as?` at run time, not taken from the delegate's type.
        let lookedUp: Bool

        init(_ delegate: (any TransferSessionDelegate)?) {
            task = delegate as? any TransferTaskDelegate
            download = delegate as? any TransferDownloadDelegate
            lookedUp = true
        }

        /// Roles known from a delegate's static type: no look-up at run time.
        init(task: any TransferTaskDelegate, download: any TransferDownloadDelegate) {
            self.task = task
            self.download = download
            lookedUp = false
        }
    }

    /// The tasks that have not completed, in creation order (URLSession's `allTasks` /
    /// `getAllTasks`: a completed task is not listed).
    public var allTasks: [TransferTask] { heldTasks.filter { $0.state != .completed } }

    /// Every task this session still holds, completed ones included, in creation order (what
    /// `snapshot()` lists; see `forgetCompletedTask`).
    public var heldTasks: [TransferTask] { core.withLock { $0.tasks } }

    /// The tasks Foundation's `getAllTasks` lists: resumed at least once (running, or
    /// suspended after a resume), neither completed nor being cancelled.
    public var outstandingTasks: [TransferTask] {
        heldTasks.filter { t in t.core.withLock { $0.machine.hasStarted && ($0.machine.state == .running || $0.machine.state == .suspended) } }
    }

    /// URLSession's `getAllTasks(completionHandler:)`: `outstandingTasks`, on the delegate queue.
    public func getAllTasks(completionHandler: @escaping @Sendable ([TransferTask]) -> Void) {
        let tasks = outstandingTasks
        delegateQueue.async { completionHandler(tasks) }
    }

    /// URLSession's `getTasksWithCompletionHandler`: the outstanding data (not upload), upload
    /// and download tasks, on the delegate queue.
    public func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable ([TransferDataTask], [TransferUploadTask], [TransferDownloadTask]) -> Void
    ) {
        let tasks = outstandingTasks
        let uploads = tasks.compactMap { $0 as? TransferUploadTask }
        let data = tasks.compactMap { $0 as? TransferDataTask }.filter { !($0 is TransferUploadTask) }
        let downloads = tasks.compactMap { $0 as? TransferDownloadTask }
        delegateQueue.async { completionHandler(data, uploads, downloads) }
    }

    /// Lets go of a completed task: `heldTasks` and `snapshot()` no longer list it. For owners
    /// that keep what they need of finished tasks themselves and run more tasks than they
    /// want held in memory (the CLI's long URL lists). Ignored unless completed.
    public func forgetCompletedTask(_ task: TransferTask) {
        guard task.state == .completed else { return }
        core.withLock { c in
            // Tasks are appended in identifier order, so a binary search finds it.
            var lo = 0, hi = c.tasks.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if c.tasks[mid].taskIdentifier < task.taskIdentifier { lo = mid + 1 } else { hi = mid }
            }
            if lo < c.tasks.count, c.tasks[lo] === task { c.tasks.remove(at: lo) }
        }
    }

    public func addObserver(_ observer: any TransferObserver) {
        observers.withLock { $0.append(observer) }
    }

    public func snapshot() -> SessionSnapshot {
        let (state, name, nameVersion, tasks, perHost, rate, changed) = core.withLock {
            ($0.state, $0.name, $0.nameVersion, $0.tasks, $0.maximumConnectionsPerHost, $0.rateLimit, $0.limitsChanged)
        }
        return SessionSnapshot(id: sessionID, name: name, kind: configuration.kind, state: state,
                               maxConnectionsPerHost: perHost, rateLimit: rate, limitsChanged: changed,
                               tasks: tasks.map { $0.snapshot(sessionName: name, nameVersion: nameVersion) })
    }

    // MARK: making tasks

    public func dataTask(with url: URL) -> TransferDataTask { dataTask(with: TransferRequest(url: url)) }

    /// A request's `httpBody` is sent, as Apple's data tasks send it.
    public func dataTask(with request: TransferRequest) -> TransferDataTask {
        register {
            TransferDataTask(session: self, identifier: $0, kind: .data, request: request,
                             upload: request.httpBody.map(UploadSource.data))
        }
    }

    public func dataTask(with request: TransferRequest,
                         completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferDataTask {
        register {
            TransferDataTask(session: self, identifier: $0, kind: .data, request: request,
                             upload: request.httpBody.map(UploadSource.data), completion: .data(completionHandler))
        }
    }

    public func uploadTask(with request: TransferRequest, from body: Data) -> TransferUploadTask {
        makeUpload(request, .data(body), nil)
    }

    public func uploadTask(with request: TransferRequest, fromFile file: URL) -> TransferUploadTask {
        makeUpload(request, .file(file), nil)
    }

    public func uploadTask(with request: TransferRequest, from body: Data,
                           completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferUploadTask {
        makeUpload(request, .data(body), .data(completionHandler))
    }

    public func uploadTask(with request: TransferRequest, fromFile file: URL,
                           completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferUploadTask {
        makeUpload(request, .file(file), .data(completionHandler))
    }

    /// URLSession's `uploadTask(withStreamedRequest:)`: the body comes from the stream the
    /// delegate gives in `needNewBodyStream` (asked again when a 307/308 must resend it), its
    /// length unknown (sent chunked over HTTP/1.1).
    public func uploadTask(withStreamedRequest request: TransferRequest) -> TransferUploadTask {
        makeUpload(request, .streamed, nil)
    }

    func uploadTask(with request: TransferRequest, multipart layout: MultipartLayout) -> TransferUploadTask {
        makeUpload(request, .segments(layout.segments), nil)
    }

    func uploadTask(with request: TransferRequest, multipart layout: MultipartLayout,
                    completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferUploadTask {
        makeUpload(request, .segments(layout.segments), .data(completionHandler))
    }

    /// A body made of segments (bytes, files, file ranges), sent with the completion handler.
    func uploadTask(with request: TransferRequest, segments: [MultipartLayout.Segment],
                    completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferUploadTask {
        makeUpload(request, .segments(segments), .data(completionHandler))
    }

    private func makeUpload(_ request: TransferRequest, _ source: UploadSource, _ completion: TaskCompletion?)
        -> TransferUploadTask {
        register {
            TransferUploadTask(session: self, identifier: $0, kind: .upload, request: request, upload: source,
                               completion: completion)
        }
    }

    public func downloadTask(with url: URL) -> TransferDownloadTask { downloadTask(with: TransferRequest(url: url)) }

    public func downloadTask(with request: TransferRequest) -> TransferDownloadTask {
        register { TransferDownloadTask(session: self, identifier: $0, kind: .download, request: request) }
    }

    public func downloadTask(with request: TransferRequest,
                             completionHandler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void)
        -> TransferDownloadTask {
        register {
            TransferDownloadTask(session: self, identifier: $0, kind: .download, request: request,
                                 completion: .download(completionHandler))
        }
    }

    /// Assigns the next identifier and records the task. A task made after invalidation is
    /// refused: it completes with `.sessionInvalidated` as soon as it is resumed.
    func register<T: TransferTask>(_ make: (Int) -> T) -> T {
        let task: T = core.withLock { c in
            let t = make(c.nextTaskID)
            c.nextTaskID += 1
            c.tasks.append(t)
            if c.state == .active { c.liveTaskIDs.insert(t.taskIdentifier) }
            return t
        }
        if task.rejection == nil, let identifier = duplicateBackgroundIdentifier {
            task.rejection = TransferError(.invalidRequest, "another live session of this process has the background identifier '\(SafeQuote.quote(identifier))'; invalidate it first")
        }
        if task.rejection == nil, backgroundLink != nil, !(task is TransferDownloadTask), !BackgroundLink.isFileUpload(task) {
            // URLSession raises for these; a task that fails at once says the same without a crash.
            task.rejection = TransferError(.invalidRequest, "a background session runs download tasks and uploads from a file only (this \(task.kind) task is not supported, as URLSession's background sessions do not support it); use downloadTask(with:) or uploadTask(with:fromFile:)")
        }
        if task.rejection == nil, let problem = HeaderValidation.firstProblem(task.originalRequest.headers) ?? configurationHeaderProblem {
            // Refused like a task after invalidation: it fails as soon as it is resumed.
            task.rejection = TransferError(.invalidRequest, "refused to send the request: \(problem)")
        }
        emit(.taskCreated, task: task, detail: "\(task.kind) \(Redaction.redactURL(task.originalRequest.url.absoluteString))")
        return task
    }

    var isAcceptingTasks: Bool { core.withLock { $0.state == .active } }

    // MARK: events

    /// `detail` is built only when someone observes (it may redact a URL: not free).
    func emit(_ kind: TransferEvent.Kind, task: TransferTask? = nil, detail: @autoclosure () -> String = "") {
        let observers = self.observers.withLock { $0 }
        // Eight events per URL, most of which line mode ignores: one nobody wants is not
        // made (DECISIONS 137).
        let wanting = observers.filter { $0.transferSession(self, observes: kind) }
        guard !wanting.isEmpty else { return }
        let event = TransferEvent(date: Date(), sessionID: sessionID, taskIdentifier: task?.taskIdentifier,
                                  kind: kind, detail: detail())
        for o in wanting { o.transferSession(self, didEmit: event) }
    }

    /// Sends a command to the transfer thread; if the engine is gone the task fails at once.
    func engineSend(_ command: TransferEngine.Command) {
        if case .start(let task, _) = command, let rejection = task.rejection {
            task.fail(rejection)
            return
        }
        if case .start(let task, _) = command, !core.withLock({ $0.liveTaskIDs.contains(task.taskIdentifier) }) {
            task.fail(TransferError(.sessionInvalidated, "the session was invalidated; it accepts no new tasks"))
            return
        }
        if let link = backgroundLink {
            link.send(command)
            return
        }
        if !engine.send(command) {
            command.task?.fail(TransferError(.sessionInvalidated, "the session's transfer thread has shut down"))
        }
    }
}
