/// Translates libcurl's `CURLcode` values into TransferError codes, in one pure table.
///
/// Raw numbers (from curl/curl.h, stable across libcurl versions) keep this file free of the C
/// module so it can be tested as a table.
public enum CurlErrorMapping {
    public static func code(forCurlCode curl: Int32) -> TransferError.Code {
        switch curl {
        case 1: return .unsupportedURL  // CURLE_UNSUPPORTED_PROTOCOL
        case 3: return .badURL  // CURLE_URL_MALFORMAT
        case 5, 6: return .cannotFindHost  // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST
        case 7: return .cannotConnectToHost  // CURLE_COULDNT_CONNECT
        case 8: return .badServerResponse  // CURLE_WEIRD_SERVER_REPLY
        case 9: return .noPermissionsToReadFile  // CURLE_REMOTE_ACCESS_DENIED (FTP 550 on CWD)
        case 10, 11, 13, 14, 15, 17, 19: return .badServerResponse  // the FTP server's replies
        case 12, 30: return .cannotConnectToHost  // FTP_ACCEPT_FAILED, FTP_PORT_FAILED (data connection)
        case 25: return .badServerResponse  // CURLE_UPLOAD_FAILED (the server refused STOR)
        case 36: return .cannotDecodeResumeData  // CURLE_BAD_DOWNLOAD_RESUME (offset past the end)
        case 64: return .secureConnectionFailed  // CURLE_USE_SSL_FAILED
        case 67: return .userAuthenticationRequired  // CURLE_LOGIN_DENIED (FTP 530)
        case 78: return .fileDoesNotExist  // CURLE_REMOTE_FILE_NOT_FOUND (FTP 550 on RETR/SIZE)
        case 18: return .networkConnectionLost  // CURLE_PARTIAL_FILE
        case 23: return .cannotWriteToFile  // CURLE_WRITE_ERROR
        case 26: return .cannotOpenFile  // CURLE_READ_ERROR
        case 28: return .timedOut  // CURLE_OPERATION_TIMEDOUT
        case 35: return .secureConnectionFailed  // CURLE_SSL_CONNECT_ERROR
        case 37: return .cannotOpenFile  // CURLE_FILE_COULDNT_READ_FILE
        case 42: return .cancelled  // CURLE_ABORTED_BY_CALLBACK
        case 47: return .httpTooManyRedirects  // CURLE_TOO_MANY_REDIRECTS
        case 52: return .badServerResponse  // CURLE_GOT_NOTHING
        case 55, 56: return .networkConnectionLost  // SEND_ERROR, RECV_ERROR
        case 58: return .clientCertificateRequired  // CURLE_SSL_CERTPROBLEM
        case 59: return .secureConnectionFailed  // CURLE_SSL_CIPHER
        case 60: return .serverCertificateUntrusted  // CURLE_PEER_FAILED_VERIFICATION
        case 61: return .cannotDecodeContentData  // CURLE_BAD_CONTENT_ENCODING
        case 77: return .secureConnectionFailed  // CURLE_SSL_CACERT_BADFILE
        case 83: return .serverCertificateUntrusted  // CURLE_SSL_ISSUER_ERROR
        case 90: return .serverCertificateUntrusted  // CURLE_SSL_PINNEDPUBKEYNOTMATCH
        case 91: return .serverCertificateUntrusted  // CURLE_SSL_INVALIDCERTSTATUS
        case 92: return .networkConnectionLost  // CURLE_HTTP2_STREAM
        case 16: return .networkConnectionLost  // CURLE_HTTP2 (framing layer)
        case 27: return .resourceUnavailable  // CURLE_OUT_OF_MEMORY
        default: return .unknown
        }
    }

    /// Whether a download that failed with this code may be continued from its partial file.
    public static func isResumable(_ code: TransferError.Code) -> Bool {
        switch code {
        case .networkConnectionLost, .timedOut, .cannotConnectToHost, .cannotFindHost: return true
        default: return false
        }
    }
}
