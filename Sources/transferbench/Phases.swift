import Foundation
import TransferKit

/// `transferbench phases URL CAFILE COUNT`: COUNT GETs of URL one after another, each on a new
/// ephemeral session (a fresh connection and a full TLS handshake, as a new curl process with
/// `--no-sessionid` makes), over HTTP/1.1, trusting CAFILE as well. Prints one line per request:
///
///   PHASES dns=MS connect=MS tls=MS ttfb=MS
///
/// MetricsTruthTests compares these with `curl -w` in a process of its own, so both sides run
/// outside the loaded test process and meet the same machine.
enum Phases {
    static func run(_ url: URL, caFile: String, count: Int) -> Never {
        var failed = false
        for _ in 0..<count {
            var c = TransferConfiguration.ephemeral
            c.additionalTrustedCAFile = caFile
            c.allowsHTTP2 = false
            let invalidated = Invalidated()
            let session = TransferSession(configuration: c, delegate: invalidated)
            let done = DispatchSemaphore(value: 0)
            let task = session.dataTask(with: TransferRequest(url: url)) { _, _, _ in done.signal() }
            task.resume()
            done.wait()
            session.finishTasksAndInvalidate()
            // Its connection is closed and its thread gone before the next session or the
            // exit: exit's handlers (OpenSSL's clean-up) must not run beside a live engine.
            invalidated.wait()
            guard task.error == nil, let t = task.metrics.timings.first,
                  let dns = t.dnsMs, let connect = t.connectMs, let ttfb = t.ttfbMs else {
                FileHandle.standardError.write(Data("transferbench phases: \(task.error.map { "\($0)" } ?? "no timings")\n".utf8))
                failed = true
                continue
            }
            print("PHASES dns=\(dns) connect=\(connect) tls=\(t.tlsMs ?? 0) ttfb=\(ttfb)")
        }
        exit(failed ? 1 : 0)
    }
}

/// Signals once the session is invalid: its engine has torn down every handle and stopped.
private final class Invalidated: TransferSessionDelegate, Sendable {
    private let done = DispatchSemaphore(value: 0)
    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) { done.signal() }
    func wait() { done.wait() }
}
