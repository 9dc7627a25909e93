import Foundation

/// The URL schemes TransferKit fetches, and what each implies for the engine,
/// the CLI's checks and the exports. http and https speak HTTP (status, headers,
/// redirects); the others deliver a body with no status code.
public enum URLScheme: String, Sendable, CaseIterable {
    case http, https, ftp, ftps, file, data

    public init?(of url: URL) {
        guard let s = url.scheme?.lowercased() else { return nil }
        self.init(rawValue: s)
    }

    /// The response has a status line and headers (and may redirect).
    public var isHTTP: Bool { self == .http || self == .https }
    /// The connection is TLS from the start (ftps:// is implicit FTPS, port 990).
    public var isTLS: Bool { self == .https || self == .ftps }
    public var isFTP: Bool { self == .ftp || self == .ftps }
    /// A URL of this scheme names a server.
    public var needsHost: Bool { self != .file && self != .data }
    /// The libcurl protocol that carries it (`CURLOPT_PROTOCOLS_STR`): a `data:` URL's bytes
    /// are decoded here and read through libcurl's file protocol (DECISIONS 96).
    public var curlProtocol: String { self == .data ? "file" : rawValue }

    /// The schemes as a user reads them in an error message.
    public static let supportedList = "http, https, ftp, ftps, file or data"
}
