import Foundation
import TransferKit

/// `transferbench background IDENTIFIER [--header 'Name: value'] [--data] [--invalidate] [--resume-restored] [--progress]
///     [--signal-invalidates] [--upload FILE] [--save-resume FILE] [--resume-from FILE]
///     [--request-timeout SECONDS] [URL...]`
///
/// A library process of a background session, for the tests that kill it: it makes
/// the session (re-attaching to what the daemon has), prints `restored N` (the tasks the daemon
/// gave it back: unfinished, or finished since the last process heard), resumes a download
/// task per URL (a data task with `--data`), prints each delegate call on a line of its own as
/// it happens, and exits once every task it knows of has completed and its acknowledgements
/// are sent (`--invalidate`: after invalidating the session). `--resume-restored` resumes the
/// restored tasks (a suspended one continues); SIGUSR1 cancels every download producing resume
/// data (`ready` says the handler is in place); `--progress` prints *didWriteData*;
/// `--signal-invalidates`: SIGUSR1 calls `invalidateAndCancel()` instead; `--upload FILE`
/// makes each URL a PUT of FILE (`uploadTask(with:fromFile:)`);
/// `--save-resume FILE` writes a failed download's resume data to FILE, `--resume-from FILE`
/// makes a download task from such a file; `--request-timeout` sets the session's
/// `timeoutIntervalForRequest`, which the daemon's transfer keeps.
///
///   restored N unfinished M
///   ready
///   resumed URL
///   finished URL sha256=HEX bytes=N        (didFinishDownloadingTo; the file is not moved)
///   complete URL error=CODE|nil resume=N   (didCompleteWithError; N bytes of resume data)
///   progress TOTAL of EXPECTED (+N)        (didWriteData, with --progress)
///   resumeData N                           (cancel(byProducingResumeData:)'s handler)
///   invalid                                (didBecomeInvalidWithError)
///   done
enum BackgroundRun {
    final class Printer: NSObject, TransferDownloadDelegate, @unchecked Sendable {
        let completed = DispatchSemaphore(value: 0)
        let invalid = DispatchSemaphore(value: 0)
        var printsProgress = false
        /// `--save-resume FILE`: a failed download's resume data goes there.
        var saveResume: String?

        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                     totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
            if printsProgress { say("progress \(totalBytesWritten) of \(totalBytesExpectedToWrite) (+\(bytesWritten))") }
        }

        func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
            let data = FileManager.default.contents(atPath: location.path) ?? Data()
            say("finished \(downloadTask.originalRequest.url.absoluteString) sha256=\(SHA256.hex(data)) bytes=\(data.count)")
        }

        func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
            say("complete \(task.originalRequest.url.absoluteString) error=\(error.map { "\($0.code)" } ?? "nil") resume=\(error?.resumeData?.count ?? 0)"
                + (error.map { " message=\($0.message)" } ?? ""))
            if let saveResume, let data = error?.resumeData { _ = FileManager.default.createFile(atPath: saveResume, contents: data) }
            completed.signal()
        }

        func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {
            say("invalid")
            invalid.signal()
        }
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func run(_ arguments: [String]) -> Never {
        guard let identifier = arguments.first else { usage() }
        var headers: [HTTPHeader] = []
        var urls: [URL] = []
        let printer = Printer()
        var data = false, invalidate = false, resumeRestored = false
        var resumeFrom: [Data] = []
        var signalInvalidates = false
        var upload: URL?
        var requestTimeout: TimeInterval?
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {
            switch word {
            case "--header":
                guard let h = rest.popFirst(), let colon = h.firstIndex(of: ":") else { usage() }
                headers.append(HTTPHeader(String(h[..<colon]), h[h.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            case "--data": data = true
            case "--invalidate": invalidate = true
            case "--resume-restored": resumeRestored = true
            case "--progress": printer.printsProgress = true
            case "--signal-invalidates": signalInvalidates = true
            case "--upload":
                guard let file = rest.popFirst() else { usage() }
                upload = URL(fileURLWithPath: file)
            case "--request-timeout":
                guard let v = rest.popFirst().flatMap(TimeInterval.init), v > 0, v.isFinite else { usage() }
                requestTimeout = v
            case "--save-resume":
                guard let file = rest.popFirst() else { usage() }
                printer.saveResume = file
            case "--resume-from":
                guard let file = rest.popFirst(), let data = FileManager.default.contents(atPath: file) else { usage() }
                resumeFrom.append(data)
            default:
                guard let u = URL(string: word) else { usage() }
                urls.append(u)
            }
        }
        // Held until `restored` is printed: a restored task's completion may come at once.
        let delegateQueue = DispatchQueue(label: "transferbench.background.delegate")
        delegateQueue.suspend()
        var configuration = TransferConfiguration.background(withIdentifier: identifier)
        if let requestTimeout { configuration.timeoutIntervalForRequest = requestTimeout }
        let session = TransferSession(configuration: configuration, delegate: printer,
                                      delegateQueue: delegateQueue)
        // Every task held now was restored; `allTasks` lists those not finished yet.
        let restored = session.heldTasks.count
        say("restored \(restored) unfinished \(session.allTasks.count)")
        if resumeRestored { for task in session.heldTasks { task.resume() } }
        // SIGUSR1: every download is cancelled producing resume data (the library's own control).
        signal(SIGUSR1, SIG_IGN)
        let cancel = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        cancel.setEventHandler {
            if signalInvalidates { return session.invalidateAndCancel() }
            for case let download as TransferDownloadTask in session.allTasks {
                download.cancel(byProducingResumeData: { data in say("resumeData \(data?.count ?? 0)") })
            }
        }
        cancel.resume()
        say("ready")
        delegateQueue.resume()
        for url in urls {
            let request = TransferRequest(url: url, headers: headers)
            let task: TransferTask
            if let upload {
                var put = request
                put.httpMethod = "PUT"
                task = session.uploadTask(with: put, fromFile: upload)
            } else {
                task = data ? session.dataTask(with: request) : session.downloadTask(with: request)
            }
            // Said first: a quick download's completion, on the delegate queue, must not come
            // out before it.
            say("resumed \(url.absoluteString)")
            task.resume()
        }
        for resumeData in resumeFrom {
            let task = session.downloadTask(withResumeData: resumeData)
            say("resumed \(task.originalRequest.url.absoluteString)")
            task.resume()
        }
        for _ in 0..<(restored + urls.count + resumeFrom.count) { printer.completed.wait() }
        // The acknowledgements are queued on the delegate queue behind the delegate calls.
        session.delegateQueue.sync {}
        if invalidate {
            session.finishTasksAndInvalidate()
            printer.invalid.wait()
        }
        say("done")
        exit(0)
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: transferbench background IDENTIFIER [--header 'Name: value'] [--data] [--invalidate] [--resume-restored] [--progress] [--signal-invalidates] [--upload FILE] [--save-resume FILE] [--resume-from FILE] [--request-timeout SECONDS] [URL...]\n".utf8))
        exit(2)
    }
}
