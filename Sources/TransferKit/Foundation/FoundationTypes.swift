import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Foundation's request, response and error types for code written against URLSession.
// Only this directory imports FoundationNetworking: TransferKit's own types stay
// usable without it.

/// Apple's user-info key for a failed download's resume data (Darwin's Foundation defines it;
/// swift-corelibs-foundation does not).
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

extension URLError {
    /// Darwin's accessor for the resume data of a failed download (absent on Linux).
    public var downloadTaskResumeData: Data? { userInfo[NSURLSessionDownloadTaskResumeData] as? Data }
}

extension TransferConfiguration {
    /// What TransferKit takes from a `URLSessionConfiguration` (the settings
    /// `TransferURLSession(configuration:)` reads), for a `TransferSession`.
    public init(_ configuration: URLSessionConfiguration) {
        self = TransferURLSession.transferConfiguration(configuration)
    }
}

extension TransferRequest {
    /// A request from Foundation's: URL, method, header fields, body (a body stream is read
    /// into memory), and the timeout when it differs from URLRequest's default of 60 s (the
    /// session's `timeoutIntervalForRequest` applies otherwise, as on Apple's platforms),
    /// `httpShouldHandleCookies`, `mainDocumentURL`, and `cachePolicy` (the four TransferKit knows;
    /// the two others become useProtocolCachePolicy and reloadIgnoringLocalCacheData).
    public init(_ request: URLRequest) throws(TransferError) {
        guard let url = request.url else { throw TransferError(.badURL, "the URLRequest has no URL") }
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        var body = request.httpBody
        if body == nil, let stream = request.httpBodyStream { body = Self.read(stream) }
        self.init(url: url, httpMethod: request.httpMethod ?? "GET", headers: fields.map { HTTPHeader($0.key, $0.value) },
                  httpBody: body, timeoutInterval: request.timeoutInterval == 60 ? nil : request.timeoutInterval)
        httpShouldHandleCookies = request.httpShouldHandleCookies
        mainDocumentURL = request.mainDocumentURL
        cachePolicy = Self.cachePolicy(request.cachePolicy)
    }

    /// nil for useProtocolCachePolicy (URLRequest's default): the session's policy applies.
    static func cachePolicy(_ p: URLRequest.CachePolicy) -> RequestCachePolicy? {
        switch p {
        case .returnCacheDataElseLoad: return .returnCacheDataElseLoad
        case .returnCacheDataDontLoad: return .returnCacheDataDontLoad
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData, .reloadRevalidatingCacheData:
            return .reloadIgnoringLocalCacheData
        default: return nil
        }
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        stream.open()
        defer { stream.close() }
        while true {
            let n = stream.read(&buffer, maxLength: buffer.count)
            if n <= 0 { break }
            data.append(buffer, count: n)
        }
        return data
    }

    /// The request as Foundation's type.
    public var urlRequest: URLRequest {
        var r = URLRequest(url: url)
        r.httpMethod = httpMethod
        for h in headers { r.addValue(h.value, forHTTPHeaderField: h.name) }
        r.httpBody = httpBody
        if let timeoutInterval { r.timeoutInterval = timeoutInterval }
        r.httpShouldHandleCookies = httpShouldHandleCookies
        r.mainDocumentURL = mainDocumentURL
        switch cachePolicy {
        case .reloadIgnoringLocalCacheData?: r.cachePolicy = .reloadIgnoringLocalCacheData
        case .returnCacheDataElseLoad?: r.cachePolicy = .returnCacheDataElseLoad
        case .returnCacheDataDontLoad?: r.cachePolicy = .returnCacheDataDontLoad
        default: break
        }
        return r
    }
}

/// Foundation's `HTTPURLResponse` with TransferKit's answers where they are better informed:
/// `expectedContentLength` is -1 for a decoded body, and `suggestedFilename` follows RFC 6266
/// and the file-name safety rules (corelibs turns `../../x` into `.._.._x`).
final class TransferHTTPURLResponse: HTTPURLResponse, @unchecked Sendable {
    // @unchecked: immutable after init, like its superclass.
    private var transferResponse: TransferResponse?

    convenience init?(_ response: TransferResponse) {
        var fields: [String: String] = [:]
        var order: [String] = []
        for h in response.headers {
            // Repeated fields are joined with ", " under the first spelling (RFC 9110 §5.3).
            if let key = order.first(where: { $0.caseInsensitiveCompare(h.name) == .orderedSame }) {
                fields[key]! += ", " + h.value
            } else {
                order.append(h.name)
                fields[h.name] = h.value
            }
        }
        let version = response.networkProtocolName == "h2" ? "HTTP/2" : "HTTP/1.1"
        self.init(url: response.url, statusCode: response.statusCode, httpVersion: version, headerFields: fields)
        transferResponse = response
    }

    override var expectedContentLength: Int64 { transferResponse?.expectedContentLength ?? super.expectedContentLength }
    override var suggestedFilename: String? { transferResponse?.suggestedFilename ?? super.suggestedFilename }
}

extension TransferResponse {
    /// The response as Foundation's `HTTPURLResponse` (status, every header field, mimeType,
    /// expectedContentLength, textEncodingName, suggestedFilename).
    public var httpURLResponse: HTTPURLResponse {
        TransferHTTPURLResponse(self) ?? HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: nil, headerFields: nil)!
    }

    /// The response as URLSession hands it over: an `HTTPURLResponse` for http and https, a
    /// plain `URLResponse` (mimeType, expectedContentLength, textEncodingName) for file, ftp and
    /// data: URLs, which have no status code (DECISIONS 97).
    public var urlResponse: URLResponse {
        guard !hasStatusCode else { return httpURLResponse }
        return URLResponse(url: url, mimeType: mimeType, expectedContentLength: Int(expectedContentLength),
                           textEncodingName: textEncodingName)
    }
}

extension TransferError {
    /// The error as Foundation's `URLError`: the same code (TransferKit numbers as Apple), the
    /// message as the localized description, the failing URL under
    /// `NSURLErrorFailingURLErrorKey` and `NSURLErrorFailingURLStringErrorKey`, resume data
    /// under `NSURLSessionDownloadTaskResumeData`, and TransferKit's own error under
    /// `NSUnderlyingErrorKey`. The two codes Apple lacks (-9001 session invalidated, -9002
    /// invalid request) become `.unknown`, unusable resume data `.unsupportedURL` (the
    /// underlying error keeps TransferKit's code).
    public var urlError: URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, NSUnderlyingErrorKey: self]
        if let failingURL {
            // The deprecated NSURLErrorFailingURLStringErrorKey's value: Foundation's own
            // errors still carry it, and code written for them reads it.
            info["NSErrorFailingURLStringKey"] = failingURL
            if let u = URL(string: failingURL) { info[NSURLErrorFailingURLErrorKey] = u }
        }
        if let resumeData { info[NSURLSessionDownloadTaskResumeData] = resumeData }
        return URLError(foundationCode, userInfo: info)
    }

    /// Foundation's code for this error. Resume data that cannot be used is `.unsupportedURL`,
    /// as Foundation answers `downloadTask(withResumeData:)` with data it cannot read:
    /// TransferKit's -3006 is Apple's `downloadDecodingFailedMidStream`, which means otherwise.
    var foundationCode: URLError.Code {
        if code == .cannotDecodeResumeData { return .unsupportedURL }
        return URLError.Code(rawValue: code.rawValue) ?? .unknown
    }
}
