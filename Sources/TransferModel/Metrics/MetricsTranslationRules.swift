import Foundation

/// libcurl 7.88 per-hop timers + engine timestamps → phase dates.
/// The rules, with the evidence for each, are in docs/metrics.md; in short:
///
/// 1. Find `startsingle` (S), the instant curl left its connection queue, which 7.88 does not
///    report (no `QUEUE_TIME_T` before 8.6):
///    `firstHeaderAt − STARTTRANSFER`, else `prereqAt − max(NAMELOOKUP, CONNECT, APPCONNECT)`,
///    else `connectingAt` (the engine saw the hop start to resolve or open a socket), else
///    `doneAt − TOTAL` (≈ curl's progress start: queueing cannot be told apart, so the
///    queue end is then *absent*). S is clamped to `fetchStart ... doneAt`.
/// 2. Every other date is S + a curl offset, or an engine timestamp; offsets of 0 mean
///    "not reached" and become nil, never a zero-length phase.
/// 3. Dates are finally made non-decreasing in phase order, because engine and curl clocks
///    differ by a few µs.
public enum MetricsTranslation {
    /// Which fact gave `startsingle`.
    public enum Anchor: String, Sendable, Equatable {
        case firstHeader, prereq, connecting, doneMinusTotal
    }

    public static func phaseDates(_ f: CurlTimingFacts) -> TransactionPhaseDates {
        let (s, anchor) = startSingle(f)
        let connection = connectionKind(f)
        var d = TransactionPhaseDates(fetchStart: f.fetchStart, isReusedConnection: connection == .reused,
                                      anchor: anchor)
        if anchor != .doneMinusTotal { d.queueEnd = s }
        if connection == .new || connection == .failedBeforeConnect {
            connectionDates(f, s, into: &d)
        }
        requestAndResponseDates(f, s, into: &d)
        return monotonic(d)
    }

    enum ConnectionKind { case new, reused, failedBeforeConnect }

    /// NUM_CONNECTS is 0 both on reuse and when no connect succeeded; a hop that reached the
    /// request (PREREQ ran, or a header arrived) with 0 connects reused a connection.
    static func connectionKind(_ f: CurlTimingFacts) -> ConnectionKind {
        if f.numConnects > 0 { return .new }
        return f.prereqAt != nil || f.firstHeaderAt != nil || f.pretransferMicros > 0
            ? .reused : .failedBeforeConnect
    }

    static func startSingle(_ f: CurlTimingFacts) -> (Date, Anchor) {
        let raw: Date
        let anchor: Anchor
        if let h = f.firstHeaderAt, f.starttransferMicros > 0 {
            (raw, anchor) = (h - f.starttransferMicros, .firstHeader)
        } else if let p = f.prereqAt {
            let connected = max(f.namelookupMicros, f.connectMicros, f.appconnectMicros)
            (raw, anchor) = (p - connected, .prereq)
        } else if let c = f.connectingAt {
            // A hop that failed or was cancelled while connecting: TOTAL (from curl's progress
            // start, which includes the queue) cannot tell the queue from the connect.
            (raw, anchor) = (c, .connecting)
        } else {
            (raw, anchor) = (f.doneAt - f.totalMicros, .doneMinusTotal)
        }
        let upper = max(f.fetchStart, f.doneAt)
        return (min(max(raw, f.fetchStart), upper), anchor)
    }

