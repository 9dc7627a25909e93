import BackgroundJournal
import BackgroundWire
import Foundation
import TransferKit
import TransferTopRun

/// TransferKit's background sessions (DECISIONS 131): a download task resumed in a library
/// process becomes a submission of one URL here, run by a `Runner` like the CLI's, its file
/// placed in a directory of its own under `background/<session>/`; the library hears the
/// journal's events through `attach` and acknowledges each once its delegate has seen it.
extension BackgroundHost {
    var stateDirectory: String { (journal.path as NSString).deletingLastPathComponent }

    func library(_ request: LibraryRequest) throws -> LibraryReply {
        switch request {
        case .attach:
            throw DaemonError("attach takes a connection of its own")
        case .download:
            throw DaemonError("a download is answered before it starts (libraryDownload)")
        case .control(let name, let task, let action):
            guard let action = BackgroundAction(rawValue: action) else { throw DaemonError("unknown action '\(SafeQuote.quote(action))'") }
            _ = try control(try Self.libraryName(name), task: task, action: action)
            if action == .invalidate {
                // The library asked for it: everything of the session is told, so its events go.
                try journal.markDelivered(session: name, client: LibraryWire.client, through: try journal.lastSeq())
                try journal.pruneDeliveredEvents(keepingAfter: followerFloors)
                // Gone when empty (no partial file kept for resume data): a session made with
                // this identifier later does not start the daemon at creation.
                rmdir(LibraryWire.directory(DaemonPaths(runtimeDirectory: "", stateDirectory: stateDirectory), session: name))
            }
            return .ok
        case .acknowledge(let name, let through):
            try journal.markDelivered(session: try Self.libraryName(name), client: LibraryWire.client, through: through)
            try journal.pruneDeliveredEvents(keepingAfter: followerFloors)
            return .ok
        }
    }

    /// The identifier names a directory and a journal session: the CLI's rules for names.
    static func libraryName(_ name: String) throws -> String {
        do { return try BackgroundName.check(name, "a background session identifier") } catch { throw DaemonError(error.reason) }
    }

    /// A session name is the CLI's (`--background NAME`) or one app's (a TransferKit
    /// identifier), never both (DECISIONS 131): an app attaching to the CLI's session would
    /// take its tasks as its own, delete their files after its delegate, and end the session
    /// when it is invalidated. A submission is the library's when its files go to a task
    /// directory of the session's own `background/<name>/` (the only place the library puts them).
    func checkOwner(_ name: String, library: Bool) throws {
        let sessionDirectory = LibraryWire.directory(DaemonPaths(runtimeDirectory: "", stateDirectory: stateDirectory), session: name)
        for sub in try journal.submissions(session: name) {
            let output = (try? SubmittedOptions.decode(sub.options))?.options.outputDirectory.map { ($0 as NSString).standardizingPath }
            let isLibrary = output == sessionDirectory || output.map { ($0 as NSString).deletingLastPathComponent } == sessionDirectory
            if isLibrary == library { continue }
            throw DaemonError(library
                ? "background session '\(name)' holds transfertop --background submissions: a TransferKit background session needs an identifier of its own"
                : "background session '\(name)' is a TransferKit app's background session: give --background a name of its own")
        }
    }

