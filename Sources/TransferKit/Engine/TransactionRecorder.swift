import CCurl
import Foundation

/// A hop's transaction record (`TransactionMetrics`, the last of the task's live metrics):
/// completed from libcurl's facts when the hop ends (read then, while the handle still holds
/// them) and the engine's own timestamps, and moved forward while the hop runs so the
/// monitor's waterfall grows. Used on the transfer thread only.
struct TransactionRecorder {
    /// The engine's clock: its monotonic timestamps become the record's dates.
    let clock: Monotonic
    /// The configuration's proxy: whether the connection went to it.
    let proxy: String?
    /// The configuration's `allowsInsecureTLS`: then no TLS hop was verified.
    let allowsInsecureTLS: Bool

    init(clock: Monotonic, configuration: TransferConfiguration) {
        self.clock = clock
        proxy = configuration.proxy
        allowsInsecureTLS = configuration.allowsInsecureTLS
    }

    /// Completes the current hop's transaction record from libcurl's facts (read now, while
    /// the handle still holds them) and the engine's own timestamps. `error`: the hop's
    /// failure as libcurl reported it (asked for only when it is the record's).
    func record(_ t: Transfer, code: CURLcode, doneAt: UInt64, error: @autoclosure () -> TransferError?) {
        let e = t.easy
        let dates = MetricsTranslation.phaseDates(timingFacts(t, until: doneAt))
        // A hop aborted for a restart from zero failed because of the server's answer, not
        // because of the write libcurl reports (the body callback refused its bytes).
        let failure = t.exchange.restartsFromZero ? t.exchange.restartReason
            : code == CURLE_OK ? nil : error()?.message
        Self.update(t) { m in
            m.apply(dates)
            m.statusCode = t.statusCode > 0 ? t.statusCode : nil
            // A non-HTTP hop had no header lines: its record keeps the made-up response's
            // (type, size, modification time) so HAR and the detail pane can show them.
            m.responseHeaders = t.scheme.isHTTP ? t.responseHeaders : t.response?.headers ?? []
            m.networkProtocolName = t.response?.networkProtocolName
            m.remoteAddress = e.string(CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
            m.remotePort = Self.nonZero(e.long(CURLINFO_PRIMARY_PORT))
            m.localAddress = e.string(CURLINFO_LOCAL_IP).flatMap { $0.isEmpty ? nil : $0 }
            m.localPort = Self.nonZero(e.long(CURLINFO_LOCAL_PORT))
            m.isProxyConnection = ProxyConnection.isProxyConnection(proxy: proxy, remoteAddress: m.remoteAddress,
                                                                    remotePort: m.remotePort)
            m.tlsProtocolVersion = t.tls?.version
            m.tlsCipherSuite = t.tls?.cipher
            m.isTLSSessionResumed = t.tls.map { $0.resumed && !m.isReusedConnection }
            // A server the delegate trusted (a pinned exception) was not verified either.
            m.isTLSVerified = t.scheme.isTLS ? !(allowsInsecureTLS || t.usesTrustException) : nil
            m.countOfRequestHeaderBytesSent = Int64(e.long(CURLINFO_REQUEST_SIZE))
            m.countOfRequestBodyBytesSent = t.hopSent
            m.countOfResponseHeaderBytesReceived = Int64(e.long(CURLINFO_HEADER_SIZE))
            m.countOfResponseBodyBytesReceived = t.exchange.keepsBodyAside ? Int64(t.redirectBody.count) : t.hopReceived
            m.resourceFetchType = .networkLoad
            m.currentPhase = .done
            m.errorDescription = failure
            if !t.scheme.needsHost {
                // A local file or a data: URL: no connection, so none reused and no ports
                // (libcurl answers -1 for the local port of the file protocol).
                m.isReusedConnection = false
                m.localPort = nil
                m.remotePort = nil
            }
        }
    }

    /// libcurl's timers for the current hop (read now) with the engine's timestamps; `until`
    /// stands for CURLMSG_DONE (or now, for a hop still running).
    private func timingFacts(_ t: Transfer, until doneAt: UInt64) -> CurlTimingFacts {
        let e = t.easy
        return CurlTimingFacts(
            namelookupMicros: e.offset(CURLINFO_NAMELOOKUP_TIME_T), connectMicros: e.offset(CURLINFO_CONNECT_TIME_T),
            appconnectMicros: e.offset(CURLINFO_APPCONNECT_TIME_T), pretransferMicros: e.offset(CURLINFO_PRETRANSFER_TIME_T),
            starttransferMicros: e.offset(CURLINFO_STARTTRANSFER_TIME_T), totalMicros: e.offset(CURLINFO_TOTAL_TIME_T),
            numConnects: e.long(CURLINFO_NUM_CONNECTS), isTLS: t.scheme.isTLS,
            fetchStart: clock.date(t.hopStart), prereqAt: t.prereqAt.map(clock.date),
            connectingAt: t.dequeuedAt.map(clock.date),
            firstHeaderAt: t.firstHeaderAt.map(clock.date), lastByteAt: t.lastByteAt.map(clock.date),
            lastBodyByteSentAt: t.lastBodySentAt.map(clock.date), doneAt: clock.date(doneAt),
            hasDataConnection: t.scheme.isFTP)
    }

    /// A hop the engine ends itself (cancel, its own time-outs) never reaches CURLMSG_DONE:
    /// its record is completed from libcurl's facts now, while the handle is still attached,
    /// so the phases it reached stay in the screen, CSV and HAR.
    func recordInterruptedHop(_ t: Transfer, _ error: TransferError) {
        guard t.flow.isInMulti else { return }
        record(t, code: CURLE_ABORTED_BY_CALLBACK, doneAt: Monotonic.now(), error: nil)
        Self.update(t) { $0.errorDescription = error.message }
    }

    /// While a hop runs, moves its record's phase forward so the monitor's waterfall grows.
    /// A live record for the hop that is starting (its request as it will be sent).
    func begin(_ t: Transfer) {
        t.headOut = ""
        let record = TransactionMetrics(method: t.request.httpMethod, url: t.request.url.absoluteString,
                                        requestHeaders: t.request.headers, fetchStartDate: clock.date(t.hopStart))
        t.task.core.withLock { c in
            c.currentRequest = t.request
            c.metrics.transactionMetrics.append(record)
            c.metrics.redirectCount = t.redirects
        }
    }

    func updateLivePhase(_ t: Transfer) {
        let phase = Self.livePhase(headerSeen: t.firstHeaderAt != nil, requestStarted: t.prereqAt != nil,
                                   sendingBody: t.task.upload != nil && t.hasBodyThisHop && t.uploadOffset < t.task.uploadLength,
                                   dequeued: t.dequeuedAt != nil,
                                   connected: t.easy.offset(CURLINFO_CONNECT_TIME_T) > 0,
                                   resolved: t.easy.offset(CURLINFO_NAMELOOKUP_TIME_T) > 0)
        // Once connected, the connection's phases are final: dated now, so the monitor shows
        // DNS, connect and TLS while the request runs instead of only after the hop ended.
        let connection = t.prereqAt != nil && t.liveConnection == .undated
            ? MetricsTranslation.phaseDates(timingFacts(t, until: Monotonic.now())) : nil
        if connection != nil { t.liveConnection = .dated }
        Self.update(t) { m in
            m.currentPhase = phase
            if let d = connection { m.applyConnection(d) }
            if let d = t.dequeuedAt { m.queueEndDate = clock.date(d) }
            if let p = t.prereqAt { m.requestStartDate = clock.date(p) }
            if let h = t.firstHeaderAt { m.responseStartDate = clock.date(h) }
            if t.statusCode > 0 { m.statusCode = t.statusCode }
            m.countOfResponseBodyBytesReceived = t.hopReceived
        }
    }

    /// The phase of a running hop from what it has reached, latest first: the response head,
    /// the request (its body still being sent, or waiting for the answer), the connection
    /// (TLS once connected, connect once resolved, else DNS), or the engine's queue.
    /// The libcurl facts are read only when the answer depends on them.
    static func livePhase(headerSeen: Bool, requestStarted: Bool, sendingBody: @autoclosure () -> Bool, dequeued: Bool,
                          connected: @autoclosure () -> Bool, resolved: @autoclosure () -> Bool) -> TransactionPhase {
        if headerSeen { return .receive }
        if requestStarted { return sendingBody() ? .request : .wait }
        if dequeued { return connected() ? .tls : (resolved() ? .connect : .dns) }
        return .queued
    }

    /// Changes the task's current transaction record (the last one) under the task's lock.
    static func update(_ t: Transfer, _ body: (inout TransactionMetrics) -> Void) {
        t.task.core.withLock { c in
            guard let i = c.metrics.transactionMetrics.indices.last else { return }
            body(&c.metrics.transactionMetrics[i])
        }
    }

    static func nonZero(_ v: Int) -> Int? { v == 0 ? nil : v }
}
