import CCurl
import Foundation

/// file, ftp, ftps and data: URLs. libcurl carries all of them, so they
/// are ordinary transfers: the same sinks, progress, suspend, metrics and delegate callbacks as
/// HTTP. What differs is the response: no status line, no headers on the wire. The engine
/// makes one from what libcurl knows when the first body byte arrives (or the hop ends empty):
/// status code 0, Content-Type (the data: URL's, or from the file name), Content-Length (the
/// file's size or FTP's SIZE), Last-Modified (the file's mtime or FTP's MDTM, the validator of a
/// resumed download) and Accept-Ranges (file and FTP offsets are REST/seek). DECISIONS 95-98.
extension TransferEngine {
    /// The response of a non-HTTP hop (see the type's comment), accepted as any final response.
    func beginByteStreamResponse(_ t: Transfer) {
        if t.firstHeaderAt == nil { t.firstHeaderAt = Monotonic.now() }
        if t.tls == nil, t.scheme.isTLS { t.tls = t.easy.tlsInfo() }
        var headers = [HTTPHeader("Content-Type", t.dataSource?.dataURL.contentType ?? FileMIMEType.forPath(t.request.url.path))]
        let length = t.easy.offset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
        if length >= 0 { headers.append(HTTPHeader("Content-Length", "\(length)")) }
        if t.scheme != .data {
            headers.append(HTTPHeader("Accept-Ranges", "bytes"))
            let mtime = t.easy.offset(CURLINFO_FILETIME_T)
            if mtime > 0 { headers.append(HTTPHeader("Last-Modified", HTTPDate.format(secondsSince1970: mtime))) }
        }
        let response = TransferResponse(url: t.request.url, statusCode: 0, headers: headers, networkProtocolName: t.scheme.rawValue)
        t.response = response
        let restart = t.resumeFrom.map { t.resumeOffset > 0 && !continuesByteStream(t, $0, response) } ?? false
        acceptFinalResponse(t, response)
        if restart { t.exchange.refuseBody(restartReason: nil) }
    }

    /// A resumed file or FTP download continues only when the file's modification time is the
    /// one the partial bytes came from (FTP has no ETag; MDTM is what it offers). Otherwise it
    /// starts again from zero on a new hop without REST: never two versions spliced.
    /// False: the hop's body is refused once the response is accepted.
    private func continuesByteStream(_ t: Transfer, _ r: ResumeData, _ response: TransferResponse) -> Bool {
        guard let was = r.lastModified, was == response.value(forHTTPHeaderField: "Last-Modified") else { return false }
        t.exchange.continuesRange()
        let remaining = response.expectedContentLength
        reportResume(t, offset: t.resumeOffset, expected: remaining >= 0 ? t.resumeOffset + remaining : -1)
        return true
    }
}
