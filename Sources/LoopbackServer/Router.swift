import Digest
import Foundation
import NIOCore
import NIOHTTP1
import TransferModel

/// Maps a complete request to a ``ResponsePlan``. Pure apart from reading the file table.
enum Router {
    static func route(head: HTTPRequestHead, bodyCount: Int64, hasher: inout SHA256.Hasher?, core: ServerCore,
                      connectionID: Int, protocolName: String) -> ResponsePlan {
        var plan = routeByPath(head: head, bodyCount: bodyCount, hasher: &hasher, core: core,
                               connectionID: connectionID, protocolName: protocolName)
        // Gates apply to every route (Gates.swift): the test decides when the response goes on.
        let query = Dictionary(parseQuery(String(head.uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")),
                               uniquingKeysWith: { first, _ in first })
        plan.headGate = query["headGate"].flatMap { $0.isEmpty ? nil : $0 }
        if let gates = query["gate"], !gates.isEmpty {
            let names = gates.split(separator: ",").map(String.init)
            let offsets = (query["holdAfter"] ?? "").split(separator: ",").map { max(0, Int($0) ?? 0) }
            plan.bodyGates = names.enumerated().map { (i, name) in (name, i < offsets.count ? offsets[i] : offsets.last ?? 0) }
        }
        return plan
    }

    /// The query of a request target as a dictionary (the first value of a repeated key).
    static func query(of uri: String) -> [String: String] {
        Dictionary(parseQuery(String(uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")),
                   uniquingKeysWith: { first, _ in first })
    }

    private static func routeByPath(head: HTTPRequestHead, bodyCount: Int64, hasher: inout SHA256.Hasher?, core: ServerCore,
                                    connectionID: Int, protocolName: String) -> ResponsePlan {
        if let (refusal, target) = AuthRoutes.proxyRequest(head) {
            if let refusal { return refusal }
            var direct = head
            direct.uri = target
            return routeByPath(head: direct, bodyCount: bodyCount, hasher: &hasher, core: core,
                               connectionID: connectionID, protocolName: protocolName)
        }
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? "/"
        let queryString = parts.count > 1 ? String(parts[1]) : ""
        let queryItems = parseQuery(queryString)
        var query: [String: String] = [:]
        for (k, v) in queryItems where query[k] == nil { query[k] = v }
        func int(_ key: String) -> Int? { query[key].flatMap { Int($0) } }
        func flag(_ key: String) -> Bool { query[key] == "1" || query[key] == "true" }
        let seed = UInt8(clamping: int("seed") ?? 0)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)

        switch (segments.first ?? "", segments.count) {
        case ("bytes", 2):
            guard let n = Int(segments[1]), n >= 0 else { return notFound() }
            var plan = ResponsePlan.pattern(.ok, count: n, seed: seed)
            if flag("chunked") { plan.framing = .chunked }
            if flag("close") { plan.framing = .close }
            return plan

        case ("drip", 1):
            let size = max(0, int("size") ?? 0)
            var plan = ResponsePlan.pattern(.ok, count: size, seed: seed)
            plan.rate = max(1, int("rate") ?? 1024)
            plan.chunk = max(1, min(int("chunk") ?? max(1, plan.rate! / 20), 64 * 1024))
            return plan

        case ("delay", 1):
            var plan = ResponsePlan.pattern(.ok, count: max(0, int("size") ?? 0), seed: seed)
            plan.delayMS = max(0, int("ms") ?? 0)
            return plan

        case ("stall", 1), ("reset", 1):
            var plan = ResponsePlan.pattern(.ok, count: max(0, int("size") ?? 0), seed: seed)
            plan.cutAfter = max(0, int("after") ?? 0)
            plan.cut = segments[0] == "stall" ? .stall : .reset
            return plan

        case ("status", 2):
            guard let code = Int(segments[1]), (100...999).contains(code) else { return notFound() }
            let status = HTTPResponseStatus(statusCode: code)
            if code == 204 || code == 304 || code < 200 {
                var plan = ResponsePlan(status: status)
                plan.framing = .length(0)
                return plan
            }
            if let size = int("size") { return .pattern(status, count: max(0, size), seed: seed) }
            return .text(status, "status \(code)\n")

        case ("echo", 1):
            let digest = hasher?.finalizeHex() ?? ""
            hasher = nil
            let json = "{\"method\":\(jsonString(head.method.rawValue)),\"path\":\(jsonString(head.uri)),"
                + "\"headers\":\(jsonHeaders(head.headers)),\"bodyLength\":\(bodyCount),\"bodySHA256\":\"\(digest)\"}"
            return .text(.ok, json, type: "application/json")

        case ("cookies", 1):
            let cookie = head.headers[canonicalForm: "cookie"].joined(separator: "; ")
            var pairs: [String] = []
            for piece in cookie.split(separator: ";") {
                let kv = piece.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                if let k = kv.first, !k.isEmpty { pairs.append("\(jsonString(k)):\(jsonString(kv.count > 1 ? kv[1] : ""))") }
            }
            return .text(.ok, "{\"cookie\":\(jsonString(cookie)),\"cookies\":{\(pairs.joined(separator: ","))}}",
                         type: "application/json")

        case ("cookies", 2) where segments[1] == "set":
            var plan = ResponsePlan.text(.ok, "ok")
            for (name, value) in queryItems { plan.headers.add(name: "Set-Cookie", value: "\(name)=\(value); Path=/") }
            return plan

        case ("cookies", 2) where segments[1] == "keep":
            // Persistent cookies: each query item for a day (a store writes them to its file).
            var plan = ResponsePlan.text(.ok, "ok")
            for (name, value) in queryItems { plan.headers.add(name: "Set-Cookie", value: "\(name)=\(value); Path=/; Max-Age=86400") }
            return plan

        case ("cache", 1):
            // A cacheable response: `max-age=N` (Cache-Control: max-age=N), or
            // `cc=RAW` for any Cache-Control; `etag=X` (ETag "X"), `lm=DATE` (Last-Modified),
            // `expires=DATE`, `vary=NAME` (Vary: NAME; the body then names that request header's
            // value), else `size` pattern bytes of `seed`. A matching If-None-Match or
            // If-Modified-Since is answered 304 with no body. Tests count these requests in
            // `stats.requests` (a server-side counter).
            var headers: [(String, String)] = []
            if let cc = query["cc"] { headers.append(("Cache-Control", cc)) } else if let m = query["max-age"] { headers.append(("Cache-Control", "max-age=\(m)")) }
            let etag = query["etag"].map { "\"\($0)\"" }
            if let etag { headers.append(("ETag", etag)) }
            if let lm = query["lm"] { headers.append(("Last-Modified", lm)) }
            if let e = query["expires"] { headers.append(("Expires", e)) }
            if let v = query["vary"] { headers.append(("Vary", v)) }
            let inm = head.headers[canonicalForm: "if-none-match"].joined(separator: ",")
            let ims = head.headers["if-modified-since"].first
            if (etag != nil && inm.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag! })
                || (etag == nil && ims != nil && ims == query["lm"]) {
                var plan = ResponsePlan(status: .notModified)
                plan.framing = .length(0)
                for (n, v) in headers { plan.headers.add(name: n, value: v) }
                plan.headers.add(name: "X-Revalidated", value: "1")
                return plan
            }
            var plan: ResponsePlan
            if let v = query["vary"] {
                plan = .text(.ok, "variant \(v)=\(head.headers[canonicalForm: v].joined(separator: ","))")
            } else {
                plan = .pattern(.ok, count: max(0, min(int("size") ?? 64, 8 << 20)), seed: seed)
            }
            for (n, v) in headers { plan.headers.add(name: n, value: v) }
            return plan

        case ("redirect", 2):
            guard let n = Int(segments[1]), n >= 0 else { return notFound() }
            if n == 0 { return .text(.ok, "done") }
            let suffix = queryString.isEmpty ? "" : "?\(queryString)"
            return redirect(to: "/redirect/\(n - 1)\(suffix)", status: int("status") ?? 302)

        case ("redirect-to", 1):
            guard let url = query["url"] else { return .text(.badRequest, "missing url") }
            return redirect(to: url, status: int("status") ?? 302)

        case ("redirect-method", 1):
            return redirect(to: "/echo", status: int("status") ?? 302)

        case ("auth", 2):
            return AuthRoutes.route(segments[1], user: AuthRoutes.user, password: AuthRoutes.password, head: head) ?? notFound()

        case ("auth", 4):
            return AuthRoutes.route(segments[1], user: segments[2], password: segments[3], head: head) ?? notFound()

        case ("conn", 1):
            return .text(.ok, String(connectionID))

        case ("headers", 1):
            return .text(.ok, "{\"headers\":\(jsonHeaders(head.headers))}", type: "application/json")

        case ("files", 2):
            guard let file = core.file(segments[1]) else { return notFound() }
            return fileResponse(file, head: head, query: query, flag: flag, int: int)

        case ("gzip", 1), ("deflate", 1), ("brotli", 1), ("zstd", 1), ("encoded", 2):
            guard let coding = ContentCoding(routeName: segments.last!) else { return notFound() }
            return encodedResponse(coding, size: max(0, min(int("size") ?? 1024, 8 << 20)), seed: seed,
                                   fixture: flag("fixture"))

        case ("mixed-replace", 1):
            // multipart/x-mixed-replace (a server push): `parts` parts of `size` pattern bytes,
            // part i with seed `seed + i` and an `X-Part: i` header. `streamLast=1`: the last
            // part's bytes are the streamed body (so `gate`/`holdAfter` can hold them) and the
            // body ends without a closing delimiter, as a feed that is cut off.
            let parts = max(1, min(int("parts") ?? 3, 1000)), size = max(0, min(int("size") ?? 16, 1 << 20))
            let streamLast = flag("streamLast")
            var body: [UInt8] = Array("preamble\r\n".utf8)
            for i in 0..<parts {
                body += Array("--frame\r\nContent-Type: application/octet-stream\r\nX-Part: \(i)\r\nContent-Length: \(size)\r\n\r\n".utf8)
                if streamLast && i == parts - 1 { break }
                body += LoopbackServer.body(size: size, seed: seed &+ UInt8(truncatingIfNeeded: i))
                body += Array("\r\n".utf8)
            }
            var plan = ResponsePlan(status: .ok)
            if streamLast {
                plan.patternCount = size
                plan.patternSeed = seed &+ UInt8(truncatingIfNeeded: parts - 1)
                plan.framing = .length(body.count + size)
            } else {
                body += Array("--frame--\r\n".utf8)
                plan.framing = .length(body.count)
            }
            plan.literal = body
            plan.headers.add(name: "Content-Type", value: "multipart/x-mixed-replace; boundary=frame")
            return plan

        case ("response-headers", 1):
            // httpbin's: every query item becomes a response header (Strict-Transport-Security…).
            var plan = ResponsePlan.text(.ok, "ok")
            for (name, value) in queryItems where !name.isEmpty { plan.headers.add(name: name, value: value) }
            return plan

        case ("disposition", 1):
            // The header value exactly as the test wrote it (percent-decoded from the query).
            var plan = ResponsePlan.pattern(.ok, count: max(0, int("size") ?? 16), seed: seed)
            for (name, value) in queryItems where name == "value" {
                plan.headers.add(name: "Content-Disposition", value: value)
            }
            return plan

        default:
            return notFound()
        }
    }

    /// An encoded body, always (as httpbin's `/gzip`): the client's Accept-Encoding is not
    /// consulted, so a test can check that a client that did not ask keeps the raw bytes.
    private static func encodedResponse(_ coding: ContentCoding, size: Int, seed: UInt8, fixture: Bool) -> ResponsePlan {
        var plan = ResponsePlan(status: .ok)
        if fixture && coding == .gzip {
            plan.literal = ContentCoding.gzipFixture
            plan.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else {
            plan.literal = coding.encode(LoopbackServer.body(size: size, seed: seed))
            plan.headers.add(name: "Content-Type", value: "application/octet-stream")
        }
        plan.framing = .length(plan.literal.count)
        plan.headers.add(name: "Content-Encoding", value: coding.rawValue)
        plan.headers.add(name: "Vary", value: "Accept-Encoding")
        return plan
    }

    private static func fileResponse(_ file: FileEntry, head: HTTPRequestHead, query: [String: String],
                                     flag: (String) -> Bool, int: (String) -> Int?) -> ResponsePlan {
        let total = file.size
        let validators = !flag("noValidator")
        func decorate(_ plan: inout ResponsePlan) {
            plan.headers.add(name: "Accept-Ranges", value: "bytes")
            if validators {
                plan.headers.add(name: "ETag", value: file.etag)
                plan.headers.add(name: "Last-Modified", value: file.lastModified)
            }
            if let rate = int("rate") {
                plan.rate = max(1, rate)
                plan.chunk = max(1, min(rate / 20, 64 * 1024))
            }
            if let k = int("resetAfter") {
                plan.cutAfter = max(0, k)
                plan.cut = .reset
            }
        }
        var full = ResponsePlan.pattern(.ok, count: total, seed: file.seed)
        decorate(&full)
        guard !flag("ignoreRange"), let rangeHeader = head.headers.first(name: "range"),
              let (start, endOrNil) = parseRange(rangeHeader)
        else { return full }
        if let ifRange = head.headers.first(name: "if-range") {
            let matches = validators && (ifRange == file.etag || ifRange == file.lastModified)
            if !matches { return full }
        }
        if start >= total {
            var plan = ResponsePlan(status: .rangeNotSatisfiable)
            plan.framing = .length(0)
            plan.headers.add(name: "Content-Range", value: "bytes */\(total)")
            decorate(&plan)
            plan.cutAfter = nil
            return plan
        }
        let end = min(endOrNil ?? (total - 1), total - 1)
        guard end >= start else { return full }
        let count = end - start + 1
        let bodyStart = flag("badRange") ? 0 : start
        var plan = ResponsePlan.pattern(.partialContent, count: count, offset: bodyStart, seed: file.seed)
        plan.headers.add(name: "Content-Range", value: "bytes \(bodyStart)-\(bodyStart + count - 1)/\(total)")
        decorate(&plan)
        return plan
    }

    /// Parses `bytes=N-` or `bytes=N-M` (a single range only).
    static func parseRange(_ value: String) -> (Int, Int?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("bytes="), !trimmed.contains(",") else { return nil }
        let spec = trimmed.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2, let start = Int(spec[0].trimmingCharacters(in: .whitespaces)), start >= 0 else { return nil }
        let endText = spec[1].trimmingCharacters(in: .whitespaces)
        if endText.isEmpty { return (start, nil) }
        guard let end = Int(endText) else { return nil }
        return (start, end)
    }

    private static func redirect(to location: String, status: Int) -> ResponsePlan {
        let code = [301, 302, 303, 307, 308].contains(status) ? status : 302
        var plan = ResponsePlan.text(HTTPResponseStatus(statusCode: code), "redirect")
        plan.headers.add(name: "Location", value: location)
        return plan
    }

    private static func notFound() -> ResponsePlan { .text(.notFound, "not found") }

    static func parseQuery(_ query: String) -> [(String, String)] {
        query.split(separator: "&").compactMap { item in
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            guard let key = kv.first, !key.isEmpty else { return nil }
            return (key, kv.count > 1 ? kv[1] : "")
        }
    }

    /// A JSON string literal (TransferModel's escaping, shared with the HAR writer).
    static func jsonString(_ s: String) -> String { JSONValue.quoted(s) }

    static func jsonHeaders(_ headers: HTTPHeaders) -> String {
        "[" + headers.map { "[\(jsonString($0.name)),\(jsonString($0.value))]" }.joined(separator: ",") + "]"
    }
}
