import CCurl
import Foundation

/// How a file, ftp, ftps or data: hop is set up (DECISIONS 95-98): checked before libcurl
/// sees it, and the libcurl options it needs. The response such a hop gets is made by the
/// engine (TransferEngine+Schemes.swift).
enum ByteStreamScheme {
    /// Checks a non-HTTP hop before libcurl sees it: the method, a local file's existence and
    /// kind (so a missing file is `fileDoesNotExist`, not libcurl's generic code 37), a data:
    /// URL's syntax and bytes.
    static func prepare(_ t: Transfer) throws(TransferError) {
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

    private static func checkLocalFile(_ url: URL, failing: String) throws(TransferError) {
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
    static func configure(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        // The modification time (fstat, FTP's MDTM) becomes Last-Modified: a resume's validator.
        if t.scheme != .data { try e.set(CURLOPT_FILETIME, true) }
        // A resumed download's `Range: bytes=N-` is REST N on FTP and a seek on a file.
        if let offset = rangeStart(t.request.value(forHTTPHeaderField: "Range")), offset > 0 {
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
}
