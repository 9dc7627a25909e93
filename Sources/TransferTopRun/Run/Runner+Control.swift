import Foundation
import TransferKit

extension Runner {
    /// Ctrl-C, SIGTERM and `q`: cancels every unfinished task, downloads *with resume data*
    /// (saved before `wait()` returns, so a rerun continues them).
    public func interrupt() {
        let tasks = state.withLock { s -> [TransferTask] in
            // A task whose completion is still on its way to the delegate ended by itself.
            let unfinished = s.tasks.filter { !s.finished.contains($0.key) && $0.value.state != .completed }
            // `q` after everything finished is a normal exit, not an interruption to report.
            if !unfinished.isEmpty { s.interrupted = true }
            s.stoppedByInterruption.formUnion(unfinished.keys)
            return unfinished.map(\.value)
        }
        // Decision 105: a segmented upload first, so the segments cancelled below come back to
        // an upload that starts no more (it would start the waiting ones, and a cancelled
        // segment counts as retryable).
        for upload in segmentedUploads { upload.cancel() }
        for task in tasks where task.state != .completed { cancelKeepingResumeData(task) }
        // Tasks held unstarted (a suspended background session) are not started now either:
        // the run may finish, and they count as not started.
        let held = state.withLock { s -> Bool in
            defer { s.feedingHeld = false }
            if s.feedingHeld { s.interrupted = true }
            return s.feedingHeld
        }
        if held { group.leave() }
    }

