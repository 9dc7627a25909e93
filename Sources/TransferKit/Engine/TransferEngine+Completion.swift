import CCurl
import Foundation

extension TransferEngine {
    /// A hop's easy handle reported DONE.
    func hopFinished(_ t: Transfer, code: CURLcode) {
        detach(t)
        if t.exchange.isProbingTrust {
            trustProbeFinished(t, code: code)
            return
        }
        let doneAt = Monotonic.now()
        t.staleConnection.hopEnded()
        // An empty file (or a resumed one with nothing left) never called the write callback.
        if code == CURLE_OK, !t.scheme.isHTTP, t.response == nil { beginByteStreamResponse(t) }
        // A body the engine refused (a framing fault, a size limit) failed for that reason, not
        // for the write error libcurl then reports.
        recorder.record(t, code: code, doneAt: doneAt, error: t.sinkFailure ?? t.failure(curlCode: code))
        if code == CURLE_OK, !t.exchange.restartsFromZero, !t.exchange.keepsBodyAside, t.sinkFailure == nil { httpCache?.complete(t) }
        // A file or FTP resource now shorter than the partial ("offset beyond file size",
        // before any MDTM comparison) has changed: start again from zero, as a changed MDTM
        // does, instead of failing with unusable resume data.
        if code == CURLE_BAD_DOWNLOAD_RESUME, !t.scheme.isHTTP, t.resumeFrom != nil, t.resumeOffset > 0 {
            t.exchange.offsetBeyondResource()
        }
        switch t.exchange.hopEnded(curlSucceeded: code == CURLE_OK, bodyFailed: t.sinkFailure != nil) {
        case .trustProbeEnded: trustProbeFinished(t, code: code)
        case .restartFromZero: restartFromZero(t)
        case .askChallenge(let space): askChallenge(t, space)
        case .proposeRedirect(let proposed): redirect(t, to: proposed)
        case .finish: finish(t, error: nil)
        case .failed:
            if code != CURLE_OK, waitForConnectivityIfAsked(t, code: code) { return }
            if code == CURLE_PEER_FAILED_VERIFICATION, handleUntrustedServer(t) { return }
            if resendAfterStaleConnection(t, code: code) { return }
            let error = t.sinkFailure ?? t.failure(curlCode: code)
            if continueAfterDeadConnection(t, error) { return }
            finishKeepingResumeData(t, error: error)
        }
    }

    /// Fails the task; a download that failed for a resumable reason (connection lost, and the
    /// engine's own request and resource time-outs) carries resume data and keeps its
    /// partial file when the server allowed ranges.
    func finishKeepingResumeData(_ t: Transfer, error: TransferError) {
        var e = error
        // A full disk (or a file-size limit) while writing an existing partial is resumable
        // too: the bytes written so far stay, and the next attempt continues after them.
        let writeFailed = e.code == .cannotWriteToFile && t.fileURL != nil
        if t.task.kind == .download, CurlErrorMapping.isResumable(e.code) || writeFailed {
            e.resumeData = makeResumeData(t)
            if writeFailed { e.message += Transfer.writeAdvice(t.writeErrno, resumable: e.resumeData != nil) }
            finish(t, error: e, keepPartialFile: e.resumeData != nil)
            return
        }
        finish(t, error: e)
    }

    // MARK: redirects: one hop at a time, under the delegate's control

    func redirect(_ t: Transfer, to proposed: TransferRequest) {
        if let limit = configuration.httpMaximumRedirects, t.redirects >= limit {
            finish(t, error: TransferError(.httpTooManyRedirects, RedirectPolicy.tooMany(limit: limit),
                                           failingURL: Redaction.redactURL(t.request.url.absoluteString)))
            return
        }
        let session = t.task.session
        guard let delegate = session.delegate as? any TransferTaskDelegate, let response = t.response else {
            followRedirect(t, proposed)
            return
        }
        t.exchange.awaitRedirectDecision()
        let task = t.task
        session.deliver(awaited: true) { [self] in
            session.emit(.delegateCallback("willPerformHTTPRedirection"), task: task,
                         detail: "\(response.statusCode) → \(Redaction.redactURL(proposed.url.absoluteString))")
            delegate.session(session, task: task, willPerformHTTPRedirection: response, newRequest: proposed) { [self] r in
                _ = send(.redirect(task, r))
            }
        }
    }

