import CCurl
import Foundation

/// Request bodies from a stream (URLSession's `uploadTask(withStreamedRequest:)`):
/// the delegate gives the stream in `needNewBodyStream`, at the start and again whenever a hop
/// must send the body anew (a 307/308 redirect), as Apple's does. A stream cannot rewind, so
/// each hop reads a fresh one.
extension TransferEngine {
    /// Asks the delegate for this hop's body; the hop waits, unattached, until it comes.
    func requestBodyStream(_ t: Transfer) {
        t.exchange.awaitBodyStream()
        t.bodyPump?.stop()
        t.bodyPump = nil
        let task = t.task
        let session = task.session
        guard let delegate = session.delegate as? any TransferTaskDelegate else {
            bodyStreamArrived(t, nil)
            return
        }
        session.deliver(awaited: true) { [self] in
            session.emit(.delegateCallback("needNewBodyStream"), task: task)
            delegate.session(session, task: task, needNewBodyStream: { stream in
                _ = self.send(.bodyStream(task, stream.map(SendableStream.init)))
            })
        }
    }

    func bodyStreamArrived(_ t: Transfer, _ stream: InputStream?) {
        guard t.exchange.bodyStreamArrived() else { return }
        guard let stream else {
            finish(t, error: TransferError(.requestBodyStreamExhausted,
                                           "the delegate gave no body stream (needNewBodyStream answered nil)",
                                           failingURL: Redaction.redactURL(t.request.url.absoluteString)))
            return
        }
        let task = t.task, post = poster
        let pump = BodyStreamPump(stream: stream) { post(.bodyReady(task)) }
        t.bodyPump = pump
        pump.start()
        if t.flow.isRunning { attach(t) }  // suspended meanwhile: resume attaches it
    }

    /// The pump has bytes for a transfer paused waiting for them: unpause sending only.
    func bodyReady(_ t: Transfer) {
        perform(t.flow.bodyReady(), t)
    }
}

/// An `InputStream` handed from the delegate to the transfer thread, which only passes it to
/// the pump's own thread (the one place it is read).
struct SendableStream: @unchecked Sendable {
    let stream: InputStream
    init(_ stream: InputStream) { self.stream = stream }
}
