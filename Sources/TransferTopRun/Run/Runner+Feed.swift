import Foundation
import TransferKit

/// Long URL lists stream: a session gets at most `window` tasks at a time, more as
/// they complete, so a list of 1,000,000 URLs starts at once and holds a bounded number of
/// task objects. In line mode a finished task is also let go of: the run keeps its final
/// snapshot, without per-transaction metrics unless an export needs them.
extension Runner {
    /// Tasks alive per session. Far above what the engine hands libcurl per host (one handle
    /// per connection), so one host is never starved, and small enough to bound memory.
    static let window = 1024

    /// A session's plan and how far it got.
    struct Feed {
        var tasks: [TaskPlan]
        /// Downloads after `tasks`, as validated text (`SessionPlan.downloadURLs`).
        var urls: [String] = []
        var next = 0
        var live = 0
        var remaining: Int { tasks.count + urls.count - next }

        func plan(_ i: Int) -> TaskPlan {
            i < tasks.count ? tasks[i] : TaskPlan(kind: .download, url: URL(string: urls[i - tasks.count])!)
        }
    }

    /// Starts tasks of `session`'s plan until its window is full or the plan is done.
    /// Stops after an interrupt: those tasks count as not started.
    func feed(_ session: TransferSession) {
        while let tp = takeNext(session.sessionID) { addTask(tp, to: session, inWindow: true) }
    }

    private func takeNext(_ sessionID: Int) -> TaskPlan? {
        state.withLock { s -> TaskPlan? in
            guard !s.interrupted, !s.feedingHeld, let f = s.feeds[sessionID], f.remaining > 0, f.live < Self.window else { return nil }
            let tp = f.plan(f.next)
            s.feeds[sessionID]!.next += 1
            s.feeds[sessionID]!.live += 1
            return tp
        }
    }

    /// A task of the window completed: free its place and, in line mode, let go of it.
    func retireIfStreaming(_ session: TransferSession, _ id: TaskID) {
        let (keep, task) = state.withLock { s -> (Bool, TransferTask?) in
            if s.fed.remove(id) != nil { s.feeds.inPlace(session.sessionID) { $0.live -= 1 } }
            return (s.keepsCompleted, s.tasks[id])
        }
        guard !keep, let task else { return }
        var final = task.snapshot()
        if plan.csv == nil && plan.har == nil {
            final.metrics.transactionMetrics = []
            // One string storage for both URLs when they are equal (no redirect): ~60 B a task.
            if final.currentURL == final.originalURL { final.currentURL = final.originalURL }
        }
        state.withLock { s in
            s.retired.append(final)
            s.tasks[id] = nil
            s.plans[id] = nil
            s.finished.remove(id)
        }
        session.forgetCompletedTask(task)
    }

    /// Tasks of the plan never started because the run was interrupted.
    public var notStartedCount: Int { state.withLock { $0.feeds.values.reduce(0) { $0 + $1.remaining } } }

    // MARK: a whole background session's keys (DECISIONS 134)

    /// `control NAME suspend`: tasks of the plan not started yet stay unstarted until
    /// `releaseFeeding`; returns their URLs (as the plan has them). The run does not finish
    /// while they wait.
    public func holdFeeding() -> [String] {
        state.withLock { s -> [String] in
            let unfed = Self.unfed(s.feeds)
            if !s.feedingHeld, !s.interrupted, !unfed.isEmpty {
                s.feedingHeld = true
                group.enter()
            }
            return s.feedingHeld ? unfed : []
        }
    }

    /// `control NAME resume`: the held tasks start, as many as the window takes. Returns the
    /// URLs that were held.
    @discardableResult
    public func releaseFeeding() -> [String] {
        let held = state.withLock { s -> [String]? in
            guard s.feedingHeld else { return nil }
            s.feedingHeld = false
            return Self.unfed(s.feeds)
        }
        guard let held else { return [] }
        for session in sessions { feed(session) }
        group.leave()  // after feeding: the group never looks empty midway
        return held
    }

    /// `control NAME cancel`: tasks not started yet never will; returns their URLs.
    public func dropUnfed() -> [String] {
        let (dropped, wasHeld) = state.withLock { s -> ([String], Bool) in
            let unfed = Self.unfed(s.feeds)
            for id in s.feeds.keys { s.feeds[id]!.next = s.feeds[id]!.tasks.count + s.feeds[id]!.urls.count }
            defer { s.feedingHeld = false }
            return (unfed, s.feedingHeld)
        }
        if wasHeld { group.leave() }
        return dropped
    }

    private static func unfed(_ feeds: [Int: Feed]) -> [String] {
        feeds.keys.sorted().flatMap { id in feeds[id].map { f in (f.next..<(f.tasks.count + f.urls.count)).map { f.plan($0).url.absoluteString } } ?? [] }
    }
}
