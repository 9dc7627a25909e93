import TransferModel

/// Speeds of every task, session and the whole monitor, from successive snapshots.
///
/// The engine reports byte counts, not speeds; speed is the monitor's view of them over a
/// sliding window. Time is injected in seconds on any monotonic scale.
public struct TransferRates: Sendable, Equatable {
    public var window: Double
    public private(set) var tasks: [TaskID: SpeedMeter] = [:]
    public private(set) var sessions: [Int: SpeedMeter] = [:]
    public private(set) var down = SpeedMeter()
    public private(set) var up = SpeedMeter()
    /// Each session's speed once a second, the newest last, at most `historyLength` (for the
    /// sparkline in the sessions pane).
    public private(set) var sessionHistory: [Int: [Double]] = [:]
    public static let historyLength = 60
    /// Each running task's speed once a second, as `sessionHistory` (for the detail pane's
    /// sparkline); a task's history stops growing when it stops running and goes with it.
    public private(set) var taskHistory: [TaskID: [Double]] = [:]
    private var lastTick: Double?
    /// Tasks that were not running at the last record, to spot a resume.
    private var paused: Set<TaskID> = []

    public init(window: Double = 5) {
        self.window = window
        down = SpeedMeter(window: window)
        up = SpeedMeter(window: window)
    }

    /// Records every task's byte counts at `time`; tasks that disappeared are forgotten.
    public mutating func record(_ snapshots: [SessionSnapshot], at time: Double) {
        var received: Int64 = 0, sent: Int64 = 0, count = 0
        let tick = lastTick.map { time - $0 >= 1 } ?? true
        for session in snapshots {
            var sessionBytes: Int64 = 0
            for task in session.tasks {
                sessionBytes += task.countOfBytesReceived + task.countOfBytesSent
                received += task.countOfBytesReceived
                sent += task.countOfBytesSent
                // A completed task moves no more bytes: its meter goes, and the 10,000 finished
                // tasks of a long list cost no meter update per frame.
                if task.state == .completed {
                    if tasks.removeValue(forKey: task.id) != nil { paused.remove(task.id) }
                    continue
                }
                let bytes = Self.progressBytes(task)
                if task.state == .running {
                    // A resume: what arrives first was buffered during the pause; no spike.
                    if !paused.isEmpty, paused.remove(task.id) != nil { tasks[task.id]?.restartCalmly() }
                } else if task.state == .suspended {
                    paused.insert(task.id)
                }
                tasks[task.id, default: SpeedMeter(window: window)].record(bytes: bytes, at: time)
                if tick, task.state == .running { appendHistory(task.id) }
                count += 1
            }
            sessions[session.id, default: SpeedMeter(window: window)].record(bytes: sessionBytes, at: time)
        }
        // Every unfinished task of the snapshot has a meter now, so more meters than those means
        // some tasks are gone; only then is the (rare, O(n)) clean-up needed.
        if tasks.count > count { forget(keeping: snapshots) }
        down.record(bytes: received, at: time)
        up.record(bytes: sent, at: time)
        if tick {
            lastTick = time
            for session in snapshots {
                var h = sessionHistory[session.id, default: []]
                h.append(speed(ofSession: session.id))
                if h.count > Self.historyLength { h.removeFirst(h.count - Self.historyLength) }
                sessionHistory[session.id] = h
            }
        }
    }

    private mutating func appendHistory(_ id: TaskID) {
        let speed = speed(of: id)
        taskHistory[id, default: []].append(speed)
        if let n = taskHistory[id]?.count, n > Self.historyLength { taskHistory[id]?.removeFirst(n - Self.historyLength) }
    }

    private mutating func forget(keeping snapshots: [SessionSnapshot]) {
        let live = Set(snapshots.lazy.flatMap(\.tasks).map(\.id))
        tasks = tasks.filter { live.contains($0.key) }
        paused = paused.filter { live.contains($0) }
        taskHistory = taskHistory.filter { live.contains($0.key) }
        let sessionIDs = Set(snapshots.map(\.id))
        sessions = sessions.filter { sessionIDs.contains($0.key) }
        sessionHistory = sessionHistory.filter { sessionIDs.contains($0.key) }
    }

    public func speed(of task: TaskID) -> Double { tasks[task]?.bytesPerSecond ?? 0 }
    public func speed(ofSession id: Int) -> Double { sessions[id]?.bytesPerSecond ?? 0 }

    /// The bytes that measure a task's progress: sent for uploads, received otherwise.
    public static func progressBytes(_ task: TaskSnapshot) -> Int64 {
        task.kind == .upload ? task.countOfBytesSent : task.countOfBytesReceived
    }

    /// (done, expected) bytes of a task's main direction; expected is -1 when unknown.
    public static func progress(_ task: TaskSnapshot) -> (done: Int64, expected: Int64) {
        task.kind == .upload
            ? (task.countOfBytesSent, task.countOfBytesExpectedToSend)
            : (task.countOfBytesReceived, task.countOfBytesExpectedToReceive)
    }
}
