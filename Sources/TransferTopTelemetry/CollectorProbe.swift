import Foundation
import TransferModel

/// Whether a collector takes a TCP connection, asked once at exit before the last spans are
/// sent (DECISIONS 207): the exporter's HTTP client retries a refused connect until its export
/// timeout, where curl says "connection refused" at once. Only a definite answer skips the
/// last export: a refusal, an unreachable network, a name that does not resolve. A slow answer
/// (no reply within `deadline`) leaves the export to its own timeout, as before.
public enum CollectorProbe {
    public enum Outcome: Equatable, Sendable {
        /// A connection was opened (and closed again at once).
        case reachable
        /// Nothing will take the spans: the reason, for the warning.
        case refused(String)
        /// No answer within the deadline (a firewall that drops, a slow name server).
        case undecided
    }

    /// Probes the host and port of `url` (`http`: 80, `https`: 443 unless it names one).
    /// Name resolution has no timeout of its own, so the attempt runs on a thread of its own
    /// and is waited for at most `deadline` seconds; one that outlives it ends with the process.
    public static func probe(_ url: String, deadline: Double = 1) async -> Outcome {
        // `URL.host` is an IPv6 literal without its brackets, as getaddrinfo wants it.
        guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty else {
            return .refused("no host in the URL")
        }
        let port = RedirectPolicy.effectivePort(parsed)
        let until = DispatchTime.now() + deadline
        return await withCheckedContinuation { continuation in
            let answer = Answer(continuation)
            Thread.detachNewThread { answer.give(connect(host: host, port: port, deadline: until)) }
            DispatchQueue.global().asyncAfter(deadline: until) { answer.give(.undecided) }
        }
    }

    /// One blocking attempt per resolved address, each bounded by what is left of `deadline`.
    /// Resolved as the exporter's HTTP client resolves (no `AI_ADDRCONFIG`, which hides `::1` on
    /// a host without a global IPv6 address). Refused only when no name resolves, or when
    /// every address refused or was unreachable; anything else (no descriptors, an
    /// interrupted call) is `.undecided`.
    static func connect(host: String, port: Int, deadline: DispatchTime) -> Outcome {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return rc == EAI_NONAME ? .refused("cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))") : .undecided
        }
        defer { freeaddrinfo(list) }
        var refusal: Int32?
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let a = entry {
            entry = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            a.pointee.ai_protocol)
            guard fd >= 0 else {
                if errno == EAFNOSUPPORT { continue }  // an address family this kernel lacks
                return .undecided
            }
            defer { close(fd) }
            var error: Int32 = 0
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return .reachable }
            if errno == EINPROGRESS {
                let leftMs = Int32(clamping: Int64(deadline.uptimeNanoseconds) / 1_000_000 - Int64(DispatchTime.now().uptimeNanoseconds) / 1_000_000)
                guard leftMs > 0 else { return .undecided }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&pfd, 1, leftMs) > 0 else { return .undecided }
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return .undecided }
                if error == 0 { return .reachable }
            } else {
                error = errno
            }
            guard error == ECONNREFUSED || error == ENETUNREACH || error == EHOSTUNREACH else { return .undecided }
            refusal = error
        }
        guard let refusal else { return .undecided }
        return .refused(String(cString: strerror(refusal)).lowercased())
    }

    /// The first of the attempt's outcome and the deadline's `.undecided` resumes the waiter.
    final class Answer: Sendable {
        private let waiter: Locked<CheckedContinuation<Outcome, Never>?>

        init(_ continuation: CheckedContinuation<Outcome, Never>) { waiter = Locked(continuation) }

        func give(_ outcome: Outcome) {
            let first = waiter.withLock { w -> CheckedContinuation<Outcome, Never>? in
                defer { w = nil }
                return w
            }
            first?.resume(returning: outcome)
        }
    }
}
