import Foundation

/// Reading the payload's fields with one precise error per problem.
enum ResumeFields {
    static func payload(_ text: String) throws(ResumeDataError) -> ResumeData {
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [])
        guard let p = parsed as? [String: Any] else { throw .malformed("the payload is not a JSON object") }
        let url = try string(p, "url")
        // Parsed here too: a forged `http://[` used to reach a force-unwrapped URL(string:).
        // Downloads that resume: http(s), and ftp(s) with REST. Never file or data: a local copy
        // gains nothing from it, and forged resume data must not read a local file (DECISIONS 98).
        guard let parsedURL = URL(string: url), let scheme = URLScheme(of: parsedURL), scheme.needsHost,
              parsedURL.host?.isEmpty == false else {
            throw .malformed("\"url\" must be an http, https, ftp or ftps URL")
        }
        guard try string(p, "method") == "GET" else { throw .notGET }
        let etag = try optionalString(p, "etag"), lastModified = try optionalString(p, "lastModified")
        guard etag?.isEmpty == false || lastModified?.isEmpty == false else { throw .noValidator }
        // Sent back in If-Range: a validator that breaks the line would add a header of its own.
        for (key, v) in [("etag", etag), ("lastModified", lastModified)] where v.map(HeaderValidation.breaksLine) == true {
            throw .malformed("\"\(key)\" is not a valid header value")
        }
        let received = try int(p, "bytesReceived"), total = try int(p, "expectedTotal")
        guard received >= 0, total >= -1, total == -1 || received <= total else {
            throw .malformed("\"bytesReceived\" \(received) does not fit \"expectedTotal\" \(total)")
        }
        return ResumeData(
            url: url, method: "GET", requestHeaders: try headers(p["headers"]), entityTag: etag,
            lastModified: lastModified, bytesReceived: received, expectedTotal: total,
            partialFilePath: try string(p, "partialFile"),
            createdAt: Date(timeIntervalSince1970: Double(try milliseconds(p, "createdAtMs")) / 1000),
            sessionKindName: try string(p, "sessionKind"),
            originalTaskIdentifier: Int(clamping: try int(p, "taskId")))
    }

    /// A time in milliseconds since 1970 that a `Date` holds and gives back as the same integer:
    /// within about 285,000 years either way (beyond, writing it again would overflow Int64).
    static func milliseconds(_ p: [String: Any], _ key: String) throws(ResumeDataError) -> Int64 {
        let ms = try int(p, key)
        guard ms > -maxMilliseconds && ms < maxMilliseconds else { throw .malformed("\"\(key)\" \(ms) is out of range") }
        return ms
    }

    static let maxMilliseconds: Int64 = 9_000_000_000_000_000

    static func string(_ p: [String: Any], _ key: String) throws(ResumeDataError) -> String {
        guard let s = p[key] as? String else { throw .malformed("\"\(key)\" must be a string") }
        return s
    }

    static func optionalString(_ p: [String: Any], _ key: String) throws(ResumeDataError) -> String? {
        guard let v = p[key], !(v is NSNull) else { return nil }
        guard let s = v as? String else { throw .malformed("\"\(key)\" must be a string or null") }
        return s
    }

    static func int(_ p: [String: Any], _ key: String) throws(ResumeDataError) -> Int64 {
        guard let i = integer(p[key]) else { throw .malformed("\"\(key)\" must be an integer") }
        return i
    }

    /// An integral JSON number (not a Bool, not a fraction), whatever type Foundation chose.
    /// On Linux every JSON number is an NSNumber and `is Bool` is true for 0 and 1, so the
    /// NSNumber's own type code decides: "c" is a JSON boolean, "d"/"f" a fraction-capable double.
    static func integer(_ v: Any?) -> Int64? {
        guard let n = v as? NSNumber else { return nil }
        switch String(cString: n.objCType) {
        case "c", "B": return nil
        case "d", "f":
            let d = n.doubleValue
            return d == d.rounded() && abs(d) < 9e15 ? Int64(d) : nil
        // An unsigned 64-bit number past Int64's range would wrap to a negative one.
        case "Q": return Int64(exactly: n.uint64Value)
        default: return n.int64Value
        }
    }

    /// Header names must be tokens and values must not break lines (no header injection).
    static func headers(_ v: Any?) throws(ResumeDataError) -> [HTTPHeader] {
        guard let v else { return [] }
        guard let list = v as? [Any] else { throw .malformed("\"headers\" must be an array") }
        var out: [HTTPHeader] = []
        for item in list {
            guard let h = item as? [String: Any], let name = h["name"] as? String, let value = h["value"] as? String
            else { throw .malformed("each header needs string \"name\" and \"value\"") }
            guard isToken(name), !HeaderValidation.breaksLine(value) else {
                throw .malformed("header \"\(name.prefix(40))\" is not a valid header line")
            }
            out.append(HTTPHeader(name, value))
        }
        return out
    }

    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { u in
            u.isASCII && u.value > 0x20 && u.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(u)
        }
    }
}
