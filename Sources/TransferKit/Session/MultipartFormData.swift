import Foundation

/// A `multipart/form-data` body, built part by part and sent with
/// `TransferSession.uploadTask(with:fromMultipart:)`. File parts are streamed from
/// disk when the request is sent, never read into memory; their size is taken when they are
/// appended, so the body's `Content-Length` is known up front.
public struct MultipartFormData: Sendable {
    public private(set) var parts: [MultipartLayout.Part] = []
    public let boundary: String

    public init(boundary: String = MultipartLayout.randomBoundary()) {
        self.boundary = boundary
    }

    /// A plain field (`-F name=value`).
    public mutating func append(_ value: String, name: String) {
        parts.append(.init(name: name, content: .bytes(Data(value.utf8))))
    }

    /// Bytes as a field, or as a file when `filename` is given.
    public mutating func append(_ data: Data, name: String, filename: String? = nil, contentType: String? = nil) {
        parts.append(.init(name: name, filename: filename, contentType: contentType, content: .bytes(data)))
    }

    /// A file streamed from disk (`-F name=@path`); `filename` defaults to the path's last
    /// component, `contentType` to a guess from the filename's extension. Throws when it is
    /// not a readable regular file.
    public mutating func append(fileAt url: URL, name: String, filename: String? = nil,
                                contentType: String? = nil) throws(TransferError) {
        let length = try Self.checkedLength(url.path)
        parts.append(.init(name: name, filename: filename ?? url.lastPathComponent, contentType: contentType,
                           content: .file(path: url.path, length: length)))
    }

    /// A file's content as a plain field, without a filename (`-F name=<path`), streamed too.
    public mutating func append(contentsOfFileAt url: URL, name: String, contentType: String? = nil) throws(TransferError) {
        let length = try Self.checkedLength(url.path)
        parts.append(.init(name: name, contentType: contentType, content: .file(path: url.path, length: length)))
    }

    private static func checkedLength(_ path: String) throws(TransferError) -> Int64 {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw TransferError(.cannotOpenFile, "cannot read the form file \(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw TransferError(.cannotOpenFile, "the form file \(path) is not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw TransferError(.cannotOpenFile, "cannot read the form file \(path): \(String(cString: strerror(errno)))")
        }
        return Int64(st.st_size)
    }

    /// The body's layout on the wire.
    public var layout: MultipartLayout { MultipartLayout(parts: parts, boundary: boundary) }
}

extension TransferSession {
    /// An upload of a form (POST unless the request says otherwise), with the form's
    /// `Content-Type` unless the request has one.
    public func uploadTask(with request: TransferRequest, fromMultipart form: MultipartFormData) -> TransferUploadTask {
        uploadTask(with: Self.formRequest(request, form.layout), multipart: form.layout)
    }

    public func uploadTask(with request: TransferRequest, fromMultipart form: MultipartFormData,
                           completionHandler: @escaping @Sendable (Data?, TransferResponse?, TransferError?) -> Void)
        -> TransferUploadTask {
        uploadTask(with: Self.formRequest(request, form.layout), multipart: form.layout, completionHandler: completionHandler)
    }

    static func formRequest(_ request: TransferRequest, _ layout: MultipartLayout) -> TransferRequest {
        var r = request
        if r.httpMethod.uppercased() == "GET" { r.httpMethod = "POST" }
        if r.headers.first(named: "Content-Type") == nil { r.setValue(layout.contentType, forHTTPHeaderField: "Content-Type") }
        return r
    }
}
