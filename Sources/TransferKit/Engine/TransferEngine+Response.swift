import CCurl
import Foundation

extension TransferEngine {
    // MARK: response head (called from the header callback)

    func responseHeadComplete(_ t: Transfer) {
        httpCache?.responseHead(t)
        hsts.record(t)
        cookies.record(t.responseHeaders, for: t.request)
        let proto = t.easy.long(CURLINFO_HTTP_VERSION) == Int(CURL_HTTP_VERSION_2_0) ? "h2" : "http/1.1"
        if proto == "h2" { distantHosts.noteRoundTrip(t) }
        var response = TransferResponse(url: t.request.url, statusCode: t.statusCode, headers: t.responseHeaders,
                                        networkProtocolName: proto)
        response.isContentDecoded = configurator.decodesContent(t) && ContentCodingPolicy.isTransformed(response.headers)
        t.response = response
        // The live record gets the head now, so a monitor shows the status and the response
        // headers while the body is still coming; the hop's end sets them again.
        let status = t.statusCode > 0 ? t.statusCode : nil, headers = t.responseHeaders
        TransactionRecorder.update(t) { m in
            m.statusCode = status
            m.responseHeaders = headers
        }
        // libcurl's own Digest answer may follow a 401 on this hop: each head starts afresh.
        t.redirectBody = Data()
        if auth.holdChallenge(t, response) { return }
        let outcome = RedirectPolicy.evaluate(
            .init(method: t.request.httpMethod, url: t.request.url, headers: t.request.headers,
                  hasBody: t.task.upload != nil && t.hasBodyThisHop),
            status: t.statusCode, location: response.value(forHTTPHeaderField: "Location"),
            trustedCredentials: configuration.redirectsKeepCredentials)
        if case .follow(let next) = outcome {
            var proposed = t.request
            proposed.url = next.url
            proposed.httpMethod = next.method
            proposed.headers = next.headers
            if !next.hasBody { proposed.httpBody = nil }
            t.exchange.keepAside(.redirect(proposed))
            return
        }
        if case .refusedScheme(let scheme) = outcome {
            t.sinkFailure = TransferError(.unsupportedURL, RedirectPolicy.refusal(scheme: scheme),
                                          failingURL: Redaction.redactURL(t.request.url.absoluteString))
        }
        acceptFinalResponse(t, response)
    }

    /// The response this task will deliver: record it and, for delegate data tasks, ask the
    /// delegate what to do while body bytes are held.
    func acceptFinalResponse(_ t: Transfer, _ original: TransferResponse) {
        var response = original
        t.exchange.accept(partialContent: response.statusCode == 206)
        if let refusal = t.unsolicitedPartialContent(response, sessionHeaders: configuration.httpAdditionalHeaders) { t.sinkFailure = refusal }
        // HTTP/1.1 frames the body by its Content-Length (h2 by its frames, checked by nghttp2).
        if t.sinkFailure == nil, response.networkProtocolName == "http/1.1", let fault = ServerFault.framingFault(response.headers) {
            t.sinkFailure = TransferError(fault.code, fault.message, failingURL: Redaction.redactURL(t.request.url.absoluteString))
        }
        var continued = false
        if let r = t.resumeFrom, t.scheme.isHTTP, t.request.value(forHTTPHeaderField: "Range") != nil {
            response = applyResumeDecision(t, r, response)
            t.response = response
            continued = true
        }
        t.checkAnnouncedSize(response)
        let resumable = t.task.kind == .download && currentResumability(t).isResumable
        let length = t.exchange.bodyIsAlreadyComplete ? 0 : response.expectedContentLength
        t.task.core.withLock { c in
            c.response = response
            c.isResumable = resumable
            c.countOfBytesExpectedToReceive = length >= 0 ? length + t.resumeOffset : -1
        }
        // A download continued from resume data has its file already: a crash from here on can
        // continue it too, with this answer's validators and length (a restart from zero gets
        // its own when its answer comes).
        if continued, resumable, !t.exchange.restartsFromZero { downloads.recordCrashRecovery(t, resumable: true) }
        let session = t.task.session
        session.emit(.delegateCallback("didReceiveResponse"), task: t.task,
                     detail: response.statusCode > 0 ? "\(response.statusCode)" : response.mimeType ?? t.scheme.rawValue)
        guard t.sink == .delegate, let dataTask = t.task as? TransferDataTask,
              let delegate = session.delegate as? any TransferDataDelegate else { return }
        if MultipartDelivery.begin(t, response) { return }
        t.exchange.askDisposition()
        session.deliver(awaited: true) { [self, response] in
            delegate.session(session, dataTask: dataTask, didReceive: response) { [self] disposition in
                _ = send(.disposition(dataTask, disposition))
            }
        }
    }

