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
    /// Checks a non-HTTP hop before libcurl sees it: the method, a local file's existence and
    /// kind (so a missing file is `fileDoesNotExist`, not libcurl's generic code 37), a data:
    /// URL's syntax and bytes.
    func prepareScheme(_ t: Transfer) throws(TransferError) {
        t.dataSource = nil
        t.curlURL = t.request.url.absoluteString
        let scheme = t.scheme
        guard !scheme.isHTTP else { return }
        let failing = Redaction.redactURL(t.request.url.absoluteString)
        let method = t.request.httpMethod.uppercased()
        if t.task.upload != nil {
            guard scheme.isFTP else {
                throw TransferError(.invalidRequest, "a \(scheme.rawValue): URL cannot take an upload (use ftp, ftps, http or https)",
                                    failingURL: failing)
            }
        } else if method != "GET" && method != "HEAD" {
            throw TransferError(.invalidRequest, "\(SafeQuote.quote(method, limit: 16)) has no meaning for a \(scheme.rawValue): URL (use GET or HEAD)",
                                failingURL: failing)
        }
        switch scheme {
        case .file:
            try checkLocalFile(t.request.url, failing: failing)
        case .data:
            let parsed: DataURL
            do {
                parsed = try DataURL.parse(t.request.url.absoluteString)
            } catch {
                throw TransferError(.badURL, error.description, failingURL: failing)
            }
            let source = try DataURLSource(parsed)
            t.dataSource = source
            t.curlURL = source.curlURL
        default:
            break
        }
    }

    private func checkLocalFile(_ url: URL, failing: String) throws(TransferError) {
        if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
            throw TransferError(.badURL, "a file: URL names a local file (no host, or localhost), not one on '\(SafeQuote.quote(host, limit: 40))'",
                                failingURL: failing)
        }
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            switch errno {
            case ENOENT, ENOTDIR:
                throw TransferError(.fileDoesNotExist, "the file \(path) does not exist", failingURL: failing)
            case EACCES:
                throw TransferError(.noPermissionsToReadFile, "the file \(path) cannot be read: \(reason)", failingURL: failing)
            default:
                throw TransferError(.cannotOpenFile, "the file \(path) cannot be opened: \(reason)", failingURL: failing)
            }
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw TransferError(.fileIsDirectory, "\(path) is a directory, not a file", failingURL: failing)
        }
        guard access(path, R_OK) == 0 else {
            throw TransferError(.noPermissionsToReadFile, "the file \(path) cannot be read: \(String(cString: strerror(errno)))",
                                failingURL: failing)
        }
    }

    /// libcurl options of file, FTP and data: hops.
    func configureByteStream(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        // The modification time (fstat, FTP's MDTM) becomes Last-Modified: a resume's validator.
        if t.scheme != .data { try e.set(CURLOPT_FILETIME, true) }
        // A resumed download's `Range: bytes=N-` is REST N on FTP and a seek on a file.
        if let offset = Self.rangeStart(t.request.value(forHTTPHeaderField: "Range")), offset > 0 {
            try e.set(CURLOPT_RESUME_FROM_LARGE, offset: offset)
        }
        if t.scheme.isFTP {
            // Passive mode (EPSV, then PASV; never active PORT, which needs the server to
            // connect back through firewalls and NAT). The data connection goes to the control
            // connection's address whatever PASV names (libcurl's default since 7.74; said here).
            try e.set(CURLOPT_FTP_USE_EPSV, true)
            try e.set(CURLOPT_FTP_SKIP_PASV_IP, true)
        }
    }

    /// `bytes=N-` → N; anything else (a closed range, several ranges) → nil.
    static func rangeStart(_ value: String?) -> Int64? {
        guard let v = value?.trimmingCharacters(in: .whitespaces), v.lowercased().hasPrefix("bytes="), v.hasSuffix("-") else { return nil }
        return Int64(v.dropFirst(6).dropLast())
    }

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
        let restart = t.task.resumeFrom.map { t.resumeOffset > 0 && !continuesByteStream(t, $0, response) } ?? false
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
