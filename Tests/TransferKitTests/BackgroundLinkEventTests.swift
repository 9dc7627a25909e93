import BackgroundWire
import Foundation
import Testing
@testable import TransferKit

/// The link's handling of the daemon's events, without a daemon: a link on private
/// directories (nothing is started: it never attaches) routing to an ordinary session's tasks.
@Suite struct BackgroundLinkEventTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("linkevents-\(UUID().uuidString)").path

    func link(_ rec: Recorder) -> (BackgroundLink, TransferSession) {
        let link = BackgroundLink(identifier: "app.one", environment: ["XDG_RUNTIME_DIR": root + "/run", "XDG_STATE_HOME": root + "/state"])
        let session = TransferSession(configuration: .default, delegate: rec)
        link.session = session
        return (link, session)
    }

    func task(_ number: Int64, _ state: String, _ received: Int64 = 0) -> LibraryTask {
        LibraryTask(number: number, url: "http://127.0.0.1:1/x", state: state, bytesReceived: received, bytesExpected: 100)
    }

    /// Review finding 3: a replayed "running" older than the restored state leaves a
    /// suspended task suspended (the app's resume() is what resumes it).
    @Test func aStaleRunningEventDoesNotResumeARestoredSuspendedTask() throws {
        let rec = Recorder()
        let (link, session) = link(rec)
        defer { session.invalidateAndCancel() }
        link.state.withLock { $0.statesAsOf = 10 }
        link.restore([task(1, "suspended")])
        let restored = try #require(link.state.withLock { $0.tasks[1] })
        link.handle(LibraryEvent(seq: 4, kind: "state", task: task(1, "running")))
        #expect(restored.state == .suspended)
        // A fresh one does.
        link.handle(LibraryEvent(seq: 11, kind: "state", task: task(1, "running")))
        #expect(restored.state == .running)
    }

    /// Review findings 4 and 12: a task whose completion was delivered is not made again when
    /// a new daemon lists it (its acknowledgement lost), and the last bytes reach didWriteData.
    @Test func aDeliveredTaskListedAgainIsNotRestoredAndItsLastBytesAreWritten() throws {
        let rec = Recorder()
        let (link, session) = link(rec)
        defer { session.invalidateAndCancel() }
        link.restore([task(1, "running", 10)])
        link.handle(LibraryEvent(seq: 1, kind: "state", task: task(1, "completed", 100), error: "cancelled"))
        session.delegateQueue.sync {}
        #expect(rec.state.withLock { $0.writes } == 100)
        #expect(link.state.withLock { $0.tasks[1] } == nil)
        link.restore([task(1, "running", 100)])
        #expect(link.state.withLock { $0.tasks[1] } == nil)
    }

    /// Review finding 1: only a plain file directly in a task directory of this session's is
    /// handed to the delegate (and deleted after it).
    @Test func onlyAFileOfTheSessionsOwnTaskDirectoryIsDeliverable() throws {
        let rec = Recorder()
        let (link, session) = link(rec)
        defer { session.invalidateAndCancel(); try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        let mine = root + "/state/transfertop/background/app.one"
        try fm.createDirectory(atPath: mine + "/1", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/state/transfertop/background/other/1", withIntermediateDirectories: true)
        let outside = root + "/precious"
        for f in [mine + "/1/file", outside, root + "/state/transfertop/background/other/1/file"] { #expect(fm.createFile(atPath: f, contents: Data("x".utf8))) }
        try fm.createSymbolicLink(atPath: mine + "/1/link", withDestinationPath: outside)
        try fm.createSymbolicLink(atPath: mine + "/2", withDestinationPath: root)
        #expect(link.deliverable(mine + "/1/file")?.path == mine + "/1/file")
        for bad in [outside, mine + "/1/link", mine + "/2/precious", mine + "/1/../../../../precious", mine + "/file",
                    root + "/state/transfertop/background/other/1/file", "relative/1/file"] {
            #expect(link.deliverable(bad) == nil, "\(bad)")
        }
        // A completion naming the outside file fails the task clearly and deletes nothing.
        link.restore([task(1, "running")])
        link.handle(LibraryEvent(seq: 1, kind: "state", task: task(1, "completed", 1), path: outside))
        session.delegateQueue.sync {}
        #expect(fm.fileExists(atPath: outside))
        #expect(rec.error?.code == .unknown)
        #expect(rec.error.map { "\($0)" }?.contains("not a file of this session's directory") == true)
    }

    /// Review finding 14: an identifier that is no session name never names a directory.
    @Test func anIdentifierThatIsNoSessionNameIsRefusedBeforeAnyPath() {
        for bad in ["..", ".", "a/b", "-x", "", String(repeating: "a", count: 65)] {
            let link = BackgroundLink(identifier: bad, environment: ["XDG_RUNTIME_DIR": root + "/run", "XDG_STATE_HOME": root + "/state"])
            guard case .failure(let why) = link.paths else { Issue.record("'\(bad)' accepted"); continue }
            #expect("\(why)".contains("1-64 letters, digits"), "\(why)")
        }
        let good = BackgroundLink(identifier: "app..one", environment: ["XDG_RUNTIME_DIR": root + "/run", "XDG_STATE_HOME": root + "/state"])
        if case .failure(let why) = good.paths { Issue.record("\(why)") }
    }

    /// Review finding 7: a cancel(byProducingResumeData:) handler may end the link (as an
    /// invalidation does) when the task ends before reaching the daemon: it is not called on
    /// the link's queue, whose end() waits for it.
    @Test func aResumeDataHandlerMayEndTheLinkWhenTheTaskEndsHere() {
        let rec = Recorder()
        let (link, session) = link(rec)
        defer { session.invalidateAndCancel() }
        var request = TransferRequest(url: URL(string: "http://127.0.0.1:1/x")!)
        request.httpMethod = "POST"
        let task = session.downloadTask(with: request)
        let answered = DispatchSemaphore(value: 0)
        link.send(.cancel(task, byProducingResumeData: true, reply: { _ in
            link.end()
            answered.signal()
        }))
        link.send(.start(task, requestedAt: 0))
        answered.wait()
        #expect(link.state.withLock { $0.ended })
    }

    /// Review finding 9: a line the library cannot read is skipped, and the events after it
    /// still reach their tasks (the stream ending there re-attached and replayed it for ever).
    @Test func anUnreadableLineIsSkippedAndTheNextEventArrives() throws {
        let rec = Recorder()
        let (link, session) = link(rec)
        defer { session.invalidateAndCancel() }
        link.restore([task(1, "running")])
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let channel = LineChannel(fd: fds[0])
        // Ended: the link never re-attaches here, whatever happens.
        link.state.withLock { $0.events = channel; $0.ended = true }
        let event = try JSONEncoder().encode(LibraryReplyEnvelope.library(.event(
            LibraryEvent(seq: 1, kind: "state", task: task(1, "completed", 0), error: "cancelled"))))
        let bytes = Data("{\"a newer message\":1}\n".utf8) + event + Data("\n".utf8)
        _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        link.read(channel)
        session.delegateQueue.sync {}
        #expect(rec.error?.code == .cancelled)
        #expect(link.state.withLock { $0.tasks.isEmpty })
    }
}
