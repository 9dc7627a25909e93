import TransferModel

/// Control while tasks run, as aria2 allows: retry a failed task, a bandwidth limit for a
/// task or a session, and the session's connections per host (DECISIONS 176-178).
extension Reducer {
    static func liveControl(_ model: MonitorModel, _ action: Action) -> (MonitorModel, Effect?) {
        var m = model
        switch action {
        case .retry, .limitTask:
            guard let task = m.selectedTaskSnapshot else {
                m.statusMessage = "no task selected"
                return (m, nil)
            }
            if action == .limitTask {
                if let why = limitRefusal(task, name: "task " + m.taskLabel(task.id)) {
                    m.statusMessage = why
                    return (m, nil)
                }
                m.prompt = Prompt(.taskRateLimit(task.id), text: RateText.typed(task.rateLimit))
                return (m, nil)
            }
            if let why = retryRefusal(task, name: "task " + m.taskLabel(task.id), segmented: m.segmentMaps[task.sessionID] != nil) {
                m.statusMessage = why
                return (m, nil)
            }
            return (m, .retry(task.id))
        default:
            guard let s = m.session(m.targetSessionID) else {
                m.statusMessage = "no session selected"
                return (m, nil)
            }
            guard s.state == .active || m.isDaemonSession(s.id) else {
                m.statusMessage = "\(m.sessionLabel(s.id)) is \(s.state.rawValue); its limits no longer matter"
                return (m, nil)
            }
            switch action {
            case .limitSession:
                m.prompt = Prompt(.sessionRateLimit(sessionID: s.id), text: RateText.typed(s.rateLimit))
                return (m, nil)
            case .moreConnections where s.maxConnectionsPerHost <= 0, .fewerConnections where s.maxConnectionsPerHost <= 0:
                // A daemon's session: its pictures do not say its connections per host, so a
                // step from a guess could lower a limit it meant to raise.
                m.statusMessage = "\(m.sessionLabel(s.id)): its connections per host are not known here; "
                    + "set them with 'transfertop control NAME connections N'"
                return (m, nil)
            case .moreConnections where s.maxConnectionsPerHost >= 1000:  // --max-connections-per-host's bound
                m.statusMessage = "\(m.sessionLabel(s.id)) already has \(s.maxConnectionsPerHost) connections per host, the most"
                return (m, nil)
            case .fewerConnections where s.maxConnectionsPerHost <= 1:
                m.statusMessage = "\(m.sessionLabel(s.id)) already has 1 connection per host, the least"
                return (m, nil)
            default:
                let n = s.maxConnectionsPerHost + (action == .moreConnections ? 1 : -1)
                m.statusMessage = "\(m.sessionLabel(s.id)): \(n) connection(s) per host"
                return (m, .connectionsPerHost(sessionID: s.id, n))
            }
        }
    }

    /// Enter in a rate prompt: the limit, or why the text is not one.
    static func rateAnswer(_ model: MonitorModel, _ prompt: Prompt) -> (MonitorModel, Effect?) {
        var m = model
        guard let rate = RateText.parse(prompt.text) else {
            m.statusMessage = RateText.refusal(prompt.text) + "; nothing changed"
            return (m, nil)
        }
        switch prompt.purpose {
        case .taskRateLimit(let id):
            m.statusMessage = "task \(m.taskLabel(id)): limit \(RateText.shown(rate))"
            return (m, .limitTask(id, rate))
        case .sessionRateLimit(let sid):
            m.statusMessage = "\(m.sessionLabel(sid)): limit \(RateText.shown(rate)), shared by its tasks"
            return (m, .limitSession(sessionID: sid, rate))
        default:
            return (m, nil)
        }
    }

    /// Why `a` cannot retry `t`; nil when it can: it ended without success.
    static func retryRefusal(_ t: TaskSnapshot, name: String, segmented: Bool) -> String? {
        if segmented {
            return "\(name) is a segment of a segmented upload, which retries its segments itself"
        }
        switch DisplayState(t) {
        case .completed: return "\(name) completed; there is nothing to retry"
        case .failed, .httpError, .cancelled: return nil
        default: return "\(name) has not ended; a retry is for a failed or cancelled task"
        }
    }

    static func limitRefusal(_ t: TaskSnapshot, name: String) -> String? {
        t.state == .completed ? "\(name) has ended; a limit is for a task that runs" : nil
    }
}

extension Prompt.Purpose {
    /// The prompts that ask for a bandwidth limit.
    var asksForRate: Bool {
        switch self {
        case .taskRateLimit, .sessionRateLimit: true
        case .filter, .newTaskURL: false
        }
    }
}
