import Foundation

/// The one error type of TransferKit.
///
/// Client-side failures only: an HTTP 4xx/5xx is a response, never an error. The codes follow
/// URLSession's `URLError.Code` numbering so users of either recognise them.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int, Sendable, Equatable, Hashable, CaseIterable, Codable {
        case unknown = -1
        case cancelled = -999
        case badURL = -1000
        case timedOut = -1001
        case unsupportedURL = -1002
        case cannotFindHost = -1003
        case cannotConnectToHost = -1004
        case networkConnectionLost = -1005
        case httpTooManyRedirects = -1007
        case resourceUnavailable = -1008
        case redirectToNonExistentLocation = -1010
        case badServerResponse = -1011
        case userAuthenticationRequired = -1013
        case cannotDecodeContentData = -1016
        case requestBodyStreamExhausted = -1021
        case cannotParseResponse = -1017
        /// The body is larger than the configuration allows, or decodes to a size that makes
        /// it a decompression bomb (`TransferConfiguration.maximumContentLength`).
        case dataLengthExceedsMaximum = -1103
        case fileDoesNotExist = -1100
        case fileIsDirectory = -1101
        case noPermissionsToReadFile = -1102
        case secureConnectionFailed = -1200
        case serverCertificateUntrusted = -1202
        case clientCertificateRequired = -1206
        case cannotCreateFile = -3000
        case cannotOpenFile = -3001
        case cannotWriteToFile = -3003
        case cannotMoveFile = -3005
        case cannotDecodeResumeData = -3006
        /// The session was invalidated: it refuses new tasks.
        case sessionInvalidated = -9001
        /// The request is not allowed by the task's kind or state (e.g. resume data for a POST).
        case invalidRequest = -9002
    }

    public var code: Code
    /// A human sentence: what happened, and where that helps, what to do.
    public var message: String
    /// libcurl's `CURLcode`, when libcurl reported the failure.
    public var curlCode: Int32?
    /// libcurl's error buffer or `curl_easy_strerror` text.
    public var curlMessage: String?
    /// The URL that failed, with credentials removed.
    public var failingURL: String?
    /// Resume data for a download that failed for a resumable reason.
    public var resumeData: Data?

    public init(_ code: Code, _ message: String, curlCode: Int32? = nil, curlMessage: String? = nil,
                failingURL: String? = nil, resumeData: Data? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.curlMessage = curlMessage
        self.failingURL = failingURL
        self.resumeData = resumeData
    }

    public var description: String {
        var s = "\(code) (\(code.rawValue)): \(message)"
        if let curlCode { s += " [curl \(curlCode)\(curlMessage.map { ": \($0)" } ?? "")]" }
        return s
    }

    public static func cancelled(url: String? = nil) -> TransferError {
        TransferError(.cancelled, "cancelled", failingURL: url)
    }
}
