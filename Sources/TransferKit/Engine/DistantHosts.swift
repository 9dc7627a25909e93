import CCurl
import Foundation

/// How many HTTP/2 streams a host gets (DECISIONS 146). One per connection (at least 6) keeps
/// libcurl 7.88's per-perform walk short where the server answers at once (loopback, a LAN);
/// a host far away needs more in flight, as a window needs more bytes on a long path.
///
/// The hosts whose round trip was read, those found far enough to get `multiplexLimit`
/// streams, and those widened during the current perform. Transfer thread only.
final class DistantHosts {
    /// The configuration's `multiplexWideningRTT`, in seconds.
    private let wideningRTT: TimeInterval
    /// Hosts whose HTTP/2 connection is far enough to need more streams (`noteRoundTrip`).
    private var distant: Set<String> = []
    /// Hosts whose round trip was read already (once per host and session).
    private var measured: Set<String> = []
    /// Hosts just widened, whose waiting transfers start after this perform (`fillWidened`).
    private var widened: [String] = []

    init(wideningRTT: TimeInterval) {
        self.wideningRTT = wideningRTT
    }

    func contains(_ key: String) -> Bool { distant.contains(key) }

    /// The first HTTP/2 response head of a host: reads its connection's round trip (the
    /// kernel's, so our own scheduling does not count) and, when it is at least
    /// `multiplexWideningRTT`, gives the host `multiplexLimit` streams (waiting ones start
    /// after this perform).
    func noteRoundTrip(_ t: Transfer) {
        // Only a transfer that opened its connection knows its socket (libcurl 7.88 tells a
        // transfer's socket only once it is done); the host's first one always did.
        guard let key = t.hostKey, t.newConnectionSocket >= 0, !measured.contains(key) else { return }
        let rtt = tk_tcp_rtt_micros(t.newConnectionSocket)
        guard rtt >= 0 else { return }
        measured.insert(key)
        guard Self.isDistant(rttMicros: rtt, threshold: wideningRTT) else { return }
        distant.insert(key)
        // This runs in libcurl's header callback, where adding a handle fails
        // (CURLM_RECURSIVE_API_CALL): the waiting transfers start once `perform` returns.
        widened.append(key)
    }

    /// Starts the waiting transfers of hosts widened during the last `perform` (`fillHost`:
    /// the engine's, which attaches them).
    func fillWidened(_ fillHost: (String) -> Void) {
        guard !widened.isEmpty else { return }
        for key in widened { fillHost(key) }
        widened.removeAll()
    }

    /// A round trip (microseconds, -1 unknown) at or above `threshold` seconds.
    static func isDistant(rttMicros: Int, threshold: TimeInterval) -> Bool {
        rttMicros >= 0 && Double(rttMicros) >= threshold * 1_000_000
    }
}
