import CCurl
import Testing
@testable import TransferKit

/// The `waitsForConnectivity` schedule: which failures are waited out and the pause before
/// each retry (no libcurl transfer, no threads, no clock).
@Suite struct ConnectivityRetryTests {
    @Test func thePauseStartsAt100MillisecondsAndDoublesToTwoSeconds() {
        let pauses = (0..<8).map { ConnectivityRetry.pause(afterRetries: $0) / 1_000_000 }
        #expect(pauses == [100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000])
        #expect(ConnectivityRetry.pause(afterRetries: Int.max) == ConnectivityRetry.longestPause)
    }

    @Test func onlyFailuresToReachTheServerAreWaitedOut() {
        #expect(ConnectivityRetry.isUnreachable(CURLE_COULDNT_CONNECT))
        #expect(ConnectivityRetry.isUnreachable(CURLE_COULDNT_RESOLVE_HOST))
        #expect(ConnectivityRetry.isUnreachable(CURLE_COULDNT_RESOLVE_PROXY))
        #expect(!ConnectivityRetry.isUnreachable(CURLE_OK))
        #expect(!ConnectivityRetry.isUnreachable(CURLE_OPERATION_TIMEDOUT))
        #expect(!ConnectivityRetry.isUnreachable(CURLE_RECV_ERROR))
        #expect(!ConnectivityRetry.isUnreachable(CURLE_PEER_FAILED_VERIFICATION))
    }
}
