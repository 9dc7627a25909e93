import Foundation

/// Everything needed to continue a download later, in this process or another.
/// The byte format is in ResumeData+Coding.swift and docs/resume-data.md.
public struct ResumeData: Sendable, Equatable {
    /// The format version this build writes and reads.
    public static let formatVersion = 1

    public var url: String
    /// Always `GET` for data that decodes; kept so a forged `POST` can be refused by name.
    public var method: String
    /// Request headers to send again, without secrets or range/conditional headers.
    public var requestHeaders: [HTTPHeader]
    public var entityTag: String?
    public var lastModified: String?
    /// The offset to continue at: bytes durably written to the partial file.
    public var bytesReceived: Int64
    /// The full size, or -1 when unknown.
    public var expectedTotal: Int64
    /// Absolute path of the partial file, directly inside the state directory.
    public var partialFilePath: String
    public var createdAt: Date
    /// `default`, `ephemeral` or `background` (SessionKind.name).
    public var sessionKindName: String
    public var originalTaskIdentifier: Int

    /// Headers never stored: secrets (they would sit in a file), and headers the resume request
    /// sets itself or that would change what a range addresses.
    public static let droppedHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "range", "if-range", "accept-encoding",
        "if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "content-length",
        "transfer-encoding", "connection", "te",
    ]

    public init(url: String, method: String = "GET", requestHeaders: [HTTPHeader] = [],
                entityTag: String?, lastModified: String?, bytesReceived: Int64,
                expectedTotal: Int64 = -1, partialFilePath: String, createdAt: Date,
                sessionKindName: String, originalTaskIdentifier: Int) {
        self.url = url
        self.method = method
        self.requestHeaders = Self.storableHeaders(requestHeaders)
        self.entityTag = entityTag.flatMap { $0.isEmpty ? nil : $0 }
        self.lastModified = lastModified.flatMap { $0.isEmpty ? nil : $0 }
        self.bytesReceived = bytesReceived
        self.expectedTotal = expectedTotal
        self.partialFilePath = partialFilePath
        self.createdAt = createdAt
        self.sessionKindName = sessionKindName
        self.originalTaskIdentifier = originalTaskIdentifier
    }

    /// `headers` without the dropped names (also secret-looking names such as `X-Api-Key`).
    public static func storableHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.filter { h in
            !droppedHeaderNames.contains(h.name.lowercased()) && !SecretNames.isSecretHeader(h.name)
        }
    }
}