    public var wasInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Cancels a download producing resume data (kept in memory for `R` and on disk for a
    /// rerun); any other task is simply cancelled.
    public func cancelKeepingResumeData(_ task: TransferTask) {
        guard let download = task as? TransferDownloadTask else { task.cancel(); return }
        group.enter()
        download.cancel(byProducingResumeData: { [self] data in
            defer { group.leave() }
            guard let data else { return }
            let id = TaskID(session: download.snapshot().sessionID, task: download.taskIdentifier)
            state.withLock { $0.heldResumeData[id] = data }
            save(data, for: download)
        })
    }

    public func hasResumeData(_ id: TaskID) -> Bool { state.withLock { $0.heldResumeData[id] != nil } }

    public var resumeDataTaskIDs: Set<TaskID> { state.withLock { Set($0.heldResumeData.keys) } }

    /// Tasks continued by another with `R`.
    public var supersededTaskIDs: Set<TaskID> { state.withLock { Set($0.continuedAs.keys) } }

    /// `R`: a new task continuing from the resume data held for `id`. Returns why not, if not.
    public func resumeFromResumeData(_ id: TaskID) -> String? {
        // R twice is a no-op with a message: a second task from the same resume data
        // would write the same partial file (the file lock would stop it, but say why first).
        if let next = state.withLock({ $0.continuedAs[id] }) {
            return "task \(id) is already being continued as task \(next)"
        }
        let found = state.withLock { s -> (Data, TransferTask)? in
            guard let task = s.tasks[id], let data = s.heldResumeData[id] ?? task.error?.resumeData else { return nil }
            return (data, task)
        }
        guard let (data, task) = found else { return "no resume data for task \(id) (press d on a running download first)" }
        guard let session = sessions.first(where: { $0.sessionID == id.session }) else { return "session \(id.session) is gone" }
        switch ResumeSupport.downloadTask(in: session, resumeData: data) {
        case .unusable(let why): return "task \(id): resume data cannot be used: \(why)"
        case .resumed(let resumed):
            state.withLock {
                $0.heldResumeData[id] = nil
                $0.continuedAs[id] = TaskID(session: session.sessionID, task: resumed.taskIdentifier)
            }
            adopt(resumed, plan: TaskPlan(kind: .download, url: task.originalRequest.url), in: session)
            return nil
        }
    }

    /// `a` and `control … retry`: a task that failed or was cancelled, again, as aria2's
    /// retry: from its resume data when it has some (as `R`), else from its plan (a download
    /// with a partial file on disk continues it). The new task continues the old one's row.
    /// Returns why not, if not.
    public func retry(_ id: TaskID) -> String? {
        if let next = state.withLock({ $0.continuedAs[id] }) { return "task \(id) is already being retried as task \(next)" }
        guard let (task, plan) = state.withLock({ s in s.tasks[id].flatMap { t in s.plans[id].map { (t, $0) } } }) else {
            return "task \(id) is not known to this run"
        }
        let snapshot = task.snapshot()
        guard snapshot.state == .completed, !succeeded(snapshot) else {
            return snapshot.state == .completed ? "task \(id) completed; there is nothing to retry" : "task \(id) has not ended"
        }
        if hasResumeData(id) || task.error?.resumeData != nil { return resumeFromResumeData(id) }
        guard let session = sessions.first(where: { $0.sessionID == id.session }) else { return "session \(id.session) is gone" }
        guard session.state == .active else { return "session \(id.session) is \(session.state.rawValue) and takes no new tasks" }
        let again = addTask(plan, to: session)
        state.withLock { $0.continuedAs[id] = TaskID(session: session.sessionID, task: again.taskIdentifier) }
        return nil
    }

    /// Tracks a task made elsewhere (resume data) like one of ours, and starts it.
    func adopt(_ task: TransferTask, plan tp: TaskPlan, in session: TransferSession) {
        group.enter()
        let id = TaskID(session: session.sessionID, task: task.taskIdentifier)
        state.withLock {
            $0.tasks[id] = task
            $0.plans[id] = tp
        }
        task.resume()
    }

    // MARK: outcome

    /// Every task's final snapshot, in session and identifier order.
    public func taskSnapshots() -> [TaskSnapshot] {
        let live = snapshots().flatMap(\.tasks)
        // Retired tasks (line mode) are kept sorted in place: at the end of a long run there are
        // no live ones and the array is returned without a copy (peak memory).
        let retired = state.withLock { s -> [TaskSnapshot] in
            s.retired.sort { ($0.sessionID, $0.taskIdentifier) < ($1.sessionID, $1.taskIdentifier) }
            return s.retired
        }
        if retired.isEmpty { return live }
        if live.isEmpty { return retired }
        return (retired + live).sorted { ($0.sessionID, $0.taskIdentifier) < ($1.sessionID, $1.taskIdentifier) }
    }

    /// `-c FILE`: the first session's cookies (the run's only one unless `--job` made more), as
    /// curl writes its jar at the end.
    func writeCookieJar() -> [String] {
        guard let jar = plan.cookieJar, let session = sessions.first else { return [] }
        return session.writeCookies(to: jar) ? [] : ["cannot write the cookie jar '\(SafeQuote.quote(jar))'"]
    }

    /// Tasks that have completed so far (line mode's progress line).
    public var finishedCount: Int { state.withLock { $0.finished.count } }

    /// Whether a task counts as a success for the exit status: completed, no error (a file
    /// that could not be placed is one: the snapshot carries it), and a 2xx response (or none
    /// needed: file URLs).
    public func succeeded(_ t: TaskSnapshot) -> Bool {
        guard t.state == .completed, t.error == nil else { return false }
        guard let status = t.statusCode else { return !(t.currentURL.hasPrefix("http")) }
        return (200..<300).contains(status)
    }

    /// 0 when every task completed with a 2xx response, 1 otherwise. A task continued with `R`
    /// counts as its continuation does.
    public func exitStatus(_ snapshots: [TaskSnapshot]? = nil) -> Int32 {
        outcomeSnapshots(snapshots).allSatisfy(succeeded) && notStartedCount == 0 ? 0 : 1
    }

    /// Writes `--csv` and `--har` from the final snapshots, and the `-c` cookie jar; returns
    /// error messages.
    public func writeExports() -> [String] {
        var errors = writeCookieJar()
        guard plan.csv != nil || plan.har != nil else { return errors }
        let all = taskSnapshots()
        if let csv = plan.csv { errors += Exports.write(TransactionCSV.csv(all), to: csv, replace: plan.replaceExports) }
        if let har = plan.har { errors += Exports.write(HARExport.harText(all), to: har, replace: plan.replaceExports) }
        return errors
    }
}

/// Writes `--csv`/`--har` files atomically: the text goes to a private temporary file beside
/// the target, then `rename` (with `--force`) or `link` (without: it fails rather than replace
/// a file that appeared during the run, such as another program's output). A reader never
/// sees half a file.
package enum Exports {
    package static func write(_ text: String, to path: String, replace: Bool = true) -> [String] {
        let shown = SafeQuote.quote(path)
        switch StreamTarget.write(Array(text.utf8), to: path) {
        case .written: return []
        case .failed(let why): return ["cannot write '\(shown)': \(why)"]
        case .notStream: break
        }
        let temp = (path as NSString).deletingLastPathComponent + "/.transfertop-export-\(getpid())-\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: FileModes.newFileMode]) else {
            return ["cannot write '\(shown)': \(String(cString: strerror(errno)))"]
        }
        defer { unlink(temp) }
        if replace ? rename(temp, path) == 0 : link(temp, path) == 0 { return [] }
        if errno == EEXIST { return ["'\(shown)' appeared during the run; not replaced (pass --force to replace it)"] }
        return ["cannot write '\(shown)': \(String(cString: strerror(errno)))"]
    }
}
