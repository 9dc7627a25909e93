import Foundation
import RunEvidence
import Synchronization
import TransferKit

/// Runs a plan in TransferKit sessions and keeps what the run produced: file placement,
/// resume data, outcomes. Line mode and the monitor both drive a `Runner` (one logic,
/// two faces). Thread-safe: engine threads call in through the delegate and observer.
public final class Runner: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a lock); the rest is immutable after init.
    public let plan: RunPlan
    let store: ResumeStore?
    let group = DispatchGroup()
    package let state = Locked(State())
    /// The `name (n)` numbers this run has taken (`OutputNaming.place`).
    let nameHints = NameHints()
    /// Called for every engine event (on engine threads: keep it quick). Boxed in a class: a
    /// closure stored directly as `Locked`'s generic value is reabstracted on the way into and
    /// out of `withLock`'s inout, so every read wrapped it in two more thunks, and after some
    /// 10,000 events calling it overflowed the stack.
    let sink = Locked<EventSink?>(nil)
    /// Every finished task's hops, per host and phase, when the run reports them (`--summary
    /// hosts|all|json`, `--slo`): histograms of constant size, so the evidence of a long list
    /// costs no more memory than a short one's, and line mode still lets each task go.
    let evidence = Locked<RunStatistics?>(nil)
    /// Cache problems already said (`takeNotices`).
    let reportedCacheProblems = Locked<Set<String>>([])
    /// Running downloads' resume records, kept as their partial files grow.
    let checkpoints = ResumeCheckpoints()

    final class EventSink: Sendable {
        let body: @Sendable (TransferSession, TransferEvent) -> Void
        init(_ body: @escaping @Sendable (TransferSession, TransferEvent) -> Void) { self.body = body }
    }

    package struct State {
        var sessions: [TransferSession] = []
        var tasks: [TaskID: TransferTask] = [:]
        package var plans: [TaskID: TaskPlan] = [:]
        var finished: Set<TaskID> = []
        /// `--upload -` gave standard input to a task already.
        var standardInputTaken = false
        /// Uploads from a FIFO, device or socket whose stream was given (once each).
        var streamsTaken: Set<TaskID> = []
        var heldResumeData: [TaskID: Data] = [:]
        /// Tasks continued with `R`, and the task that continues each.
        var continuedAs: [TaskID: TaskID] = [:]
        var notices: [String] = []
        var interrupted = false
        /// The tasks an interruption found unfinished and stopped.
        var stoppedByInterruption: Set<TaskID> = []
        /// Tasks whose resume data was written to the store in this run.
        var resumeSaved: Set<TaskID> = []
        // Streaming (Runner+Feed.swift).
        var feeds: [Int: Feed] = [:]
        /// A whole background session was suspended: nothing more is fed until it resumes
        /// (`holdFeeding`); the group holds one entry for the waiting tasks meanwhile.
        var feedingHeld = false
        var fed: Set<TaskID> = []
        var retired: [TaskSnapshot] = []
        var keepsCompleted = true
        /// Keys of the resume store's records (Runner+ResumeIndex.swift).
        var resumeKeys: Set<String>? = nil
        /// Downloads whose crash-recovery record is on disk (Runner+CrashRecovery.swift).
        var crashRecorded: Set<ObjectIdentifier> = []
        /// Segmented uploads by session (Runner+Segments.swift).
        var segmented: [Int: SegmentedUpload] = [:]
        var afterStart: (@Sendable () -> Void)?
        /// Called with each session once made, before any of its tasks is (`whenSessionMade`).
        var sessionMade: (@Sendable (TransferSession) -> Void)?
    }

    /// Whether finished tasks stay in their session and in `tasks` (the monitor shows them
    /// and `R` needs them). Line mode turns this off so a long list holds only the window.
    public var keepsCompletedTasks: Bool {
        get { state.withLock { $0.keepsCompleted } }
        set { state.withLock { $0.keepsCompleted = newValue } }
    }

    /// Logs, `--trace` and `--prometheus` (Observability/): fixed before the run starts.
    let observability: RunObservability
    /// The completion journal of the output directory, open for the run (none without a
    /// resume store: the demo and tests that keep no state).
    let completions: CompletionStore.Journal?

    public init(plan: RunPlan, store: ResumeStore?, observability: RunObservability = RunObservability()) {
        self.plan = plan
        self.store = store
        self.observability = observability
        completions = store == nil ? nil : CompletionStore.standard().map {
            CompletionStore.Journal(store: $0, outputDirectory: plan.outputDirectory)
        }
    }

    /// Starts keeping the run's per-host phase statistics (before `start`).
    public func collectEvidence() { evidence.withLock { if $0 == nil { $0 = RunStatistics() } } }

    /// The statistics so far (nil unless `collectEvidence` was called).
    public var statistics: RunStatistics? { evidence.withLock { $0 } }

    /// `stateAndProgressOnly`: the sink reads only task state changes and progress (line
    /// mode), so the sessions need not make the other events at all (DECISIONS 137).
    public func setEventSink(stateAndProgressOnly: Bool = false,
                             _ body: @escaping @Sendable (TransferSession, TransferEvent) -> Void) {
        let box = EventSink(body)
        sink.withLock { $0 = box }
        observesAllEvents.store(!stateAndProgressOnly, ordering: .relaxed)
    }

    /// Whether the run's observer wants every event kind, or only what the Runner itself and
    /// its observability read: task state changes and progress (`RunObserver`).
    let observesAllEvents = Atomic<Bool>(true)

    public var sessions: [TransferSession] { state.withLock { $0.sessions } }

    /// The sessions' `deliveryCoalescingInterval`, seconds.
    static let deliveryCoalescing: TimeInterval = 0.010

    /// Creates every session and starts its tasks, at most `window` at a time per session;
    /// the rest start as earlier ones complete (Runner+Feed.swift).
    public func start() {
        for sp in plan.sessions {
            let session = makeSession(sp)
            state.withLock { $0.feeds[session.sessionID] = Feed(tasks: sp.tasks, urls: sp.downloadURLs) }
            feed(session)
        }
        state.withLock { $0.afterStart }?()
    }

    @discardableResult
    public func makeSession(_ sp: SessionPlan) -> TransferSession {
        var configuration = sp.configuration
        // Partial files beside their destination: finishing is a rename, never a copy.
        configuration.downloadDirectory = plan.outputDirectory
        // Completions and progress reach the run in batches of up to 10 ms, not one delegate
        // queue wake-up per file (DECISIONS 142); below a line's or a frame's notice.
        configuration.deliveryCoalescingInterval = Self.deliveryCoalescing
        // HAR entries and the monitor's detail pane show the headers as sent (Host, Range, …).
        configuration.recordsSentRequestHeaders = plan.har != nil || observability.recordsSentHeaders
        configuration.trace = observability.logging.trace
        let session = TransferSession(configuration: configuration, delegate: RunDelegate(runner: self), name: sp.name)
        session.addObserver(RunObserver(runner: self))
        // A corrupt line of a cookie file is skipped, never fatal: said once, as a note.
        for p in session.cookieFileProblems { notice(p) }
        if configuration.httpShouldSetCookies, let p = session.cookieStorage.problem { notice(p) }
        let made = state.withLock { s in
            s.sessions.append(session)
            return s.sessionMade
        }
        made?(session)
        return session
    }

    /// `body` runs with each session the runner makes from now on, before its first task is
    /// made: a host's limits reach the session before any transfer starts.
    public func whenSessionMade(_ body: @escaping @Sendable (TransferSession) -> Void) {
        state.withLock { $0.sessionMade = body }
    }

    /// Makes and resumes one task; a download with saved resume data continues from it.
    @discardableResult
    public func addTask(_ tp: TaskPlan, to session: TransferSession) -> TransferTask {
        addTask(tp, to: session, inWindow: false)
    }

    @discardableResult
    /// `inWindow`: the task takes a place in its session's window (Runner+Feed.swift).
    package func addTask(_ tp: TaskPlan, to session: TransferSession, inWindow: Bool) -> TransferTask {
        group.enter()
        let task = makeTask(tp, in: session)
        let id = TaskID(session: session.sessionID, task: task.taskIdentifier)
        state.withLock {
            $0.tasks[id] = task
            $0.plans[id] = tp
            if inWindow { $0.fed.insert(id) }
        }
        task.resume()
        scheduleScript(tp, task, id: id)
        return task
    }

    func makeTask(_ tp: TaskPlan, in session: TransferSession) -> TransferTask {
        var request = TransferRequest(url: tp.url, httpMethod: tp.method)
        if tp.kind == .download, hasResumeRecord(tp.url),
           let data = store?.load(url: tp.url.absoluteString, outputDirectory: plan.outputDirectory) {
            let shown = Redaction.redactURL(tp.url.absoluteString)
            switch ResumeSupport.downloadTask(in: session, resumeData: ResumeSupport.afterCrash(data)) {
            case .resumed(let task):
                notice("resuming \(shown) from where the last run stopped")
                return task
            case .unusable(let why):
                store?.remove(url: tp.url.absoluteString, outputDirectory: plan.outputDirectory)
                notice("saved resume data for \(shown) cannot be used (\(why)); starting from 0")
            }
        }
        switch tp.kind {
        case .download: return session.downloadTask(with: request)
        case .data: return session.dataTask(with: request)
        case .upload:
            request.httpMethod = tp.method
            if !tp.form.isEmpty {
                do {
                    return session.uploadTask(with: request, fromMultipart: try FormField.form(tp.form))
                } catch {
                    // A form file went away after the preflight: an upload of that file fails
                    // when it starts, with the library's "cannot open the upload file" message.
                    let gone = tp.form.compactMap(\.path).first { !FileManager.default.isReadableFile(atPath: $0) }
                    return session.uploadTask(with: request, fromFile: URL(fileURLWithPath: gone ?? tp.form.compactMap(\.path).first ?? "/dev/null"))
                }
            }
            // RunDelegate gives standard input, or the pipe: read on a thread of its own, so a
            // FIFO without a writer never blocks the transfer thread.
            if tp.file == "-" || tp.file.map(FileKind.isStream) == true { return session.uploadTask(withStreamedRequest: request) }
            return session.uploadTask(with: request, fromFile: URL(fileURLWithPath: tp.file ?? "/dev/null"))
        }
    }

    /// The demo's self-driving suspend/resume.
    /// Its notices name the task as the monitor does (`3.1`: session and task).
    func scheduleScript(_ tp: TaskPlan, _ task: TransferTask, id: TaskID) {
        guard let after = tp.suspendAfter else { return }
        let back = tp.resumeAfter ?? 2
        DispatchQueue.global().asyncAfter(deadline: .now() + after) { [weak self] in
            guard task.state == .running else { return }
            task.suspend()
            self?.notice("demo: suspended task \(id); resuming in \(Int(back)) s")
            // The notice replaces "resuming in N s" once it is no longer true (no stale
            // messages).
            DispatchQueue.global().asyncAfter(deadline: .now() + back) { [weak self] in
                guard task.state == .suspended else { return }
                task.resume()
                self?.notice("demo: resumed task \(id)")
            }
        }
    }

    package func notice(_ text: String) { state.withLock { $0.notices.append(text) } }

    /// Messages for the user gathered since the last call (resume notices, save errors).
    public func takeNotices() -> [String] {
        // A cache directory that cannot be written leaves the cache in memory: said once.
        for session in sessions {
            if let cache = session.configuration.urlCache, let p = cache.problem, reportedCacheProblems.withLock({ $0.insert(p).inserted }) {
                notice(p)
            }
        }
        return state.withLock { s in defer { s.notices = [] }; return s.notices }
    }

    public func snapshots() -> [SessionSnapshot] { sessions.map { $0.snapshot() } }

    public func task(_ id: TaskID) -> TransferTask? { state.withLock { $0.tasks[id] } }

    /// Blocks until every task has completed and its resume data was saved.
    public func wait() { group.wait() }

    public func whenFinished(_ body: @escaping @Sendable () -> Void) { group.notify(queue: .global(), execute: body) }

    public var isFinished: Bool { group.wait(timeout: .now()) == .success }
}

