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

    /// Probes every candidate at once in one ephemeral session with the run session's
    /// configuration (headers, CA, limits): one transfer thread, not one per file.
    static func complete(_ candidates: [(URL, CompletionStore.Record)], configuration: TransferConfiguration) async -> [Bool] {
        guard !candidates.isEmpty else { return [] }
        var c = configuration
        c.kind = .ephemeral
        c.cookieFiles = []
        c.httpCookieStorage = nil
        c.urlCache = nil
        let delegate = ProbeDelegate()
        // Unnumbered: the run's own sessions are still 1, 2, 3 after it.
        let session = TransferSession(unnumbered: c, delegate: delegate, name: "probe")
        defer { session.invalidateAndCancel() }
        let tasks = candidates.map { session.dataTask(with: request($0.0, $0.1)) }
        let responses: [Int: TransferResponse] = await withCheckedContinuation { cont in
            delegate.expect(tasks.count) { cont.resume(returning: $0) }
            for t in tasks { t.resume() }
        }
        return zip(tasks, candidates).map { t, item in provesComplete(responses[t.taskIdentifier], size: item.1.size) }
    }
}

/// Takes each response head (by task identifier), cancels the body, and reports once every
/// probe has completed.
final class ProbeDelegate: TransferDataDelegate, @unchecked Sendable {
    // @unchecked: mutable state is behind a lock.
    struct State {
        var remaining = 0
        var responses: [Int: TransferResponse] = [:]
        var done: (@Sendable ([Int: TransferResponse]) -> Void)?
    }
    let state = Locked(State())

    func expect(_ count: Int, then done: @escaping @Sendable ([Int: TransferResponse]) -> Void) {
        state.withLock { $0.remaining = count; $0.done = done }
    }

    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.responses[dataTask.taskIdentifier] = response }
        completionHandler(.cancel)
    }

    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        let finished = state.withLock { s -> (@Sendable ([Int: TransferResponse]) -> Void, [Int: TransferResponse])? in
            s.remaining -= 1
            guard s.remaining == 0, let done = s.done else { return nil }
            s.done = nil
            return (done, s.responses)
        }
        if let (done, responses) = finished { done(responses) }
    }
}
