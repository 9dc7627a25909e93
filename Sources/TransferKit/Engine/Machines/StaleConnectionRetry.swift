/// A request that fails on a kept-alive connection before any of its response arrived is sent
/// once more, in the same task. A server may close an idle kept-alive connection at any moment,
/// or end an h2 connection with GOAWAY while streams are in flight; a request that met that
/// close was not answered, and an idempotent one (RFC 9110, 9.2.2) is safe to send again.
/// Browsers and Apple's URLSession do the same. libcurl 7.88 does it itself on HTTP/1.1 (for
/// any method, unseen by the engine: one hop), and fails an h2 stream whose connection closed
/// or was ended by GOAWAY: that is the case this machine meets. Once per task: a second failure
/// is the task's. Pure: the engine reports the hop's end and failure and performs the action
/// (DECISIONS 179).
///
/// `unused` → (a failure that qualifies) `resending` → (that hop ends, however) `spent`.
struct StaleConnectionRetry: Equatable {
    enum State: Equatable {
        /// No request of this task has been sent again.
        case unused
        /// The current hop sends the request again.
        case resending
        /// The one resend has been made.
        case spent
    }

    /// What the engine knows of the failed hop.
    struct Failure: Equatable {
        /// libcurl's result for the hop.
        var curlCode: Int
        var isHTTP: Bool
        /// No connection was opened for the hop: it went out on a kept-alive one (or joined an
        /// h2 connection another request had just opened).
        var reusedConnection: Bool
        /// A header line of the response arrived: the server took the request.
        var responseStarted: Bool
        var method: String
        /// The body can be sent again as it was (none, bytes, a file, a form): not a stream the
        /// delegate would have to give anew.
        var replayableBody: Bool
        /// The hop failed because of the connection, not because the task's own side (its file,
        /// its delegate, a limit) ended it.
        var failedByConnection: Bool
    }

    enum Action: Equatable {
        /// Send the request again on a new hop (libcurl does not reuse the closed connection).
        case sendAgain
        /// Fail as any failed hop does.
        case fail
    }

    private(set) var state: State = .unused

    /// A hop ended (called before its outcome is decided): a resend is spent once its hop ends.
    mutating func hopEnded() {
        if state == .resending { state = .spent }
    }

    /// The hop failed.
    mutating func hopFailed(_ failure: Failure) -> Action {
        guard state == .unused, Self.qualifies(failure) else { return .fail }
        state = .resending
        return .sendAgain
    }

    /// libcurl's results for a connection that closed under a request: nothing came back
    /// (`CURLE_GOT_NOTHING`), a send or receive failed (`CURLE_SEND_ERROR`, `CURLE_RECV_ERROR`),
    /// the h2 connection or stream was ended (`CURLE_HTTP2`, `CURLE_HTTP2_STREAM`), or, what
    /// libcurl 7.88 answers for an h2 stream whose connection closed before its response,
    /// `CURLE_PARTIAL_FILE` ("stream was not closed cleanly"; with no response started only).
    static let connectionClosedCodes: Set<Int> = [52, 55, 56, 16, 92, 18]

    /// Methods a server may receive twice with the effect of once (RFC 9110, 9.2.2).
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    static func qualifies(_ f: Failure) -> Bool {
        f.isHTTP && f.failedByConnection && f.reusedConnection && !f.responseStarted && f.replayableBody
            && connectionClosedCodes.contains(f.curlCode) && idempotentMethods.contains(f.method.uppercased())
    }
}