// MARK: engine callbacks

extension Runner {
    func taskCompleted(_ session: TransferSession, _ id: Int) {
        let tid = TaskID(session: session.sessionID, task: id)
        let first = state.withLock { $0.finished.insert(tid).inserted && $0.tasks[tid] != nil }
        guard first else { return }
        if observability.wantsFinishedTasks, let task = state.withLock({ $0.tasks[tid] }) {
            observability.taskFinished(task.snapshot())
        }
        if evidence.withLock({ $0 != nil }), let task = state.withLock({ $0.tasks[tid] }) {
            let samples = HopSample.samples(task.snapshot())
            evidence.withLock { stats in for s in samples { stats?.add(s) } }
        }
        // Start the next ones before leaving the group, so it never looks empty midway.
        retireIfStreaming(session, tid)
        feed(session)
        group.leave()
    }

    /// Bytes of a response arrived: `--prometheus` observes the phases up to its head now.
    func responseFlowing(_ session: TransferSession, _ id: Int) {
        guard let metrics = observability.metrics else { return }
        let tid = TaskID(session: session.sessionID, task: id)
        guard metrics.awaitsHeads(of: tid), let task = state.withLock({ $0.tasks[tid] }) else { return }
        metrics.observeHeads(task.snapshot())
    }

    func downloadFinished(_ session: TransferSession, _ task: TransferDownloadTask, at location: URL) {
        checkpoints.ended(task)
        guard task.response?.isSuccessful == true else { return }
        let name = finalName(task)
        placing(session, task) {
            let path = plan.existingFiles == .replace
                ? try OutputNaming.replace(location, named: name, in: plan.outputDirectory)
                : try OutputNaming.place(location, named: name, in: plan.outputDirectory, hints: nameHints)
            FileModes.applyUmask(to: path)  // the partial was private (0600)
            return path
        }
    }

