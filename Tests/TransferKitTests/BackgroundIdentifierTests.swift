import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Two live sessions of one process with one background identifier are an error
/// (Apple leaves it undefined); the identifier is free again once the first is invalidated.
@Suite struct BackgroundIdentifierTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("bgident-\(UUID().uuidString)").path
    private func background(_ id: String, _ rec: Recorder) -> TransferSession {
        var c = TransferConfiguration.background(withIdentifier: id)
        c.additionalTrustedCAFile = TestServer.caFile
        // Private directories: never the developer's daemon or journal (review 13). Nothing
        // here starts a daemon (data tasks fail before reaching one).
        c.backgroundEnvironment = ["XDG_RUNTIME_DIR": root + "/run", "XDG_STATE_HOME": root + "/state", "HOME": root]
        return TransferSession(configuration: c, delegate: rec)
    }

    @Test func aSecondLiveSessionWithTheSameIdentifierFailsItsTasksUntilTheFirstIsInvalidated() async throws {
        let server = try await TestServer.get()
        let id = "tests.\(UUID().uuidString)"
        let firstRec = Recorder(), secondRec = Recorder(), thirdRec = Recorder()
        let first = background(id, firstRec)
        let second = background(id, secondRec)
        second.dataTask(with: url("\(server.httpBase)/bytes/10")).resume()
        try await waitUntil { secondRec.state.withLock { $0.completed } }
        #expect(secondRec.error?.code == .invalidRequest)
        #expect(secondRec.error.map { "\($0)" }?.contains("another live session of this process has the background identifier") == true)
        second.invalidateAndCancel()
        // The first one is the session of that identifier (a data task fails there for the
        // reason every background session gives, DECISIONS 131), and after its invalidation
        // the identifier is free.
        let onlyDownloads = "a background session runs download tasks and uploads from a file only"
        first.dataTask(with: url("\(server.httpBase)/bytes/10")).resume()
        try await waitUntil { firstRec.state.withLock { $0.completed } }
        #expect(firstRec.error.map { "\($0)" }?.contains(onlyDownloads) == true)
        first.finishTasksAndInvalidate()
        try await waitUntil { firstRec.state.withLock { $0.invalidated } }
        let third = background(id, thirdRec)
        defer { third.finishTasksAndInvalidate() }
        third.dataTask(with: url("\(server.httpBase)/bytes/10")).resume()
        try await waitUntil { thirdRec.state.withLock { $0.completed } }
        #expect(thirdRec.error.map { "\($0)" }?.contains(onlyDownloads) == true)
    }
}
