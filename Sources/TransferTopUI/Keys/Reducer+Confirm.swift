import TransferModel

/// A destructive effect waiting for `y`: cancel (`c`), cancel a session's tasks and
/// invalidate it (`X`), and quit while tasks that cannot be resumed are running.
public struct Confirmation: Sendable, Equatable {
    public var question: String
    public var effect: Effect
}

extension Reducer {
    /// Holds a destructive effect for confirmation unless the user said `--yes`.
    static func confirmIfDestructive(_ model: MonitorModel, _ effect: Effect?) -> (MonitorModel, Effect?) {
        guard model.confirmDestructive, let effect, let question = question(model, effect) else { return (model, effect) }
        var m = model
        m.confirmation = Confirmation(question: question + " (y: yes, any other key: no)", effect: effect)
        return (m, nil)
    }

    static func question(_ m: MonitorModel, _ effect: Effect) -> String? {
        switch effect {
        case .cancel(let id):
            let keep = m.sessions.flatMap(\.tasks).first { $0.id == id }.map { $0.kind == .download && $0.isResumable } ?? false
            return "cancel task \(m.taskLabel(id))?" + (keep ? " (d would keep resume data)" : " Its progress is lost.")
        case .invalidateAndCancel(let sid):
            let open = m.session(sid)?.tasks.filter { $0.state != .completed }.count ?? 0
            let name = m.isDaemonSession(sid) ? m.sessionLabel(sid) : "session \(sid)"
            return "cancel \(Units.count(open, "task")) of \(name) and invalidate it?"
        case .quit:
            // Quitting only detaches from background sessions: the daemon's tasks go on.
            let lost = m.sessions.filter { !m.isDaemonSession($0.id) }.flatMap(\.tasks).filter {
                ($0.state == .running || $0.state == .suspended) && !($0.kind == .download && $0.isResumable)
            }.count
            guard lost > 0 else { return nil }
            return "quit? \(Units.count(lost, "task")) cannot be resumed and \(lost == 1 ? "is" : "are") lost (resumable downloads keep their data)."
        default:
            return nil
        }
    }

    /// The key after a question: `y` performs the held effect, anything else drops it.
    static func answer(_ model: MonitorModel, _ key: Key) -> (MonitorModel, Effect?) {
        var m = model
        guard let c = m.confirmation else { return (m, nil) }
        m.confirmation = nil
        if key == .char("y") || key == .char("Y") {
            m.statusMessage = nil
            return (m, c.effect)
        }
        m.statusMessage = "nothing done"
        return (m, nil)
    }
}
