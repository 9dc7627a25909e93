import Foundation
import TransferModel

extension Reducer {
    /// A task action if it makes sense for the selected task; otherwise a message saying why.
    static func taskAction(_ model: MonitorModel, _ action: Action) -> (MonitorModel, Effect?) {
        var m = model
        guard let task = m.selectedTaskSnapshot else {
            m.statusMessage = "no task selected"
            return (m, nil)
        }
        // Decision 105: a segment's task belongs to its segmented upload, whose scheduler counts
        // it in flight until it ends; suspended, it would hold its slot for good, and a task
        // resumed or continued outside the scheduler would be a segment it does not know.
        if m.segmentMaps[task.sessionID] != nil, [.suspend, .resume, .resumeFromResumeData].contains(action) {
            m.statusMessage = "task \(task.id) is a segment of a segmented upload, which starts and retries its segments itself; "
                + "c cancels it (the upload sends it again), q stops the upload"
            return (m, nil)
        }
        if m.isDaemonSession(task.sessionID), action == .resumeFromResumeData {
            m.statusMessage = "\(m.taskLabel(task.id)) belongs to the daemon, which cannot continue a task from resume data; "
                + "submit the URL again with --background (its partial file is resumed)"
            return (m, nil)
        }
        if let why = refusal(action, task, resumeData: m.resumeDataAvailable.contains(task.id) || task.error?.resumeData != nil,
                             name: "task " + m.taskLabel(task.id)) {
            m.statusMessage = why
            return (m, nil)
        }
        // The daemon's replies say how a background cancel ended; nothing to hold here.
        if action == .cancelWithResumeData, !m.isDaemonSession(task.sessionID) { m.awaitingResumeData.updateValue(nil, forKey: task.id) }
        return (m, effect(action, task.id))
    }

    static func effect(_ action: Action, _ id: TaskID) -> Effect? {
        switch action {
        case .suspend: return .suspend(id)
        case .resume: return .resume(id)
        case .cancel: return .cancel(id)
        case .cancelWithResumeData: return .cancelWithResumeData(id)
        case .resumeFromResumeData: return .resumeFromResumeData(id)
        default: return nil
        }
    }

    /// Why `action` cannot apply to `task`, in words for the status line; nil when it can.
    static func refusal(_ action: Action, _ t: TaskSnapshot, resumeData: Bool, name: String? = nil) -> String? {
        let name = name ?? "task \(t.id)"
        let state = DisplayState(t)
        switch (action, t.state) {
        case (_, .canceling) where action != .resumeFromResumeData:
            return "\(name) is already being cancelled"
        case (.suspend, .suspended): return "\(name) is already suspended; press r to resume it"
        case (.suspend, .completed): return "\(name) has \(finished(state)); there is nothing to suspend"
        case (.resume, .running): return "\(name) is already running"
        case (.resume, .completed):
            return "\(name) has \(finished(state)) and cannot run again" + (resumeData ? "; press R to continue from its resume data" : "")
        case (.cancel, .completed), (.cancelWithResumeData, .completed):
            return "\(name) has already \(finished(state))"
        case (.cancelWithResumeData, _) where t.kind != .download:
            return "only downloads can keep resume data; \(name) is a \(t.kind.rawValue) task (press c to cancel)"
        case (.cancelWithResumeData, _) where !t.isResumable:
            return "\(name) cannot be resumed later (the server sent no ETag/Last-Modified or no range support); press c to cancel"
        case (.resumeFromResumeData, .running), (.resumeFromResumeData, .suspended), (.resumeFromResumeData, .canceling):
            return "\(name) has not stopped; press d to cancel it with resume data first"
        case (.resumeFromResumeData, .completed) where !resumeData:
            return "\(name) has no resume data" + (t.kind == .download ? " (press d on a running download to keep some)" : " (only downloads have resume data)")
        default: return nil
        }
    }

    static func finished(_ state: DisplayState) -> String {
        switch state {
        case .failed: return "failed"
        case .httpError: return "completed with an HTTP error"
        case .cancelled: return "been cancelled"
        default: return "completed"
        }
    }

    /// `f` and `X` on the target session, refused when the session is already past that.
    static func sessionAction(_ model: MonitorModel, _ action: Action) -> (MonitorModel, Effect?) {
        var m = model
        guard let s = m.session(m.targetSessionID) else {
            m.statusMessage = "no session selected"
            return (m, nil)
        }
        let label = m.sessionLabel(s.id)
        if m.isDaemonSession(s.id), action == .finishAndInvalidate {
            m.statusMessage = "the daemon cannot let \(label) finish first; X cancels its tasks and invalidates it, "
                + "'transfertop wait \(s.name)' waits for them"
            return (m, nil)
        }
        switch (action, s.state) {
        case (_, .invalidated) where m.isDaemonSession(s.id):
            m.statusMessage = "\(label) is already invalidated"
            return (m, nil)
        case (_, .invalidated):
            m.statusMessage = "session \(s.id) is already invalidated"
            return (m, nil)
        case (.finishAndInvalidate, .invalidating):
            m.statusMessage = "session \(s.id) is already finishing its tasks" + Self.heldBySuspended(s)
                + "; press X to cancel them"
            return (m, nil)
        case (.finishAndInvalidate, _):
            return (m, .finishAndInvalidate(sessionID: s.id))
        default:
            return (m, .invalidateAndCancel(sessionID: s.id))
        }
    }

    /// What `f` says once it acted: a suspended task never completes by itself, so a session
    /// that finishes its tasks first (as URLSession's `finishTasksAndInvalidate`) waits for it
    /// until it is resumed or cancelled; the message says so instead of waiting in silence.
    public static func finishingMessage(_ s: SessionSnapshot) -> String {
        "session \(s.id): finishing its tasks, then invalidating" + heldBySuspended(s)
    }

    static func heldBySuspended(_ s: SessionSnapshot) -> String {
        let suspended = s.tasks.filter { $0.state == .suspended }.count
        guard suspended > 0 else { return "" }
        return "; \(suspended) suspended task(s) keep it open until resumed (r) or cancelled (c)"
    }

    /// Typing into the filter (live) or a new task's URL. Enter commits, Esc abandons.
    static func handlePromptKey(_ model: MonitorModel, _ key: Key) -> (MonitorModel, Effect?) {
        var m = model
        guard var prompt = m.prompt else { return (m, nil) }
        switch key {
        case .enter:
            m.prompt = nil
            if prompt.purpose.asksForRate { return rateAnswer(m, prompt) }
            if case .newTaskURL(let session) = prompt.purpose {
                let url = prompt.text.trimmingCharacters(in: .whitespaces)
                if url.isEmpty { m.statusMessage = "no URL given; no task added"; return (m, nil) }
                return (m, .newTask(url: url, sessionID: session))
            }
            return (m, nil)
        case .escape:
            m.prompt = nil
            if prompt.purpose == .filter { m.filter = ""; m.normalizeSelection() }
            return (m, nil)
        case .backspace, .delete: if !prompt.text.isEmpty { prompt.text.removeLast() }
        case .char(let c): prompt.text.append(c)
        default: return (m, nil)
        }
        m.prompt = prompt
        if prompt.purpose == .filter { m.filter = prompt.text; m.normalizeSelection() }
        return (m, nil)
    }
}