    /// DNS, TCP and TLS of a new connection (or of one that failed to connect).
    /// `connectEnd` is the end of the whole connection (TCP + TLS), as in URLSession.
    static func connectionDates(_ f: CurlTimingFacts, _ s: Date, into d: inout TransactionPhaseDates) {
        d.domainLookupStart = s
        guard f.namelookupMicros > 0 else { return }  // resolving failed or never finished
        let dnsEnd = s + f.namelookupMicros
        d.domainLookupEnd = dnsEnd
        d.connectStart = dnsEnd
        let tcpDone = f.connectMicros > 0 ? s + f.connectMicros : nil
        if !f.isTLS {
            d.connectEnd = tcpDone
        } else if f.hasDataConnection, f.appconnectMicros > 0 {
            // FTPS: libcurl 7.88 stamps CONNECT (and sometimes APPCONNECT) again for the data
            // connection, after the control connection's handshake and login: measured both
            // CONNECT > APPCONNECT and CONNECT 61 us before APPCONNECT. The control connection's
            // TCP end and TLS time are lost; the earlier stamp bounds the connection (TCP + TLS)
            // from above, and the TLS phase is left empty rather than made up (DECISIONS 99).
            d.connectEnd = s + (tcpDone == nil ? f.appconnectMicros : min(f.connectMicros, f.appconnectMicros))
        } else if f.appconnectMicros > 0 {
            d.secureConnectionStart = tcpDone ?? dnsEnd
            d.secureConnectionEnd = s + f.appconnectMicros
            d.connectEnd = d.secureConnectionEnd
        } else if f.numConnects > 0 {
            // TCP connected (NUM_CONNECTS counts it) but the handshake never completed. 7.88
            // reports CONNECT only when the whole chain connected (fixed in 8.0, curl#10670), so
            // the TCP end is unknown: the TLS attempt is dated from the start of connecting.
            d.secureConnectionStart = tcpDone ?? dnsEnd
        }
    }

    /// PREREQ runs at the start of MSTATE_DO; PRETRANSFER is stamped after DO issued the request
    /// head (an upload body follows during PERFORMING, hence `lastBodyByteSentAt`).
    static func requestAndResponseDates(_ f: CurlTimingFacts, _ s: Date, into d: inout TransactionPhaseDates) {
        let reachedRequest = f.prereqAt != nil || f.pretransferMicros > 0
        if reachedRequest {
            let connected = max(f.namelookupMicros, f.connectMicros, f.appconnectMicros)
            d.requestStart = f.prereqAt ?? (s + min(connected, f.pretransferMicros))
        }
        if f.pretransferMicros > 0 {
            let headEnd = s + f.pretransferMicros
            d.requestEnd = f.lastBodyByteSentAt.map { max($0, headEnd) } ?? headEnd
        }
        if let h = f.firstHeaderAt {
            d.responseStart = h
        } else if f.starttransferMicros > 0 {
            d.responseStart = s + f.starttransferMicros
        }
        if d.responseStart != nil { d.responseEnd = f.lastByteAt ?? f.doneAt }
    }

    /// Pushes every present date up to the latest present date before it, in phase order.
    static func monotonic(_ input: TransactionPhaseDates) -> TransactionPhaseDates {
        var d = input
        var floor = d.fetchStart
        func lift(_ date: inout Date?) {
            guard let v = date else { return }
            date = max(v, floor)
            floor = date!
        }
        lift(&d.queueEnd)
        lift(&d.domainLookupStart)
        lift(&d.domainLookupEnd)
        lift(&d.connectStart)
        lift(&d.secureConnectionStart)
        lift(&d.secureConnectionEnd)
        lift(&d.connectEnd)
        lift(&d.requestStart)
        // An upload body may still be going out when the response starts (a 100-continue or an
        // early error answer); request end and response start are not ordered, so each is only
        // lifted to the floor so far.
        let requestFloor = floor
        lift(&d.requestEnd)
        floor = requestFloor
        lift(&d.responseStart)
        lift(&d.responseEnd)
        return d
    }
}

extension Date {
    /// `self` moved by a count of microseconds (file-private: only curl offsets are added).
    fileprivate static func + (date: Date, micros: Int64) -> Date {
        date.addingTimeInterval(Double(micros) / 1_000_000)
    }
    fileprivate static func - (date: Date, micros: Int64) -> Date {
        date.addingTimeInterval(-Double(micros) / 1_000_000)
    }
}
