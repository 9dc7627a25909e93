import Foundation

/// multipart/x-mixed-replace for delegate data tasks (DECISIONS 68): each part
/// reaches the delegate as `didReceive response` (the part's header fields, the outer status
/// and URL) followed by that part's `didReceive data`, as URLSession does. The outer response
/// is the task's `response` and is not offered to the delegate.
///
/// The bytes take the same path as any body (coalescing, back-pressure); the split happens on
/// the delegate queue, which is serial, so the parser needs no lock.
final class MultipartDelivery: @unchecked Sendable {
    // @unchecked: used only on the session's serial delegate queue, in byte order.
    private var parser: MultipartReplaceParser
    private let outer: TransferResponse

    init(boundary: String, outer: TransferResponse) {
        parser = MultipartReplaceParser(boundary: boundary)
        self.outer = outer
    }

    /// On the delegate queue.
    func deliver(_ chunk: Data, task: TransferDataTask, delegate: any TransferDataDelegate) {
        hand(parser.feed(chunk), task: task, delegate: delegate)
    }

    /// On the delegate queue, after the last chunk.
    func finish(task: TransferDataTask, delegate: any TransferDataDelegate) {
        hand(parser.finish(), task: task, delegate: delegate)
    }

    private func hand(_ events: [MultipartReplaceParser.Event], task: TransferDataTask, delegate: any TransferDataDelegate) {
        let session = task.session
        for event in events {
            switch event {
            case .part(let headers):
                let response = TransferResponse(url: outer.url, statusCode: outer.statusCode, headers: headers,
                                                networkProtocolName: outer.networkProtocolName)
                session.emit(.delegateCallback("didReceiveResponse"), task: task, detail: "part")
                // Parts do not wait for the answer (the stream goes on); cancel ends the task.
                delegate.session(session, dataTask: task, didReceive: response) { disposition in
                    if case .cancel = disposition { task.cancel() }
                }
            case .data(let data):
                session.emit(.delegateCallback("didReceiveData"), task: task, detail: "\(data.count) bytes")
                delegate.session(session, dataTask: task, didReceive: data)
            case .end:
                break
            }
        }
    }
}

extension MultipartDelivery {
    /// For a delegate data task whose final response is multipart/x-mixed-replace: sets up the
    /// split on `t` and returns true (no disposition is asked for the outer response).
    static func begin(_ t: Transfer, _ response: TransferResponse) -> Bool {
        guard t.sink == .delegate, t.task.kind == .data, response.statusCode / 100 == 2,
              let type = response.value(forHTTPHeaderField: "Content-Type"),
              let boundary = MultipartReplaceParser.boundary(contentType: type)
        else { return false }
        t.multipart = MultipartDelivery(boundary: boundary, outer: response)
        return true
    }

    /// Hands over the bytes the parser of `t` held back, once the body is complete (before the
    /// completion, which is queued after this on the same queue).
    static func finish(_ t: Transfer) {
        guard let multipart = t.multipart, let task = t.task as? TransferDataTask,
              let delegate = task.session.delegate as? any TransferDataDelegate else { return }
        t.multipart = nil
        task.session.deliver { multipart.finish(task: task, delegate: delegate) }
    }
}
