import CCurl
import Foundation

extension TransferEngine {
    /// Completes the current hop's transaction record from libcurl's facts (read now, while
    /// the handle still holds them) and the engine's own timestamps.
    func recordTransaction(_ t: Transfer, code: CURLcode, doneAt: UInt64) {
        let e = t.easy
        let dates = MetricsTranslation.phaseDates(timingFacts(t, until: doneAt))
        // A hop aborted for a restart from zero failed because of the server's answer, not
        // because of the write libcurl reports (the body callback refused its bytes).
        let failure = t.exchange.restartsFromZero ? t.exchange.restartReason
            : code == CURLE_OK ? nil : transferError(t, code: code).message
        updateTransaction(t) { m in
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
            m.isProxyConnection = ProxyConnection.isProxyConnection(proxy: configuration.proxy, remoteAddress: m.remoteAddress,
                                                                    remotePort: m.remotePort)
            m.tlsProtocolVersion = t.tls?.version
            m.tlsCipherSuite = t.tls?.cipher
            m.isTLSSessionResumed = t.tls.map { $0.resumed && !m.isReusedConnection }
            // A server the delegate trusted (a pinned exception) was not verified either.
            m.isTLSVerified = t.scheme.isTLS ? !(configuration.allowsInsecureTLS || t.usesTrustException) : nil
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
        recordTransaction(t, code: CURLE_ABORTED_BY_CALLBACK, doneAt: Monotonic.now())
        updateTransaction(t) { $0.errorDescription = error.message }
    }

    /// While a hop runs, moves its record's phase forward so the monitor's waterfall grows.
    func updateLivePhase(_ t: Transfer) {
        let phase: TransactionPhase
        if t.firstHeaderAt != nil {
            phase = .receive
        } else if t.prereqAt != nil {
            phase = t.task.upload != nil && t.hasBodyThisHop && t.uploadOffset < t.task.uploadLength
                ? .request : .wait
        } else if t.dequeuedAt != nil {
            let connectDone = t.easy.offset(CURLINFO_CONNECT_TIME_T) > 0
            let dnsDone = t.easy.offset(CURLINFO_NAMELOOKUP_TIME_T) > 0
            phase = connectDone ? .tls : (dnsDone ? .connect : .dns)
        } else {
            phase = .queued
        }
        // Once connected, the connection's phases are final: dated now, so the monitor shows
        // DNS, connect and TLS while the request runs instead of only after the hop ended.
        let connection = t.prereqAt != nil && t.liveConnection == .undated
            ? MetricsTranslation.phaseDates(timingFacts(t, until: Monotonic.now())) : nil
        if connection != nil { t.liveConnection = .dated }
        updateTransaction(t) { m in
            m.currentPhase = phase
            if let d = connection { m.applyConnection(d) }
            if let d = t.dequeuedAt { m.queueEndDate = clock.date(d) }
            if let p = t.prereqAt { m.requestStartDate = clock.date(p) }
            if let h = t.firstHeaderAt { m.responseStartDate = clock.date(h) }
            if t.statusCode > 0 { m.statusCode = t.statusCode }
            m.countOfResponseBodyBytesReceived = t.hopReceived
        }
    }

    func updateTransaction(_ t: Transfer, _ body: (inout TransactionMetrics) -> Void) {
        t.task.core.withLock { c in
            guard let i = c.metrics.transactionMetrics.indices.last else { return }
            body(&c.metrics.transactionMetrics[i])
        }
    }

    static func nonZero(_ v: Int) -> Int? { v == 0 ? nil : v }
}
