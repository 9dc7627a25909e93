import CCurl
import Foundation
import TransferModel

/// The errors a transfer's own facts name: a failed hop in libcurl's and the server's words,
/// and a response the body of which must not be saved.
extension Transfer {
    /// A hop that libcurl failed: its code and error text, read with what the engine saw of
    /// the head (`ServerFault`), so a malformed response is named as the server's fault.
    func failure(curlCode code: CURLcode) -> TransferError {
        let detail = easy.errorText.isEmpty ? String(cString: curl_easy_strerror(code)) : easy.errorText
        let observed = ServerFault.Observed(headComplete: exchange.sawFinalHead, informationalHeads: informationalHeads)
        let fault = scheme.isHTTP
            ? ServerFault.classify(curlCode: Int32(code.rawValue), curlText: easy.errorText, observed: observed) : nil
        let mapped = fault?.code ?? CurlErrorMapping.code(forCurlCode: Int32(code.rawValue))
        return TransferError(mapped, fault?.message ?? mapped.summary, curlCode: Int32(code.rawValue), curlMessage: detail,
                             failingURL: Redaction.redactURL(request.url.absoluteString))
    }

    /// A 206 to a download that asked for no range (neither the request nor the session's
    /// headers) is part of a file that would be saved as the whole: the body is refused and
    /// the task fails with a typed error.
    func unsolicitedPartialContent(_ response: TransferResponse, sessionHeaders: [HTTPHeader]) -> TransferError? {
        guard response.statusCode == 206, task.kind == .download,
              request.value(forHTTPHeaderField: "Range") == nil,
              sessionHeaders.first(named: "Range") == nil else { return nil }
        return TransferError(.badServerResponse,
                             "the server answered 206 Partial Content to a request without Range; the partial body was not saved",
                             failingURL: Redaction.redactURL(request.url.absoluteString))
    }
}
