import Foundation

/// Where a new download's bytes go on disk. With `downloadDirectory` set, the file
/// is a hidden `.NAME.ttpart` beside its destination, so the owner's final move is a rename on
/// the same file system; otherwise a private name in the session's partial directory.
///
/// Holds only the configuration's `downloadDirectory`, its kind's name and the session's
/// number, so any thread may make a file (`make`); the partial directory is the caller's,
/// asked for only when a file goes there (it is created on first use).
struct DownloadFiles: Sendable {
    let downloadDirectory: String?
    /// The configuration kind's name, for crash-recovery resume data.
    let sessionKindName: String
    let sessionID: Int

    init(configuration: TransferConfiguration, sessionID: Int) {
        downloadDirectory = configuration.downloadDirectory
        sessionKindName = configuration.kind.name
        self.sessionID = sessionID
    }

    /// Creates the download file and writes the bytes held in memory so far. False (with
    /// `sinkFailure` set) when the file cannot be made or written.
    @discardableResult
    func create(for t: Transfer, partialDirectory: @autoclosure () -> String) -> Bool {
        guard t.fileDescriptor < 0, t.fileURL == nil else { return true }
        do {
            try openFile(for: t, partialDirectory: partialDirectory())
        } catch {
            t.sinkFailure = error
            return false
        }
        let held = t.smallBody
        t.smallBody = Data()
        let ok = held.withUnsafeBytes { Self.writeAll(t.fileDescriptor, $0) }
        if !ok {
            t.sinkFailure = TransferError(.cannotWriteToFile, "cannot write the download: \(String(cString: strerror(errno)))")
        }
        return ok
    }

    /// Publishes resume data for after a crash (see `crashRecoveryResumeData`) once the file
    /// exists and the response can be resumed.
    func recordCrashRecovery(_ t: Transfer, resumable: @autoclosure () -> Bool) {
        guard t.task.kind == .download, let response = t.response, let path = t.fileURL?.path,
              resumable() else { return }
        let data = ResumeData(
            url: t.request.url.absoluteString, method: t.request.httpMethod, requestHeaders: t.request.headers,
            entityTag: HeaderValidation.sendable(response.value(forHTTPHeaderField: "ETag")),
            lastModified: HeaderValidation.sendable(response.value(forHTTPHeaderField: "Last-Modified")),
            bytesReceived: 0, expectedTotal: t.task.countOfBytesExpectedToReceive, partialFilePath: path, createdAt: Date(),
            sessionKindName: sessionKindName, originalTaskIdentifier: t.task.taskIdentifier).encoded()
        t.task.core.withLock { $0.crashRecoveryResumeData = data }
    }

    func openFile(for t: Transfer, partialDirectory: @autoclosure () -> String) throws(TransferError) {
        let (fd, url) = try make(named: t.request.url, taskIdentifier: t.task.taskIdentifier, partialDirectory: partialDirectory())
        t.fileDescriptor = fd
        t.fileURL = url
    }

    /// A new, empty, private and locked download file for a body from `url`: beside its
    /// destination with `downloadDirectory`, else in the session's partial directory. Touches
    /// no transfer state (only the immutable configuration and the locked partial directory),
    /// so the delegate queue may call it too (`TransferSession.writeMemoryBody`).
    func make(named url: URL, taskIdentifier: Int, partialDirectory: @autoclosure () -> String) throws(TransferError) -> (Int32, URL) {
        if let dir = downloadDirectory { return try makeHiddenPartial(named: url, in: dir) }
        let path = partialDirectory() + "/download-\(getpid())-\(sessionID)-\(taskIdentifier)-\(UUID().uuidString).tmp"
        return try makeNew(path)
    }

    /// `.NAME.ttpart`, or `.NAME.2.ttpart`… when another task (or an earlier run's orphan,
    /// left for `clean` or a resume) holds the name. NAME comes from the URL of the hop whose
    /// body this is, i.e. after redirects.
    private func makeHiddenPartial(named url: URL, in dir: String) throws(TransferError) -> (Int32, URL) {
        let name = PartialFileName.baseName(for: url)
        for n in 1...100 {
            let path = dir + "/" + PartialFileName.partialName(name, attempt: n)
            if let fd = Self.createPrivate(path) { return (fd, Self.fileURL(path)) }
            if errno != EEXIST { throw Self.cannotCreate(path) }
        }
        return try makeNew(dir + "/" + PartialFileName.partialName(name + "." + UUID().uuidString, attempt: 1))
    }

    private func makeNew(_ path: String) throws(TransferError) -> (Int32, URL) {
        guard let fd = Self.createPrivate(path) else { throw Self.cannotCreate(path) }
        return (fd, Self.fileURL(path))
    }

    /// isDirectory given: without it the initializer stats the path (one more system call).
    private static func fileURL(_ path: String) -> URL { URL(fileURLWithPath: path, isDirectory: false) }

    /// 0600, never an existing file, never through a symlink. Locked (`flock`) while open, so
    /// `transfertop clean` can tell a live download from an orphan of a killed run.
    static func createPrivate(_ path: String) -> Int32? {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        _ = flock(fd, LOCK_EX | LOCK_NB)
        return fd
    }

    static func cannotCreate(_ path: String) -> TransferError {
        TransferError(.cannotCreateFile, "cannot create the download file \(path): \(String(cString: strerror(errno)))")
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }
}
