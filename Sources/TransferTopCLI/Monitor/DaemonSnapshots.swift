import Foundation
import TransferKit
import TransferTopDaemon
import TransferTopUI

/// The daemon's status as the monitor's snapshots (DECISIONS 127): a background session is a
/// `SessionSnapshot` of kind background with an id from `DaemonRows.firstSessionID` on, its
/// tasks `TaskSnapshot`s numbered as the daemon numbers them. The daemon sends states and byte
/// counts, not metrics: the phase columns stay empty, and the speed is the monitor's own moving
/// average over the byte counts, as for local tasks.
struct DaemonSnapshots {
    /// The first session id of this daemon's (`DaemonRows.sessionsPerHost` ids from it).
    var base = DaemonRows.firstSessionID
    /// Put before each session's name on screen (`hostb/`) when the monitor watches several
    /// hosts; the daemon's own names stay the keys.
    var label = ""
    /// Each session's id, kept for the monitor's life so the selection stays on it.
    private(set) var ids: [String: Int] = [:]
    /// When the monitor first saw each task: its metrics' start (the detail pane's age).
    private var firstSeen: [String: Date] = [:]
    /// Each task's state as last converted, and each session's: a change between two pictures
    /// is an event for the log (the daemon's own events stay in its journal).
    private var lastState: [String: String] = [:]
    private var lastInvalidated: [String: Bool] = [:]
    /// Events made by `sessions(_:now:)` since the last `takeEvents()`.
    private(set) var events: [TransferEvent] = []

    mutating func takeEvents() -> [TransferEvent] {
        defer { events = [] }
        return events
    }

    mutating func id(of name: String) -> Int {
        if let id = ids[name] { return id }
        // Past the range's end (a hundred thousand sessions) the last id is shared: rows merge,
        // but no id ever reaches another host's range.
        let id = base + min(ids.count, DaemonRows.sessionsPerHost - 1)
        ids[name] = id
        return id
    }

    func name(of id: Int) -> String? { ids.first { $0.value == id }?.key }

    mutating func sessions(_ statuses: [BackgroundSessionStatus], now: Date) -> [SessionSnapshot] {
        statuses.map { s in
            let known = ids[s.name] != nil
            let sid = id(of: s.name)
            let snapshot = SessionSnapshot(id: sid, name: label + s.name, kind: .background(identifier: s.name),
                                           state: s.invalidated ? .invalidated : .active,
                                           // 0: unknown (no submission running, or an earlier daemon).
                                           maxConnectionsPerHost: s.connectionsPerHost ?? 0,
                                           rateLimit: s.rateLimit ?? 0, limitsChanged: s.rateLimit != nil || s.connectionsKept == true,
                                           tasks: s.tasks.map { task($0, session: s.name, id: sid, now: now) })
            noteChanges(snapshot, known: known, now: now)
            return snapshot
        }
    }

    /// Log events for what changed since the last picture; none for what the first picture of
    /// a session shows (attaching to ten thousand tasks must not bury the log).
    mutating func noteChanges(_ s: SessionSnapshot, known: Bool, now: Date) {
        if known, lastInvalidated[s.name] != (s.state == .invalidated), s.state == .invalidated {
            events.append(TransferEvent(date: now, sessionID: s.id, taskIdentifier: nil, kind: .sessionStateChanged(.invalidated), detail: "daemon"))
        }
        lastInvalidated[s.name] = s.state == .invalidated
        for t in s.tasks {
            let key = "\(s.name):\(t.taskIdentifier)"
            let text = DisplayState.text(t)
            let before = lastState.updateValue(text, forKey: key)
            guard known, before != text else { continue }
            if before == nil {
                events.append(TransferEvent(date: now, sessionID: s.id, taskIdentifier: t.taskIdentifier, kind: .taskCreated, detail: "daemon"))
            }
            events.append(TransferEvent(date: now, sessionID: s.id, taskIdentifier: t.taskIdentifier, kind: .taskStateChanged(t.state),
                                        detail: DisplayState(t).outcome(t) ?? (DisplayState(t) == .queued ? "queued" : "")))
        }
    }

    mutating func task(_ t: BackgroundTaskStatus, session: String, id sid: Int, now: Date) -> TaskSnapshot {
        let key = "\(session):\(t.number)"
        let start = firstSeen[key] ?? now
        firstSeen[key] = start
        // A queued task is a running one still in its queue phase, as the engine shows it.
        let queued = t.state == "queued"
        let metrics = TaskMetrics(taskIntervalStart: start, taskIntervalEnd: t.state == "completed" ? start : nil,
                                  transactionMetrics: queued ? [TransactionMetrics(method: "GET", url: t.url, currentPhase: .queued)] : [])
        return TaskSnapshot(sessionID: sid, sessionName: label + session, taskIdentifier: Int(clamping: t.number), kind: .download,
                            state: Self.state(t.state), originalURL: t.url, countOfBytesReceived: Self.bytes(t.bytesReceived),
                            countOfBytesExpectedToReceive: Self.expected(t.bytesExpected), statusCode: t.statusCode, metrics: metrics,
                            error: t.error.map(Self.error),
                            // The daemon decides whether `d` can keep resume data; its reply says.
                            isResumable: t.state != "completed", outputPath: t.path)
    }

    /// Byte counts come from a socket and a file: a hostile or corrupt one must not reach the
    /// speed meter's sums (which trap on overflow, on the UI thread, with the terminal raw) or
    /// the ETA as a negative. 2^53 bytes (8 PiB) is more than any transfer and sums safely.
    static let maxBytes: Int64 = 1 << 53

    static func bytes(_ n: Int64) -> Int64 { min(max(n, 0), maxBytes) }

    /// An expected size of 0 or less is unknown (-1), as the engine says it.
    static func expected(_ n: Int64?) -> Int64 {
        guard let n, n > 0 else { return -1 }
        return min(n, maxBytes)
    }

    static func state(_ s: String) -> TaskState {
        switch s {
        case "suspended": return .suspended
        case "canceling": return .canceling
        case "completed": return .completed
        default: return .running  // queued, running
        }
    }

    /// The journal keeps an error as text, `name (code): message` for an engine error: the
    /// code comes back from it (cancelled shows as cancelled, not as a failure).
    static func error(_ text: String) -> TransferError {
        if let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")"),
           let raw = Int(text[text.index(after: open)..<close]), let code = TransferError.Code(rawValue: raw) {
            let rest = text[close...].dropFirst().drop { $0 == ":" || $0 == " " }
            return TransferError(code, rest.isEmpty ? text : String(rest))
        }
        return TransferError(text.hasPrefix("cancelled") ? .cancelled : .unknown, text)
    }
}