    func applyDisposition(_ t: Transfer, _ d: ResponseDisposition) {
        guard let deferred = t.exchange.dispositionAnswered() else { return }
        switch d {
        case .becomeDownload where t.sink == .delegate && t.task.kind != .download:
            becomeDownload(t)
            fallthrough
        case .allow, .becomeDownload:
            if t.sink == .file, !t.held.isEmpty {
                let held = t.held
                t.held = Data()
                held.withUnsafeBytes { _ = t.writeToFile($0) }
            }
            if !t.held.isEmpty {
                t.pending.append(t.held)
                t.held = Data()
                flushData(t)
            }
            perform(t.flow.dispositionAnswered(), t)
        case .cancel:
            t.task.apply(.cancel(byProducingResumeData: false))
            return
        }
        if let deferred { finish(t, error: deferred.error, keepPartialFile: deferred.keepPartialFile) }
    }

    /// The delegate turned a data task into a download: a new download task takes
    /// over the same transfer, the body goes to a file from here on, and the data task ends
    /// without further callbacks, as in URLSession.
    func becomeDownload(_ t: Transfer) {
        guard let dataTask = t.task as? TransferDataTask else { return }
        let session = dataTask.session
        let download = session.adoptAsDownload(dataTask)
        do {
            try downloads.openFile(for: t, partialDirectory: partialDirectory)
        } catch {
            t.sinkFailure = error
            return
        }
        transfers.removeValue(forKey: ObjectIdentifier(dataTask))
        t.task = download
        t.sink = .file
        transfers[ObjectIdentifier(download)] = t
        t.progress.resetPublished()
        session.deliver {
            session.emit(.delegateCallback("didBecomeDownloadTask"), task: dataTask, detail: "→ task \(download.taskIdentifier)")
            (session.delegate as? any TransferDataDelegate)?.session(session, dataTask: dataTask, didBecome: download)
            session.retireConverted(dataTask)
        }
    }

    // MARK: data and progress

    /// Hands coalesced body bytes to the data delegate.
    func flushData(_ t: Transfer) {
        guard !t.pending.isEmpty, let task = t.task as? TransferDataTask,
              let delegate = task.session.delegate as? any TransferDataDelegate else { return }
        let chunk = t.pending
        let counter = t.chunksInFlight
        counter.withLock { $0 += 1 }
        t.pending = Data()
        t.pending.reserveCapacity(Self.deliveryChunk + 512 * 1024)  // + one libcurl buffer: no realloc
        let session = task.session
        let multipart = t.multipart
        session.deliver(awaited: true) {  // data flows: a data delegate never waits for it
            if let multipart {
                multipart.deliver(chunk, task: task, delegate: delegate)
            } else {
                session.emit(.delegateCallback("didReceiveData"), task: task, detail: "\(chunk.count) bytes")
                delegate.session(session, dataTask: task, didReceive: chunk)
            }
            let left = counter.withLock { n -> Int in
                n -= 1
                return n
            }
            if left == Self.lowWater { _ = self.send(.drained(task)) }
        }
    }

    func drained(_ t: Transfer) {
        guard t.flow.isHeld(.backpressure), t.chunksInFlight.withLock({ $0 }) <= Self.lowWater else { return }
        t.lastActivity = Monotonic.now()
        perform(t.flow.drained(), t)
    }

    /// Publishes byte counts to the task, and coalesced progress to delegates and observers.
    /// `final`: the transfer ends, so the observers' progress event goes out now whatever the
    /// interval (the last bytes would otherwise never be reported).
    func publishProgress(_ t: Transfer, now: UInt64, final: Bool = false) {
        if !t.exchange.isAwaitingDisposition { flushData(t) }
        let totals = ProgressLedger.Bytes(received: t.totalReceived + t.resumeOffset, sent: t.hopSent)
        if let delta = t.progress.publish(totals) {
            let expected = t.task.core.withLock { c -> (Int64, Int64) in
                c.countOfBytesReceived = totals.received
                c.countOfBytesSent = totals.sent
                return (c.countOfBytesExpectedToReceive, c.countOfBytesExpectedToSend)
            }
            notifyProgress(t, delta: (delta.received, delta.sent), totals: (totals.received, totals.sent), expected: expected)
        }
        // The observers' event counts this run's bytes (`ProgressLedger`).
        guard t.progress.eventDue(now: now, interval: Self.progressInterval, final: final),
              let moved = t.progress.emit(.init(received: t.totalReceived, sent: t.hopSent), now: now) else { return }
        if !final { recorder.updateLivePhase(t) }
        t.task.session.emit(.progress(received: moved.received, sent: moved.sent), task: t.task)
    }

    private func notifyProgress(_ t: Transfer, delta: (Int64, Int64), totals: (Int64, Int64), expected: (Int64, Int64)) {
        let session = t.task.session
        let roles = session.delegateRoles
        guard t.task.core.withLock({ $0.completion == nil }), let delegate = roles.task else { return }
        let task = t.task
        if delta.1 > 0 {
            session.deliver {
                delegate.session(session, task: task, didSendBodyData: delta.1, totalBytesSent: totals.1,
                                 totalBytesExpectedToSend: expected.1)
            }
        }
        if delta.0 > 0, let download = task as? TransferDownloadTask, let dd = roles.download {
            session.deliver {
                dd.session(session, downloadTask: download, didWriteData: delta.0, totalBytesWritten: totals.0,
                           totalBytesExpectedToWrite: expected.0)
            }
        }
    }
}