    /// A finished download still in memory (at most 64 KiB): written once, under its final
    /// name (`OutputNaming.store`), where the temporary-file path costs a create, a rename and
    /// a chmod in the output directory. False leaves it to `downloadFinished`: with
    /// `--replace`, or on a file system without unnamed files.
    func downloadBodyFinished(_ session: TransferSession, _ task: TransferDownloadTask, body: Data) -> Bool {
        guard task.response?.isSuccessful == true else { return true }  // not kept
        guard plan.existingFiles != .replace else { return false }
        let name = finalName(task)
        var stored = true
        placing(session, task, size: Int64(body.count)) {
            guard let path = try OutputNaming.store(body, named: name, in: plan.outputDirectory, hints: nameHints) else {
                stored = false
                return nil
            }
            return path
        }
        return stored
    }

    private func finalName(_ task: TransferDownloadTask) -> String {
        let url = task.response?.url ?? task.currentRequest.url
        return OutputNaming.name(for: url, response: task.response, contentDisposition: plan.usesContentDisposition)
    }

    /// Runs `place` (the file's final path, or nil when it placed nothing) and records the
    /// outcome: the completion journal, the task's output path, the resume record it ends.
    private func placing(_ session: TransferSession, _ task: TransferDownloadTask, size: Int64? = nil,
                         _ place: () throws -> String?) {
        do {
            guard let path = try place() else { return }
            recordCompletion(task, in: session, path: path, size: size)
            task.setOutputPath(path)
            if hasResumeRecord(task.originalRequest.url) {
                store?.remove(url: task.originalRequest.url.absoluteString, outputDirectory: plan.outputDirectory)
            }
        } catch {
            // The task's own line, row and exports say it (not a separate note).
            task.setOwnerError(TransferError(.cannotWriteToFile, "\(error)"))
        }
    }

