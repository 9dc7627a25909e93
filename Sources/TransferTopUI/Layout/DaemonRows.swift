import TransferModel

/// Background sessions of the daemon, shown beside the run's own (DECISIONS 127).
///
/// The app turns the daemon's status into ordinary `SessionSnapshot`s whose ids start at
/// `firstSessionID`: far above any session this process makes (its ids count from 1), so an
/// id alone says whether the daemon owns a row. The renderer draws them as any other row;
/// the reducer refuses what the daemon cannot do, and the app sends the rest to the daemon.
public enum DaemonRows {
    public static let firstSessionID = 1_000_000
    /// Each daemon of a monitor over several hosts numbers its sessions from its own base,
    /// `firstSessionID + index * sessionsPerHost`, so a session id alone also says whose it is.
    public static let sessionsPerHost = 100_000

    public static func owns(_ sessionID: Int) -> Bool { sessionID >= firstSessionID }
}

extension MonitorModel {
    public func isDaemonSession(_ id: Int) -> Bool { DaemonRows.owns(id) }

    /// A task as the user names it: `NAME:N` for a background task (as `--background`,
    /// `status` and `control` print it), `session.task` for the run's own.
    public func taskLabel(_ id: TaskID) -> String {
        guard DaemonRows.owns(id.session), let s = session(id.session) else { return id.description }
        return "\(s.name):\(id.task)"
    }

    /// A session as the user names it: its name for a background session, its id otherwise.
    public func sessionLabel(_ id: Int) -> String {
        guard DaemonRows.owns(id), let s = session(id) else { return String(id) }
        return "background session \(s.name)"
    }
}
