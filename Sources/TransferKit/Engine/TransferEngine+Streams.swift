import CCurl
import Foundation

/// How many HTTP/2 streams a host gets (DECISIONS 146). One per connection (at least 6) keeps
/// libcurl 7.88's per-perform walk short where the server answers at once (loopback, a LAN);
/// a host far away needs more in flight, as a window needs more bytes on a long path.
extension TransferEngine {
    /// The first HTTP/2 response head of a host: reads its connection's round trip (the
    /// kernel's, so our own scheduling does not count) and, when it is at least
    /// `multiplexWideningRTT`, gives the host `multiplexLimit` streams (waiting ones start
    /// after this perform).
    func noteRoundTrip(_ t: Transfer) {
        // Only a transfer that opened its connection knows its socket (libcurl 7.88 tells a
        // transfer's socket only once it is done); the host's first one always did.
        guard let key = t.hostKey, t.newConnectionSocket >= 0, !measuredHosts.contains(key) else { return }
        let rtt = tk_tcp_rtt_micros(t.newConnectionSocket)
        guard rtt >= 0 else { return }
        measuredHosts.insert(key)
        guard Self.isDistant(rttMicros: rtt, threshold: configuration.multiplexWideningRTT) else { return }
        distantMultiplexedHosts.insert(key)
        // This runs in libcurl's header callback, where adding a handle fails
        // (CURLM_RECURSIVE_API_CALL): the waiting transfers start once `perform` returns.
        widenedHosts.append(key)
    }

    /// Starts the waiting transfers of hosts widened during the last `perform`.
    func fillWidenedHosts() {
        guard !widenedHosts.isEmpty else { return }
        for key in widenedHosts { fillHost(key) }
        widenedHosts.removeAll()
    }

    /// A round trip (microseconds, -1 unknown) at or above `threshold` seconds.
    static func isDistant(rttMicros: Int, threshold: TimeInterval) -> Bool {
        rttMicros >= 0 && Double(rttMicros) >= threshold * 1_000_000
    }
}