    func taskFailed(_ task: TransferTask, _ error: TransferError?) {
        checkpoints.ended(task)
        guard let data = error?.resumeData, task.kind == .download else {
            dropCrashRecovery(task, failed: error != nil)
            return
        }
        save(data, for: task)
    }

    func save(_ data: Data, for task: TransferTask) {
        guard let store else { return }
        do {
            try store.save(data, url: task.originalRequest.url.absoluteString, outputDirectory: plan.outputDirectory)
            let id = TaskID(session: task.snapshot().sessionID, task: task.taskIdentifier)
            state.withLock { _ = $0.resumeSaved.insert(id) }
            noteResumeRecord(task.originalRequest.url)
        } catch {
            notice("could not keep resume data: \(error)")
        }
    }
}

/// The sessions' delegate: places finished downloads and keeps resume data of failures.
final class RunDelegate: TransferDownloadDelegate, TransferDataDelegate, @unchecked Sendable {
    // @unchecked: only an immutable reference to the thread-safe Runner.
    let runner: Runner
    init(runner: Runner) { self.runner = runner }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
        runner.downloadFinished(session, downloadTask, at: location)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingBody body: Data) -> Bool {
        runner.downloadBodyFinished(session, downloadTask, body: body)
    }

    /// `--upload -` (standard input) or a FIFO, device or socket: read once (a 307 that must
    /// resend it fails the task, as there is no second copy of a pipe).
    func session(_ session: TransferSession, task: TransferTask,
                 needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        let id = TaskID(session: session.sessionID, task: task.taskIdentifier)
        let path = runner.state.withLock { s -> String? in
            let file = s.plans[id]?.file ?? "-"
            if file == "-" {
                defer { s.standardInputTaken = true }
                return s.standardInputTaken ? nil : "/dev/stdin"
            }
            return s.streamsTaken.insert(id).inserted ? file : nil
        }
        completionHandler(path.flatMap { InputStream(fileAtPath: $0) })
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        runner.taskFailed(task, error)
    }

    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        runner.keepCrashRecovery(downloadTask)
    }
}

/// Forwards events to the run's sink and notices completions.
final class RunObserver: TransferObserver, @unchecked Sendable {
    // @unchecked: only an immutable reference to the thread-safe Runner.
    let runner: Runner
    init(runner: Runner) { self.runner = runner }

    func transferSession(_ session: TransferSession, observes kind: TransferEvent.Kind) -> Bool {
        switch kind {
        case .taskStateChanged, .progress: return true  // completions, logs, metrics, line mode
        default: return runner.observesAllEvents.load(ordering: .relaxed)
        }
    }

    func transferSession(_ session: TransferSession, didEmit event: TransferEvent) {
        runner.sink.withLock { $0 }?.body(session, event)
        runner.observability.observe(event)
        if case .progress(let received, _) = event.kind, received > 0, let id = event.taskIdentifier {
            runner.responseFlowing(session, id)
        }
        if case .taskStateChanged(.completed) = event.kind, let id = event.taskIdentifier {
            runner.taskCompleted(session, id)
        }
    }
}
