import BackgroundJournal
import Foundation
import TransferKit

/// The daemon's transfers (issue 12): background sessions by name, each a set of submissions,
/// each submission run by a `Runner` exactly as line mode runs a command (file placement,
/// resume, partial files beside the destination). Every task state change goes to the journal
/// first and reaches clients only from there (`EventBell`), so what a client was told is on
/// disk. Thread-safe: engine threads report through the runners' sinks, clients call in on
/// their own threads.
final class BackgroundHost: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a lock); the rest is fixed after init.
    let journal: Journal
    let bell = EventBell()
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
    }

    struct TaskKey: Hashable { var session: String; var number: Int64 }

    init(journal: Journal) {
        self.journal = journal
        progress = ProgressCheckpoints(journal: journal)
    }

    // MARK: submit

    /// Journals the submission's tasks and starts them; returns their numbers.
    func submit(session name: String, options given: Options) throws -> [Int64] {
        guard !state.withLock({ $0.stopping }) else { throw DaemonError("the daemon is stopping") }
        var options = given
        let plan = try Preparation.plan(options)
        let urls = plan.sessions.flatMap { $0.tasks.map { $0.url.absoluteString } + $0.downloadURLs }
        options.urls = urls
        options.inputFiles = []
        try journal.ensureSession(name)
        let (submission, numbers) = try journal.addSubmission(session: name, options: try SubmittedOptions.encode(options), urls: urls)
        start(session: name, submission: submission, plan: plan, numbers: Dictionary(zip(urls, numbers), uniquingKeysWith: { a, _ in a }))
        return numbers
    }

    /// Runs a plan whose tasks are in the journal under `numbers`.
    func start(session name: String, submission: Int64, plan: RunPlan, numbers: [String: Int64]) {
        let runner = Runner(plan: plan, store: ResumeStore.standard())
        let hosted = Hosted(session: name, submission: submission, runner: runner, numbers: numbers)
        state.withLock { $0.running[ObjectIdentifier(hosted)] = hosted }
        // Weak: the runner keeps its sink, and engine events may still come after `whenFinished`.
        runner.setEventSink { [weak self, weak hosted] session, event in
            guard let self, let hosted else { return }
            self.engineEvent(hosted, session, event)
        }
        runner.whenFinished { [weak self] in
            guard let self else { return }
            let problems = runner.writeExports()
            self.writer.async {
                for p in problems + runner.takeNotices() { self.appendNote(name, p) }
                self.state.withLock { s in
                    s.running[ObjectIdentifier(hosted)] = nil
                    s.live = s.live.filter { $0.value.0 !== hosted }
                }
                self.bell.ring()
            }
        }
        runner.start()
    }

    // MARK: engine events → journal

    func engineEvent(_ hosted: Hosted, _ session: TransferSession, _ event: TransferEvent) {
        guard let id = event.taskIdentifier else { return }
        let tid = TaskID(session: session.sessionID, task: id)
        guard let task = hosted.runner.task(tid), let number = hosted.numbers[task.originalRequest.url.absoluteString] else { return }
        let key = TaskKey(session: hosted.session, number: number)
        switch event.kind {
        case .progress:
            let s = task.snapshot()
            progress.note(key, received: s.countOfBytesReceived + s.countOfBytesSent,
                          expected: s.countOfBytesExpectedToReceive > 0 ? s.countOfBytesExpectedToReceive : nil)
        case .taskStateChanged:
            let stopping = state.withLock { s -> Bool in
                if s.live[key] == nil { s.live[key] = (hosted, tid) }
                return s.stopping
            }
            if stopping { return }
            let s = task.snapshot()
            let placement = hosted.runner.placementError(tid)
            let error = placement ?? s.error.map { "\($0)" }
            let resume = s.error?.resumeData.flatMap { try? ResumeData(decoding: $0).withoutCredentials().encoded() }
            let journalState = Self.journalState(s)
            writer.async { [self] in
                do {
                    let status = BackgroundTaskStatus(number: number, url: Redaction.redactURL(s.originalURL), state: journalState.rawValue,
                                                      statusCode: s.statusCode, error: s.state == .completed ? error : nil,
                                                      path: s.outputPath, bytesReceived: s.countOfBytesReceived + s.countOfBytesSent,
                                                      bytesExpected: s.countOfBytesExpectedToReceive > 0 ? s.countOfBytesExpectedToReceive : nil)
                    try journal.record(session: key.session, task: number, state: journalState, statusCode: s.statusCode,
                                       error: status.error, path: s.outputPath, resumeData: resume,
                                       event: "state", payload: try JSONEncoder().encode(
                                           BackgroundEvent(seq: 0, session: key.session, kind: "state", task: status, note: nil)))
                    if journalState == .completed {
                        progress.note(key, received: status.bytesReceived, expected: status.bytesExpected, final: true)
                    }
                } catch {
                    FileHandle.standardError.write(Data("transfertop daemon: journal: \(error)\n".utf8))
                }
                bell.ring()
            }
        default:
            return
        }
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

/// What the journal keeps of a submission's options: never a password (`-u`'s, `--cert`'s).
/// A password is replaced by an empty one, which says "there was one": a restored submission
/// that had one cannot go on without it (`BackgroundHost+Restore`).
enum SubmittedOptions {
    static func encode(_ options: Options) throws -> Data {
        var o = options
        if o.user != nil { o.user?.password = "" }
        if o.clientCertificate?.password != nil { o.clientCertificate?.password = "" }
        return try JSONEncoder().encode(o)
    }

    static func hadSecrets(_ o: Options) -> Bool { o.user != nil || o.clientCertificate?.password != nil }

    static func decode(_ data: Data) throws -> Options { try JSONDecoder().decode(Options.self, from: data) }
}
