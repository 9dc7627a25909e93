import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

/// The daemon's transfers: background sessions by name, each a set of submissions,
/// each submission run by a `Runner` exactly as line mode runs a command (file placement,
/// resume, partial files beside the destination). Every task state change goes to the journal
/// first and reaches clients only from there (`EventBell`), so what a client was told is on
/// disk. Thread-safe: engine threads report through the runners' sinks, clients call in on
/// their own threads.
final class BackgroundHost: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a lock); the rest is fixed after init.
    let journal: Journal
    let bell: EventBell
    /// Journal writes in order, off the engine threads (a commit waits for the disk).
    let writer = DispatchQueue(label: "transfertop.daemon.journal")
    let state = Locked(State())
    let progress: ProgressCheckpoints

    /// A submission being run.
    final class Hosted: @unchecked Sendable {
        // @unchecked: fixed after init.
        let session: String
        let submission: Int64
        let runner: Runner
        /// The task number of each URL of the submission (a plan holds each download once).
        let numbers: [String: Int64]
        /// Tasks whose completion is journaled (or queued to be): `whenFinished` journals the
        /// rest, whose last engine event may come after the runner finished.
        let completed = Locked<Set<Int64>>([])
        /// The runner has finished: it takes no part of the session's rate any more, though it
        /// stays in `running` until its last journal writes are queued.
        let ended = Locked(false)

        /// The number of a runner task, by the URL its plan gave it: not the task's own
        /// request URL, which for a download resumed after a crash is the URL after redirects.
        func number(of tid: TaskID) -> Int64? {
            runner.state.withLock { $0.plans[tid]?.url.absoluteString }.flatMap { numbers[$0] }
        }
        init(session: String, submission: Int64, runner: Runner, numbers: [String: Int64]) {
            (self.session, self.submission, self.runner, self.numbers) = (session, submission, runner, numbers)
        }
    }

    struct State {
        var running: [ObjectIdentifier: Hosted] = [:]
        /// Live task of each (session, number), for the keys.
        var live: [TaskKey: (Hosted, TaskID)] = [:]
        /// `daemon stop`: cancellations from here on are the daemon's, not the user's; the
        /// journal keeps those tasks unfinished so the next daemon resumes them.
        var stopping = false
        /// Live CLI followers (`wait`, `attach`): session and the last seq each was sent.
        /// Pruning keeps what they have not read (DECISIONS 133).
        var followers: [UUID: (session: String, cursor: Int64)] = [:]
        /// The limits users set, by session: the journal's copy (DECISIONS 211), read at start.
        var limits: [String: JournalLimits] = [:]
    }

    /// Held while limits are given to engine sessions and tasks (`+Change`); `changing`, while
    /// one is journaled. Values with a size: an empty one shares its address with the mutex
    /// (`Locked`).
    let applying = Locked(0)
    let changing = Locked(0)

    /// The least advanced live follower's position in `session` (`.max` when none follows it).
    func followerFloor(_ session: String) -> Int64 {
        state.withLock { s in s.followers.values.reduce(Int64.max) { $1.session == session ? min($0, $1.cursor) : $0 } }
    }

    /// Per session, the least advanced live follower's position.
    var followerFloors: [String: Int64] {
        state.withLock { s in
            s.followers.values.reduce(into: [String: Int64]()) { floors, f in floors[f.session] = min(floors[f.session] ?? f.cursor, f.cursor) }
        }
    }

    struct TaskKey: Hashable { var session: String; var number: Int64 }

    /// What every runner of the daemon reports to: traces when `TRANSFERTOP_OTLP` is set.
    let observability: RunObservability

    init(journal: Journal, observability: RunObservability = RunObservability()) {
        self.journal = journal
        self.observability = observability
        let bell = EventBell()
        self.bell = bell
        // A checkpoint rings too: an attached library hears the progress (DECISIONS 135).
        progress = ProgressCheckpoints(journal: journal, onFlush: { bell.ring(progressOnly: true) })
    }

    // MARK: submit

    /// Journals the submission's tasks and starts them; returns their numbers.
    func submit(session name: String, options given: Options) throws -> [Int64] {
        let (numbers, start) = try submitDeferred(session: name, options: given)
        start()
        return numbers
    }

    /// `submit` with the start left to the caller: the library's reply goes out first, so a
    /// daemon killed once the transfer began has always answered (DECISIONS 131).
    func submitDeferred(session name: String, options given: Options, library: Bool = false) throws -> ([Int64], @Sendable () -> Void) {
        guard !state.withLock({ $0.stopping }) else { throw DaemonError("the daemon is stopping") }
        // Checked again here, with the client's code: any program of the user's can write to
        // the socket, and a bad value must be refused before the journal holds a session.
        do {
            _ = try BackgroundName.check(name, "--background")
            try given.checkAsReceived()
        } catch { throw DaemonError(error.reason) }
        try checkOwner(name, library: library)
        var options = given
        let plan = try Preparation.plan(options)
        let urls = plan.urlStrings
        // Checked by the client already (exit 2); a client of this version always did.
        if Set(urls).count != urls.count { throw UsageError("--background takes each URL once per submission") }
        options.urls = urls
        options.inputFiles = []
        try journal.ensureSession(name)
        let (submission, numbers) = try journal.addSubmission(session: name, options: try SubmittedOptions.encode(options),
                                                              urls: urls.map(Redaction.redactURL))
        let byURL = Dictionary(zip(urls, numbers), uniquingKeysWith: { a, _ in a })
        return (numbers, { [self] in start(session: name, submission: submission, plan: plan, numbers: byURL) })
    }

    /// Runs a plan whose tasks are in the journal under `numbers`.
    func start(session name: String, submission: Int64, plan given: RunPlan, numbers: [String: Int64]) {
        // The engine's session is the background session: its tasks' traces
        // (`transfertop.session`) and the submission's CSV and HAR name it, not the
        // configuration kind (`default`) a plan made from options is named after.
        var plan = given
        for i in plan.sessions.indices { plan.sessions[i].name = name }
        let runner = Runner(plan: plan, store: ResumeStore.standard(), observability: observability)
        let hosted = Hosted(session: name, submission: submission, runner: runner, numbers: numbers)
        state.withLock { $0.running[ObjectIdentifier(hosted)] = hosted }
        // Weak: the runner keeps its sink, and engine events may still come after `whenFinished`.
        runner.setEventSink { [weak self, weak hosted] session, event in
            guard let self, let hosted else { return }
            self.engineEvent(hosted, session, event)
        }
        // The session's kept limits, divided anew with this submission among the running ones.
        runner.whenSessionMade { [weak self] _ in self?.applySessionLimits(name) }
        runner.start()
        // After start: a group with nothing entered yet would notify at once.
        runner.whenFinished { [weak self] in
            guard let self else { return }
            hosted.ended.withLock { $0 = true }
            // Its part of the session's rate goes to the submissions still running.
            self.applySessionLimits(name)
            let problems = runner.writeExports()
            let stopping = self.state.withLock { $0.stopping }
            var started: Set<Int64> = []
            for s in runner.taskSnapshots() {
                guard let task = runner.task(s.id), let number = hosted.number(of: s.id) else { continue }
                started.insert(number)
                if !stopping { self.record(task, of: hosted, number: number) }  // no-op once journaled
            }
            let neverStarted = Set(numbers.values).subtracting(started).sorted()
            self.writer.async {
                // Tasks the runner never started (it was interrupted: `control … invalidate` or
                // cancel before the window reached them) end here, or `wait` would wait forever.
                if !stopping {
                    for number in neverStarted where hosted.completed.withLock({ $0.insert(number).inserted }) {
                        if let t = try? self.journal.task(session: name, number: number), t.state != .completed {
                            try? self.finish(t, error: "cancelled before it started")
                        }
                    }
                }
                for p in problems + runner.takeNotices() { self.appendNote(name, p) }
                self.state.withLock { s in
                    s.running[ObjectIdentifier(hosted)] = nil
                    s.live = s.live.filter { $0.value.0 !== hosted }
                }
                // A line-mode run ends with its process; the daemon lives on, so the sessions'
                // engine threads and connections go now, not at exit.
                for session in runner.sessions { session.finishTasksAndInvalidate() }
                self.bell.ring()
            }
        }
    }

    // MARK: engine events → journal

    func engineEvent(_ hosted: Hosted, _ session: TransferSession, _ event: TransferEvent) {
        guard let id = event.taskIdentifier else { return }
        let tid = TaskID(session: session.sessionID, task: id)
        guard let task = hosted.runner.task(tid), let number = hosted.number(of: tid) else { return }
        let key = TaskKey(session: hosted.session, number: number)
        switch event.kind {
        case .progress:
            let s = task.snapshot()
            progress.note(key, received: s.countOfBytesReceived + s.countOfBytesSent,
                          expected: s.countOfBytesExpectedToReceive > 0 ? s.countOfBytesExpectedToReceive : nil)
        case .taskStateChanged(let told):
            let (stopping, first) = state.withLock { s -> (Bool, Bool) in
                let first = s.live[key] == nil
                if first { s.live[key] = (hosted, tid) }
                return (s.stopping, first)
            }
            if first { applyTaskLimit(task, session: hosted.session, number: number) }
            if !stopping { record(task, of: hosted, number: number, told: told) }
        default:
            return
        }
    }

    /// Journals a task's state, then rings the followers. The snapshot is taken on the writer
    /// queue, so the journal ends with the task's latest state whatever order the threads
    /// that changed it came in; once completed, a task is written no more.
    /// `told`: the state the engine event said. A task completes (its state machine) before
    /// its file is placed and its completion event sent: an earlier event's write that finds
    /// it completed writes the state it was told, and the completion's own event, which comes
    /// after the placement, writes the completion with its file (a library got none, once).
    func record(_ task: TransferTask, of hosted: Hosted, number: Int64, told: TaskState? = nil, attempt: Int = 0) {
        writer.async { [self] in
            // The runner's notices so far ("resuming … from where the last run stopped") go
            // before the state they led to, so followers read them in the order they happened.
            for note in hosted.runner.takeNotices() { appendNote(hosted.session, note) }
            // Written after `daemon stop` began: a cancellation of the daemon's own, not the
            // user's; the task stays unfinished for the next start (DECISIONS 119).
            if state.withLock({ $0.stopping }) { return }
            var s = task.snapshot()
            if let told, told != .completed, s.state == .completed { s.state = told }
            let journalState = Self.journalState(s)
            // A retry (`attempt` > 0) is the one write its completion still needs; any other
            // call for a completion already taken returns here.
            let first = hosted.completed.withLock { done -> Bool in
                if attempt == 0, done.contains(number) { return false }
                if journalState == .completed { done.insert(number) }
                return true
            }
            guard first else { return }
            let key = TaskKey(session: hosted.session, number: number)
            // A file the runner could not place is said as it said it (the owner error).
            let error = task.ownerError?.message ?? s.error.map { "\($0)" }
            let resume = s.error?.resumeData.flatMap { try? ResumeData(decoding: $0).withoutCredentials().encoded() }
            let status: BackgroundTaskStatus, event: JournalEvent
            do {
                status = BackgroundTaskStatus(number: number, url: Redaction.redactURL(s.originalURL), state: journalState.rawValue,
                                                  statusCode: s.statusCode, error: s.state == .completed ? error : nil,
                                                  path: s.outputPath, bytesReceived: s.countOfBytesReceived + s.countOfBytesSent,
                                                  bytesExpected: s.countOfBytesExpectedToReceive > 0 ? s.countOfBytesExpectedToReceive : nil,
                                                  keptResumeData: journalState == .completed && resume != nil)
                event = try journal.record(session: key.session, task: number, state: journalState, statusCode: s.statusCode,
                                           error: status.error, path: s.outputPath, resumeData: resume,
                                           event: "state", payload: try JSONEncoder().encode(
                                               BackgroundEvent(seq: 0, session: key.session, kind: "state", task: status, note: nil)))
            } catch {
                // Said once a minute at most while it is tried again.
                if attempt % 30 == 0 { Self.log("journal: \(error)") }
                // A completion the journal could not take (a full disk) is written again until
                // it can: until then the task reads as running, and `wait` waits for it.
                if journalState == .completed {
                    writer.asyncAfter(deadline: .now() + Self.journalRetryDelay) { [self] in
                        record(task, of: hosted, number: number, told: told, attempt: attempt + 1)
                    }
                }
                return
            }
            if attempt > 0 { Self.log("journal: task \(key.session):\(number) written") }
            if journalState == .completed {
                progress.note(key, received: status.bytesReceived, expected: status.bytesExpected, final: true)
                // Written: a prune that fails leaves old events, never a second completion.
                do { try pruneSuperseded(event) } catch { Self.log("journal: pruning: \(error)") }
            }
            bell.ring()
        }
    }

    /// A line in the daemon's log (its stderr).
    static func log(_ line: String) { FileHandle.standardError.write(Data("transfertop daemon: \(line)\n".utf8)) }

    /// How soon a completion the journal refused is written again.
    static let journalRetryDelay: DispatchTimeInterval = .seconds(2)

    /// A completion's event tells all there is of its task: the task's earlier state events
    /// go (DECISIONS 133), so a long-lived daemon keeps about one event per finished task.
    /// Only what every live follower has read goes now; the rest as the followers read past
    /// the completion (`follow`), or when one leaves before that (`unfollow`).
    func pruneSuperseded(_ completion: JournalEvent) throws {
        guard let task = completion.task else { return }
        try journal.pruneEvents(session: completion.session, task: task, kind: "state", before: completion.seq,
                                through: { followerFloor(completion.session) })
    }

    static func journalState(_ s: TaskSnapshot) -> JournalTaskState {
        switch s.state {
        case .running: return .running
        case .suspended: return .suspended
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    func appendNote(_ session: String, _ text: String) {
        let event = BackgroundEvent(seq: 0, session: session, kind: "note", task: nil, note: text)
        _ = try? journal.appendEvent(session: session, task: nil, kind: "note", payload: (try? JSONEncoder().encode(event)) ?? Data())
    }

    /// Waits until every journal write queued so far is committed.
    func flush() { writer.sync {} }
}

/// What the journal keeps of a submission: its options without any secret (DECISIONS 114):
/// no `-u` or `--cert` password, no Authorization or Cookie header, no `-b NAME=VALUE`, no URL
/// userinfo. `hadSecrets` says something was taken out: such a submission cannot go on after a
/// daemon restart and its unfinished tasks end with a message (`BackgroundHost+Restore`).
struct SubmittedOptions: Codable {
    var options: Options
    var hadSecrets: Bool

    static func encode(_ given: Options) throws -> Data {
        var o = given
        var secrets = o.user != nil || o.clientCertificate?.password != nil || !o.cookieStrings.isEmpty
        o.user = nil
        o.clientCertificate?.password = nil
        o.cookieStrings = []
        // The same names the logs and exports mask (API keys, tokens, session ids...).
        let headers = o.headers.filter { h in (try? HeaderParsing.parse(h)).map { !SecretNames.isSecretHeader($0.name) } ?? false }
        secrets = secrets || headers.count != o.headers.count
        o.headers = headers
        let form = o.form.filter { if case .value(let name, _) = $0 { return !SecretNames.isSecretParameter(name) } else { return true } }
        secrets = secrets || form.count != o.form.count
        o.form = form
        let urls = o.urls.map(Redaction.redactURL)
        secrets = secrets || urls != o.urls
        o.urls = urls
        return try JSONEncoder().encode(SubmittedOptions(options: o, hadSecrets: secrets))
    }

    static func decode(_ data: Data) throws -> SubmittedOptions { try JSONDecoder().decode(SubmittedOptions.self, from: data) }
}
