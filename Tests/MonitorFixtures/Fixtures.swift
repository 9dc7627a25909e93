import Foundation
import TransferModel
import TransferTopUI

/// A fixed monitor state: three sessions, tasks in every state, one 3-hop redirect chain.
/// Shared by the UI golden tests and the off-screen ncurses tests (a library target, because
/// test targets cannot import each other).
public enum Fixtures {
    public static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    public static func at(_ ms: Double) -> Date { t0.addingTimeInterval(ms / 1000) }

    /// http → https redirect → reused https connection; the last hop is still receiving.
    public static func threeHopMetrics(running: Bool = true) -> TaskMetrics {
        let hop1 = TransactionMetrics(
            method: "GET", url: "http://example.test/get", statusCode: 301, fetchStartDate: at(0), queueEndDate: at(0),
            domainLookupStartDate: at(0), domainLookupEndDate: at(20), connectStartDate: at(20), connectEndDate: at(40),
            requestStartDate: at(40), requestEndDate: at(45), responseStartDate: at(95), responseEndDate: at(100),
            networkProtocolName: "http/1.1", currentPhase: .done)
        let hop2 = TransactionMetrics(
            method: "GET", url: "https://example.test/get", statusCode: 302, fetchStartDate: at(100), queueEndDate: at(100),
            domainLookupStartDate: at(100), domainLookupEndDate: at(110), connectStartDate: at(110), connectEndDate: at(180),
            secureConnectionStartDate: at(130), secureConnectionEndDate: at(180),
            requestStartDate: at(180), requestEndDate: at(185), responseStartDate: at(235), responseEndDate: at(240),
            networkProtocolName: "h2", currentPhase: .done)
        let hop3 = TransactionMetrics(
            method: "GET", url: "https://example.test/files/big.iso",
            requestHeaders: [HTTPHeader("Authorization", "Bearer s3cr3t"), HTTPHeader("Accept", "*/*")],
            statusCode: 200, responseHeaders: [HTTPHeader("Content-Type", "application/octet-stream"), HTTPHeader("Set-Cookie", "id=abc")],
            fetchStartDate: at(240), queueEndDate: at(240), requestStartDate: at(240), requestEndDate: at(250),
            responseStartDate: at(300), responseEndDate: running ? nil : at(400), networkProtocolName: "h2",
            isReusedConnection: true, currentPhase: running ? .receive : .done)
        return TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: running ? nil : at(400), redirectCount: 2,
                           transactionMetrics: [hop1, hop2, hop3])
    }

    /// One finished (or, with `until`, cut short) hop starting at `start` ms: dns, connect,
    /// tls, request, wait, receive of the given lengths; a nil length ends the hop before it.
    public static func hop(_ url: String, start: Double, status: Int?, tls: Bool = true, phases: [Double?],
                           error: String? = nil) -> TaskMetrics {
        var t = TransactionMetrics(method: "GET", url: url, fetchStartDate: at(start), queueEndDate: at(start))
        var cursor = start
        func next(_ i: Int) -> (Date, Date)? {
            guard i < phases.count, let ms = phases[i] else { return nil }
            defer { cursor += ms }
            return (at(cursor), at(cursor + ms))
        }
        if let (s, e) = next(0) { (t.domainLookupStartDate, t.domainLookupEndDate) = (s, e) }
        if let (s, e) = next(1) { (t.connectStartDate, t.connectEndDate) = (s, e) }
        if tls, let (s, e) = next(2) { (t.secureConnectionStartDate, t.secureConnectionEndDate) = (s, e); t.connectEndDate = e }
        if let (s, e) = next(3) { (t.requestStartDate, t.requestEndDate) = (s, e) }
        if let (_, e) = next(4) { t.responseStartDate = e }
        if let (_, e) = next(5) { t.responseEndDate = e }
        t.statusCode = status
        t.networkProtocolName = "http/1.1"
        t.currentPhase = .done
        t.errorDescription = error
        return TaskMetrics(taskIntervalStart: at(start), taskIntervalEnd: at(cursor), redirectCount: 0, transactionMetrics: [t])
    }

    /// A live hop: connected earlier, request sent at 100 ms, waiting for the first byte.
    public static func waitingMetrics() -> TaskMetrics {
        var t = TransactionMetrics(method: "GET", url: "https://example.test/api/report", fetchStartDate: at(0), queueEndDate: at(0),
                                   domainLookupStartDate: at(0), domainLookupEndDate: at(15), connectStartDate: at(15),
                                   connectEndDate: at(40), secureConnectionStartDate: at(40), secureConnectionEndDate: at(95),
                                   requestStartDate: at(100), currentPhase: .wait)
        t.networkProtocolName = "h2"
        return TaskMetrics(taskIntervalStart: t0, taskIntervalEnd: nil, redirectCount: 0, transactionMetrics: [t])
    }

    /// Waiting for a connection since 50 ms (the session allows one per host).
    public static func queuedMetrics() -> TaskMetrics {
        let t = TransactionMetrics(method: "GET", url: "https://example.test/next.bin", fetchStartDate: at(50), currentPhase: .queued)
        return TaskMetrics(taskIntervalStart: at(50), taskIntervalEnd: nil, redirectCount: 0, transactionMetrics: [t])
    }

    public static func task(_ session: Int, _ id: Int, _ state: TaskState, url: String, kind: TaskKind = .download,
                     received: Int64 = 0, expected: Int64 = -1, status: Int? = nil, proto: String? = nil,
                     error: TransferError? = nil, resumable: Bool = false, metrics: TaskMetrics? = nil) -> TaskSnapshot {
        TaskSnapshot(sessionID: session, sessionName: "s\(session)", taskIdentifier: id, kind: kind, state: state,
                     originalURL: url, countOfBytesReceived: received, countOfBytesExpectedToReceive: expected,
                     statusCode: status, networkProtocolName: proto, metrics: metrics ?? TaskMetrics(taskIntervalStart: t0),
                     error: error, isResumable: resumable)
    }

    public static let mib: Int64 = 1 << 20

    /// A task whose URL has CJK text, to draw wide characters (off by default: the UI goldens
    /// were recorded without it).
    public static let wideTask = TaskID(session: 1, task: 5)

    public static func sessions(includeWideTask: Bool = false) -> [SessionSnapshot] {
        var s = baseSessions()
        if includeWideTask {
            s[0].tasks.append(task(1, 5, .running, url: "https://例え.test/文件/データ.bin", received: 1 * mib,
                                   expected: 8 * mib, status: 200, proto: "h2"))
        }
        return s
    }

    static func baseSessions() -> [SessionSnapshot] {
        [
            SessionSnapshot(id: 1, name: "downloads", kind: .default, state: .active, maxConnectionsPerHost: 6, tasks: [
                task(1, 1, .running, url: "http://example.test/get", received: 50 * mib, expected: 100 * mib, status: 200,
                     proto: "h2", resumable: true, metrics: threeHopMetrics()),
                task(1, 2, .suspended, url: "https://example.test/slow", received: 3 * mib, expected: 12 * mib, status: 200, proto: "http/1.1"),
                task(1, 3, .completed, url: "https://example.test/small.json", kind: .data, received: 2048, expected: 2048, status: 200, proto: "h2"),
                task(1, 4, .running, url: "https://example.test/stream", received: 5 * mib, status: 200, proto: "http/1.1"),
                task(1, 6, .running, url: "https://example.test/api/report", kind: .data, metrics: waitingMetrics()),
            ]),
            SessionSnapshot(id: 2, name: "ephemeral-api", kind: .ephemeral, state: .invalidating, maxConnectionsPerHost: 6, tasks: [
                task(2, 1, .canceling, url: "https://user:pw@example.test/private", kind: .data, received: 100, expected: 1000),
                task(2, 2, .completed, url: "https://example.test/missing", kind: .data, status: 404, proto: "http/1.1",
                     metrics: hop("https://example.test/missing", start: 0, status: 404, phases: [4, 12, 30, 1, 45, 2])),
                task(2, 3, .completed, url: "https://nowhere.invalid/", kind: .data,
                     error: TransferError(.cannotFindHost, "cannot find host nowhere.invalid"),
                     metrics: hop("https://nowhere.invalid/", start: 0, status: nil, phases: [38],
                                  error: "cannot find host nowhere.invalid")),
            ]),
            SessionSnapshot(id: 3, name: "limited", kind: .default, state: .invalidated, maxConnectionsPerHost: 1, tasks: [
                task(3, 1, .completed, url: "https://example.test/big.bin", received: 7 * mib, expected: 20 * mib,
                     error: TransferError(.cancelled, "cancelled"), resumable: true,
                     metrics: hop("https://example.test/big.bin", start: 0, status: 200, phases: [3, 9, 21, 1, 60, 250],
                                  error: "cancelled")),
                task(3, 2, .running, url: "https://example.test/next.bin", metrics: queuedMetrics()),
            ]),
        ]
    }

    public static func events() -> [TransferEvent] {
        [
            TransferEvent(date: at(0), sessionID: 1, taskIdentifier: nil, kind: .sessionCreated),
            TransferEvent(date: at(1), sessionID: 1, taskIdentifier: 1, kind: .taskStateChanged(.running)),
            TransferEvent(date: at(100), sessionID: 1, taskIdentifier: 1, kind: .delegateCallback("willPerformHTTPRedirection"), detail: "301"),
            TransferEvent(date: at(300), sessionID: 1, taskIdentifier: 1, kind: .delegateCallback("didReceiveResponse"), detail: "200 OK"),
            TransferEvent(date: at(350), sessionID: 2, taskIdentifier: nil, kind: .sessionStateChanged(.invalidating)),
        ]
    }

    /// The model the golden screens are drawn from: speeds from two samples one second apart.
    public static func model(width: Int, height: Int, detail: Bool = true, includeWideTask: Bool = false) -> MonitorModel {
        var m = MonitorModel()
        m.width = width
        m.height = height
        m.now = at(350)
        var first = sessions(includeWideTask: includeWideTask)
        for s in first.indices { for t in first[s].tasks.indices { first[s].tasks[t].countOfBytesReceived /= 2 } }
        m.apply(first, at: 0)
        m.apply(sessions(includeWideTask: includeWideTask), at: 1)
        m.append(events())
        m.detailShown = detail
        m.frameTimeMs = 1.25
        return m
    }

    /// The golden model with `task` added to its first session, selected, in view, and its
    /// detail pane shown: how the view tests look at one task's row and detail.
    public static func model(width: Int, height: Int, selecting task: TaskSnapshot) -> MonitorModel {
        var m = model(width: width, height: height)
        var sessions = m.sessions
        sessions[0].tasks.append(task)
        m.sessions = sessions
        m.selectedTask = task.id
        m.keepSelectionVisible()
        m.detailShown = true
        return m
    }
}
