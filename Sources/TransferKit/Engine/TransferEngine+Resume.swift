import CCurl
import Foundation

/// Download resume: resume data out of a stopped download, and a download
/// continued from it that validates the server's answer and never splices two versions.
extension TransferEngine {
    /// The session's partial directory, made on first use (`PartialDirectory`).
    var partialDirectory: String { partials.path }

    /// Resume data for a download stopped now, or nil when it could not be continued.
    func makeResumeData(_ t: Transfer) -> Data? { resumePoint(t)?.encoded() }

    /// Where a download stopped now would continue from, or nil when it could not be.
    func resumePoint(_ t: Transfer) -> ResumeData? {
        // Stopped before the resumed request got an answer: the partial file is untouched,
        // so the resume data it was made from still holds.
        if t.response == nil, t.hop == t.resumeFromHop, let r = t.resumeFrom { return r }
        if t.task.kind == .download, t.sink == .file, t.response != nil { downloads.create(for: t, partialDirectory: partialDirectory) }
        guard t.task.kind == .download, t.fileURL != nil, let response = t.response else { return nil }
        let resumability = currentResumability(t)
        guard resumability.isResumable, let path = t.fileURL?.path else { return nil }
        if t.fileDescriptor >= 0 { fsync(t.fileDescriptor) }  // the offset must be durable
        let expected = t.task.countOfBytesExpectedToReceive
        let data = ResumeData(
            url: t.request.url.absoluteString, method: t.request.httpMethod, requestHeaders: t.request.headers,
            entityTag: HeaderValidation.sendable(response.value(forHTTPHeaderField: "ETag")),
            lastModified: HeaderValidation.sendable(response.value(forHTTPHeaderField: "Last-Modified")),
            bytesReceived: t.fileOffset, expectedTotal: expected, partialFilePath: path, createdAt: Date(),
            sessionKindName: configuration.kind.name, originalTaskIdentifier: t.task.taskIdentifier)
        return data
    }

    func currentResumability(_ t: Transfer) -> Resumability {
        guard t.scheme.needsHost else { return .notResumable(.scheme(t.scheme.rawValue)) }
        let response = t.response
        // A file or FTP body is the whole resource, as a 200 would be (its response has no status).
        let status = t.scheme.isHTTP ? response?.statusCode : response.map { _ in 200 }
        return Resumability.evaluate(
            method: t.request.httpMethod, statusCode: status, responseHeaders: response?.headers ?? [],
            observedPartialContent: t.exchange.ranges == .partialContentSeen, partialFileLength: t.fileURL == nil && t.sink != .file ? nil : t.fileOffset)
    }

    /// Opens the partial file of resume data, locked and cut to the recorded offset.
    func openPartialFile(_ t: Transfer, _ r: ResumeData) throws(TransferError) {
        t.fileDescriptor = try PartialFileLock.openForResume(r.partialFilePath, bytesReceived: r.bytesReceived)
        t.fileURL = URL(fileURLWithPath: r.partialFilePath)
        t.fileOffset = r.bytesReceived
        t.resumeOffset = r.bytesReceived
        // The bytes already in the file are not news: counted as published, the timer scan
        // before the response cannot report them as didWriteData ahead of didResumeAtOffset
        // (Apple: the offset first, then writes counted from it).
        t.progress.setPublishedReceived(r.bytesReceived)
        t.request.headers = ResumeRequestPlan(r).headers
    }

    /// Applies the resume decision to the final response of a resumed download.
    func applyResumeDecision(_ t: Transfer, _ r: ResumeData, _ response: TransferResponse) -> TransferResponse {
        switch ResumeResponseDecision.decide(r, status: response.statusCode, headers: response.headers) {
        case .continueAt(let offset, let total):
            t.exchange.continuesRange()
            reportResume(t, offset: offset, expected: total)
            return response
        case .restartFromZero(let reason) where reason.bodyIsFullRepresentation:
            truncateToZero(t)
            reportResume(t, offset: 0, expected: response.expectedContentLength)
            return response
        case .restartFromZero(let reason):
            t.exchange.refuseBody(restartReason: reason.message)
            return response
        case .alreadyComplete(let total):
            t.exchange.dropBodyAsComplete()
            reportResume(t, offset: total, expected: total)
            var headers = response.headers.filter { !["content-range", "content-length"].contains($0.name.lowercased()) }
            headers.append(HTTPHeader("Content-Length", "\(total)"))
            // The file is whole: present it as the 200 it would have been.
            return TransferResponse(url: response.url, statusCode: 200, headers: headers,
                                    networkProtocolName: response.networkProtocolName)
        case .fail:
            // Not an answer to a range (404, 5xx): an ordinary download of that response.
            truncateToZero(t)
            reportResume(t, offset: 0, expected: response.expectedContentLength)
            return response
        }
    }

    func truncateToZero(_ t: Transfer) {
        ftruncate(t.fileDescriptor, 0)
        lseek(t.fileDescriptor, 0, SEEK_SET)
        t.smallBody = Data()
        t.fileOffset = 0
        t.resumeOffset = 0
        t.progress.setPublishedReceived(0)
    }

    /// A bad 206 or an inconclusive 416: fetch the whole resource again with a plain GET.
    func restartFromZero(_ t: Transfer) {
        truncateToZero(t)
        var plain = t.request
        plain.headers.removeAll { ["range", "if-range"].contains($0.name.lowercased()) }
        followRedirect(t, plain, isRedirect: false)  // a new hop on a new handle
        reportResume(t, offset: 0, expected: -1)
    }

    func reportResume(_ t: Transfer, offset: Int64, expected: Int64) {
        t.task.core.withLock { $0.resumeOffset = offset }
        let session = t.task.session
        guard let download = t.task as? TransferDownloadTask, t.task.core.withLock({ $0.completion == nil }),
              let delegate = session.delegate as? any TransferDownloadDelegate else { return }
        session.deliver {
            session.emit(.delegateCallback("didResumeAtOffset"), task: download, detail: "\(offset)")
            delegate.session(session, downloadTask: download, didResumeAtOffset: offset, expectedTotalBytes: expected)
        }
    }
}
