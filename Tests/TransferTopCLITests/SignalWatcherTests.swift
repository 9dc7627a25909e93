import Foundation
import TestSupport
import TransferModel
import Testing
@testable import TransferTopCLI
@testable import TransferTopRun

/// `SignalWatcher`: a signal sent once `init` has returned reaches the handler, for a second
/// watcher of the same signal in the same process too (after the first was cancelled). SIGUSR2,
/// which nothing else in the test process uses; sent to the whole process, as a shell's Ctrl-C
/// or `kill` is.
@Suite(.serialized) struct SignalWatcherTests {
    @Test func everyWatcherOfASignalHearsIt() async throws {
        for round in 1...3 {
            let heard = Locked(0)
            let watcher = SignalWatcher(signals: [SIGUSR2]) { _ in heard.withLock { $0 += 1 } }
            kill(getpid(), SIGUSR2)
            try await waitFor("watcher \(round) to hear SIGUSR2") { heard.withLock { $0 } == 1 }
            watcher.cancel()
        }
    }
}
