import Foundation
import TransferKit

/// Asks the server whether a file placed by an earlier run is still the whole current
/// version, with the request a resume would send for the byte after its end:
/// `Range: bytes=SIZE-` and `If-Range: <validator>`. `416` with `Content-Range: bytes */SIZE`
/// means "same version, nothing more": already complete. Anything else (a 200 for a changed
/// validator, a different size) means download; the probe is cancelled at its response head
/// so no body is read.
enum CompletionProbe {
    static func request(_ url: URL, _ record: CompletionStore.Record) -> TransferRequest {
        var headers = [HTTPHeader("Range", "bytes=\(record.size)-")]
        if let v = record.entityTag ?? record.lastModified { headers.append(HTTPHeader("If-Range", v)) }
        return TransferRequest(url: url, headers: headers)
    }

    /// Pure: does this response prove the file complete?
    static func provesComplete(_ response: TransferResponse?, size: Int64) -> Bool {
        guard let response, response.statusCode == 416,
              let range = response.value(forHTTPHeaderField: "Content-Range") else { return false }
        return range.trimmingCharacters(in: .whitespaces) == "bytes */\(size)"
    }

    static func isComplete(_ url: URL, _ record: CompletionStore.Record, configuration: TransferConfiguration) async -> Bool {
        var c = configuration
        c.kind = .ephemeral
        let delegate = ProbeDelegate()
        let session = TransferSession(configuration: c, delegate: delegate, name: "probe")
        defer { session.invalidateAndCancel() }
        let response: TransferResponse? = await withCheckedContinuation { cont in
            delegate.done.withLock { $0 = { cont.resume(returning: $0) } }
            session.dataTask(with: request(url, record)).resume()
        }
        return provesComplete(response, size: record.size)
    }
}

/// Takes the response head, cancels the body, reports once.
final class ProbeDelegate: TransferDataDelegate, @unchecked Sendable {
    // @unchecked: mutable state is behind locks.
    let done = Locked<(@Sendable (TransferResponse?) -> Void)?>(nil)
    let response = Locked<TransferResponse?>(nil)

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        self.response.withLock { $0 = response }
        completionHandler(.cancel)
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        let body = done.withLock { d in defer { d = nil }; return d }
        body?(response.withLock { $0 })
    }
}