    /// One download as a submission of its own, so each file lands alone in its directory
    /// (named as line mode names it) and the library's numbering is the journal's.
    func libraryDownload(_ given: String, _ download: LibraryDownload) throws -> (Int64, @Sendable () -> Void) {
        let name = try Self.libraryName(given)
        let sessionDirectory = LibraryWire.directory(DaemonPaths(runtimeDirectory: "", stateDirectory: stateDirectory), session: name)
        let directory: String
        if let resume = download.resumeDirectory {
            // A task directory of this session only: the partial file and the resume record
            // the runner continues from are there.
            guard (resume as NSString).deletingLastPathComponent == sessionDirectory,
                  !(resume as NSString).lastPathComponent.hasPrefix(".") else {
                throw DaemonError("resume data of another session or place: '\(SafeQuote.quote(resume))'")
            }
            directory = resume
        } else if download.uploadFile != nil {
            directory = sessionDirectory  // an upload places no file: no task directory to remove
        } else {
            directory = sessionDirectory + "/" + UUID().uuidString.lowercased()
        }
        try DaemonPaths.privateDirectory(directory)
        var options = Options()
        options.urls = [download.url]
        options.headers = download.headers
        options.outputDirectory = directory
        options.noTUI = true
        // The app's session time-outs, as its foreground sessions would keep them (checked with
        // the other options when submitted).
        if let seconds = download.requestTimeout { options.requestTimeout = seconds }
        if let seconds = download.resourceTimeout { options.resourceTimeout = seconds }
        if let file = download.uploadFile {
            guard file.hasPrefix("/") else { throw DaemonError("an upload file must be an absolute path, not '\(SafeQuote.quote(file))'") }
            options.upload = file
        }
        let numbers: [Int64], start: @Sendable () -> Void
        do { (numbers, start) = try submitDeferred(session: name, options: options, library: true) } catch {
            rmdir(directory)  // only when empty: a resumed one keeps its partial file
            throw error
        }
        guard numbers.count == 1 else { throw DaemonError("the download was not accepted") }
        return (numbers[0], start)
    }

    /// The library's event stream: what it has not acknowledged, then each new event.
    func libraryAttach(_ given: String, on channel: LineChannel) throws {
        let name: String
        do { name = try Self.libraryName(given) } catch {
            try channel.send(DaemonReply.failure("\(error)"))
            return
        }
        do { try checkOwner(name, library: true) } catch {
            try channel.send(DaemonReply.failure("\(error)"))
            return
        }
        try journal.ensureSession(name)
        let through = try journal.delivered(session: name, client: LibraryWire.client)
        let asOf = try journal.lastSeq()  // before the tasks: their states are at least this new
        let unseen = Set(try journal.events(session: name, after: through).compactMap(\.task))
        // Tasks the library has not seen end: unfinished, or finished after its bookmark.
        let tasks = try journal.tasks(session: name).filter { $0.state != .completed || unseen.contains($0.number) }
        try channel.send(DaemonReply.library(.attached(tasks: tasks.map(Self.libraryTask), through: through, asOf: asOf)))
        var cursor = through
        var told: [Int64: Int64] = [:]  // bytes last sent per running task
        while true {
            let seen = bell.count
            for e in try journal.events(session: name, after: cursor) {
                try channel.send(DaemonReply.library(.event(try libraryEvent(e))))
                cursor = e.seq
            }
            // Progress after the events: a completion already sent is never followed by it.
            for t in try journal.tasks(session: name) where t.state == .running && t.bytesReceived > (told[t.number] ?? 0) {
                try channel.send(DaemonReply.library(.progress(task: t.number, received: t.bytesReceived, expected: t.bytesExpected)))
                told[t.number] = t.bytesReceived
            }
            bell.wait(after: seen, until: Date().addingTimeInterval(5))
            if !channel.isOpen { return }
        }
    }

    static func libraryTask(_ t: JournalTask) -> LibraryTask {
        LibraryTask(number: t.number, url: Redaction.redactURL(t.url), state: t.state.rawValue, bytesReceived: t.bytesReceived,
                    bytesExpected: t.bytesExpected)
    }

    /// A journal event as the library reads it; a failed completion with the resume data the
    /// journal keeps for the task (written with the completion, never changed after).
    func libraryEvent(_ e: JournalEvent) throws -> LibraryEvent {
        let event = try? JSONDecoder().decode(BackgroundEvent.self, from: e.payload)
        guard let status = event?.task else { return LibraryEvent(seq: e.seq, kind: e.kind, task: nil, error: event?.note) }
        let task = LibraryTask(number: status.number, url: status.url, state: status.state, bytesReceived: status.bytesReceived,
                               bytesExpected: status.bytesExpected)
        guard status.state == JournalTaskState.completed.rawValue else { return LibraryEvent(seq: e.seq, kind: e.kind, task: task) }
        let resume = status.error == nil ? nil : try journal.task(session: e.session, number: status.number)?.resumeData
        return LibraryEvent(seq: e.seq, kind: e.kind, task: task, statusCode: status.statusCode, error: status.error, path: status.path,
                            resumeData: resume)
    }
}
