extension TransferError.Code {
    /// A short human sentence for each code, used when no better message is at hand.
    public var summary: String {
        switch self {
        case .unknown: return "the transfer failed"
        case .cancelled: return "cancelled"
        case .badURL: return "the URL is malformed"
        case .timedOut: return "the request timed out"
        case .unsupportedURL: return "the URL's scheme is not supported (use \(URLScheme.supportedList))"
        case .cannotFindHost: return "the host name could not be resolved"
        case .cannotConnectToHost: return "could not connect to the server"
        case .networkConnectionLost: return "the network connection was lost"
        case .httpTooManyRedirects: return "too many redirects"
        case .resourceUnavailable: return "the resource is unavailable"
        case .redirectToNonExistentLocation: return "the redirect points nowhere usable"
        case .badServerResponse: return "the server's response could not be understood"
        case .userAuthenticationRequired: return "authentication is required (or the login was refused)"
        case .cannotDecodeContentData: return "the response body could not be decoded"
        case .cannotParseResponse: return "the response could not be parsed"
        case .dataLengthExceedsMaximum: return "the body is larger than the maximum allowed"
        case .fileDoesNotExist: return "the file does not exist"
        case .fileIsDirectory: return "the URL names a directory, not a file"
        case .noPermissionsToReadFile: return "the file cannot be read (permission denied)"
        case .secureConnectionFailed: return "the TLS connection failed"
        case .serverCertificateUntrusted: return "the server's certificate is not trusted"
        case .clientCertificateRequired: return "a client certificate is required"
        case .cannotCreateFile: return "the file could not be created"
        case .cannotOpenFile: return "the file could not be opened"
        case .requestBodyStreamExhausted: return "the request body stream was needed again and none was given"
        case .cannotWriteToFile: return "the file could not be written"
        case .cannotMoveFile: return "the file could not be moved"
        case .cannotDecodeResumeData: return "the resume data is not valid"
        case .sessionInvalidated: return "the session was invalidated"
        case .invalidRequest: return "the request is not valid for this task"
        }
    }
}