    func applyRedirectDecision(_ t: Transfer, _ request: TransferRequest?) {
        guard t.exchange.redirectAnswered() else { return }
        if let request, let problem = HeaderValidation.firstProblem(request.headers) {
            // A delegate's rewritten request gets the same header check as a new task.
            finish(t, error: TransferError(.invalidRequest, "refused to send the redirected request: \(problem)"))
        } else if let request {
            followRedirect(t, request)
        } else {
            deliverRedirectAsFinal(t)
            finish(t, error: nil)
        }
    }

    /// Starts the next hop on a new handle: a redirect, or (`isRedirect: false`) a resume
    /// restart with a plain GET.
    func followRedirect(_ t: Transfer, _ next: TransferRequest, isRedirect: Bool = true) {
        let keepsBody = next.httpMethod.uppercased() == t.request.httpMethod.uppercased() && t.hasBodyThisHop
        t.beginHop(next, easy: t.easy)
        if isRedirect { t.redirects += 1 }
        t.hasBodyThisHop = keepsBody
        do {
            t.easy = try configurator.makeEasy(for: t, steps: self)
        } catch {
            finish(t, error: error)
            return
        }
        recorder.begin(t)
        if keepsBody, case .streamed? = t.task.upload {
            requestBodyStream(t)  // a stream cannot rewind: the delegate gives a new one
        } else if t.flow.isRunning {
            attach(t)
        }
    }

    /// The delegate refused the redirect: the 3xx and its body become the task's result.
    func deliverRedirectAsFinal(_ t: Transfer) {
        guard let response = t.response else { return }
        acceptFinalResponse(t, response)
        t.exchange.deliverKeptAside()
        let body = t.redirectBody
        t.redirectBody = Data()
        body.withUnsafeBytes { _ = t.receiveBody($0) }
    }

    // MARK: finishing

    /// Ends the task: publishes its result and hands it to the state machine for delivery.
    func finish(_ t: Transfer, error: TransferError?, keepPartialFile: Bool = false) {
        detach(t)
        // Body bytes held until the delegate allows them: finish after its answer.
        guard t.exchange.mayFinish(.init(error: error, keepPartialFile: keepPartialFile)) else { return }
        transfers.removeValue(forKey: ObjectIdentifier(t.task))
        if !t.exchange.isAwaitingDisposition { flushData(t) }
        if error == nil { MultipartDelivery.finish(t) }
        publishProgress(t, now: Monotonic.now(), final: true)
        // A download held in memory (small, or no body at all) is written once, on the
        // delegate queue: file creation in a large directory was a fifth of this thread's
        // time on a list of 5,000 small files, and this thread is the run's critical path.
        var memoryBody: (data: Data, url: URL)?
        var file = t.fileURL
        let steps = DownloadStorage.ending(succeeded: error == nil, keepPartialFile: keepPartialFile, toFile: t.sink == .file,
                                           hasFile: t.fileURL != nil, descriptorOpen: t.fileDescriptor >= 0)
        for step in steps {
            switch step {
            case .writeMemoryOnce:
                memoryBody = (t.smallBody, t.request.url)
                t.smallBody = Data()
            case .createFile:
                downloads.create(for: t, partialDirectory: partialDirectory)
                file = t.fileURL
            case .handOverDescriptor where t.fileDescriptor >= 0:
                // Kept open, and so locked, until the delegate has moved the file: a second
                // process resuming the same partial must not take it between our close and
                // the rename (it would write into the finished file). Closed after delivery.
                let fd = t.fileDescriptor
                t.task.core.withLock { $0.heldFileDescriptor = fd }
                t.fileDescriptor = -1
            case .closeDescriptor where t.fileDescriptor >= 0:
                close(t.fileDescriptor)
                t.fileDescriptor = -1
            case .removeFile:
                if let f = file { unlink(f.path) }
                file = nil
            case .handOverDescriptor, .closeDescriptor:
                break  // the file could not be created
            }
        }
        let end = clock.date(Monotonic.now())
        t.task.core.withLock { c in
            c.error = error
            c.metrics.taskIntervalEnd = end
            if let i = c.metrics.transactionMetrics.indices.last, c.metrics.transactionMetrics[i].currentPhase != .done {
                c.metrics.transactionMetrics[i].currentPhase = .done
                c.metrics.transactionMetrics[i].errorDescription = error?.message
            }
            if t.sink == .collect { c.body = t.collected }
            if error == nil {
                c.downloadFile = file
                c.downloadBody = memoryBody
            }
            c.producedResumeData = error?.resumeData
        }
        t.task.apply(.finished(error))
    }
}

extension TransferTask {
    /// Completes a task that never reached (or already left) the transfer thread.
    func fail(_ error: TransferError) {
        core.withLock { $0.error = error }
        apply(.finished(error))
    }
}
