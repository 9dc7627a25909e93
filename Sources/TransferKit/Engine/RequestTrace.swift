import CCurl
import Foundation

/// libcurl's debug callback (CURLOPT_DEBUGFUNCTION): the request head as sent, for the
/// transaction metrics, and the verbose trace lines. Turned on per handle only when the
/// configuration asks for either: verbose mode makes libcurl format notes for every request.
///
/// What a session asked to see of its requests (the trace's receiver, whether sent heads are
/// recorded) and how the callback's text becomes trace lines and recorded headers.
struct RequestTrace: Sendable {
    /// The configuration's `trace`.
    let receiver: TransferTrace?
    /// The configuration's `recordsSentRequestHeaders`.
    let recordsSentHeaders: Bool
    let sessionID: Int

    init(configuration: TransferConfiguration, sessionID: Int) {
        receiver = configuration.trace
        recordsSentHeaders = configuration.recordsSentRequestHeaders
        self.sessionID = sessionID
    }

    func configure(_ e: EasyHandle, _ t: Transfer) throws(CurlSetupError) {
        guard recordsSentHeaders || receiver != nil else { return }
        try CurlSetupError.check(tk_easy_setopt_debug_cb(e.raw, Self.debug))
        try e.set(CURLOPT_DEBUGDATA, pointer: t.opaque)
        try e.set(CURLOPT_VERBOSE, true)
    }

    static let debug: tk_debug_callback = { _, type, data, size, ctx in
        let t = Transfer.from(ctx)
        let trace = t.engine.trace
        switch type {
        case CURLINFO_HEADER_OUT where !t.scheme.isHTTP:
            // FTP commands, one a line: traced with the password of PASS (and ACCT) masked.
            guard trace.receiver != nil else { break }
            let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) { trace.emit(.headerOut, Self.redactFTPCommand(String(line)), t) }
        case CURLINFO_HEADER_OUT:
            // A head sent in pieces is reported in pieces: parse it once it is whole, so a
            // second piece is never taken for a request line (and printed unredacted).
            t.headOut += String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
            if t.headOut.hasSuffix("\r\n\r\n") || t.headOut.hasSuffix("\n\n") {
                let head = t.headOut
                t.headOut = ""
                trace.headSent(head, t)
            }
        case CURLINFO_HEADER_IN, CURLINFO_TEXT:
            guard trace.receiver != nil else { break }
            let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
            trace.lines(type == CURLINFO_TEXT ? .info : .headerIn, text, t)
        default:
            break  // body bytes and TLS records: not traced (curl --trace territory)
        }
        return 0
    }

    /// The request head libcurl just sent for `t`: its headers replace the ones the request
    /// set in this hop's transaction record (credentials are redacted at export, as before).
    func headSent(_ head: String, _ t: Transfer) {
        let lines = head.split(whereSeparator: \.isNewline).map(String.init)
        let headers = lines.dropFirst().compactMap { line -> HTTPHeader? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPHeader(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        // A proxy's CONNECT head is not the request of this hop.
        if recordsSentHeaders, lines.first?.hasPrefix("CONNECT ") != true {
            t.task.core.withLock { c in
                guard !c.metrics.transactionMetrics.isEmpty else { return }
                c.metrics.transactionMetrics[c.metrics.transactionMetrics.count - 1].requestHeaders = headers
            }
        }
        guard receiver != nil, let requestLine = lines.first else { return }
        let redacted = Redaction.redactHeaders(headers).map { "\($0.name): \($0.value)" }
        for line in [Self.redactRequestLine(requestLine)] + redacted { emit(.headerOut, line, t) }
    }

    /// `PASS secret` → `PASS [redacted]`: an FTP command that carries a secret shows only its verb.
    static func redactFTPCommand(_ line: String) -> String {
        let verb = line.prefix { $0 != " " }.uppercased()
        return verb == "PASS" || verb == "ACCT" ? "\(verb) [redacted]" : Redaction.redactText(line)
    }

    /// `GET /x?token=abc HTTP/1.1` with the target's secrets redacted as a URL's would be.
    static func redactRequestLine(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[1].hasPrefix("/") else { return Redaction.redactText(line) }
        let target = String(Redaction.redactURL("http://h" + parts[1]).dropFirst("http://h".count))
        return "\(parts[0]) \(target) \(parts[2])"
    }

    /// libcurl's notes that carry what the head lines already show, or secrets: HTTP/2's
    /// copy of every request header (`h2h3 [authorization: …]`, `[HTTP/2] [1] [cookie: …]`)
    /// is dropped (the `>` lines show the head, redacted); cookie values and user names are
    /// masked; and any `Authorization`/`Cookie`-like name followed by a value is cut after it.
    static func safeNote(_ line: String) -> String? {
        if line.hasPrefix("h2h3 [") || line.hasPrefix("[HTTP/2] [") || line.hasPrefix("[HTTP/3] [") { return nil }
        var text = Redaction.redactText(line)
        for (pattern, template) in noteMasks {
            text = text.replacingOccurrences(of: pattern, with: template, options: [.regularExpression, .caseInsensitive])
        }
        return text
    }

    static let noteMasks: [(String, String)] = [
        (#"^((Added|Replaced) cookie [^=]*=)"[^"]*""#, "$1\"[redacted]\""),
        (#"(with user )'[^']*'"#, "$1'[redacted]'"),
        (#"((proxy-)?authorization|(set-)?cookie)(\s*[:=]\s*)\S.*"#, "$1$4[redacted]"),
    ]

    func lines(_ kind: TransferTraceLine.Kind, _ text: String, _ t: Transfer) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard var shown = kind == .info ? Self.safeNote(String(line)) : Redaction.redactText(String(line)) else { continue }
            if kind == .headerIn, let colon = shown.firstIndex(of: ":") {
                let header = HTTPHeader(String(shown[..<colon]), String(shown[shown.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
                let safe = Redaction.redactHeaders([header])[0]
                shown = "\(safe.name): \(safe.value)"
            }
            emit(kind, shown, t)
        }
    }

    func emit(_ kind: TransferTraceLine.Kind, _ text: String, _ t: Transfer) {
        receiver?.receive(TransferTraceLine(sessionID: sessionID, taskIdentifier: t.task.taskIdentifier, kind: kind, text: text))
    }
}
