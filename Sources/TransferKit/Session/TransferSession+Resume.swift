import Foundation

extension TransferSession {
    /// A download that continues from resume data. Bad resume data (truncated,
    /// corrupted, another version, a partial file that is missing, too short or outside this
    /// session's partial directory) makes the task complete with `.cannotDecodeResumeData`
    /// and a message saying which, as soon as it is resumed; nothing is written anywhere.
    public func downloadTask(withResumeData data: Data) -> TransferDownloadTask {
        makeResumedTask(data, completion: nil)
    }

    public func downloadTask(withResumeData data: Data,
                             completionHandler: @escaping @Sendable (URL?, TransferResponse?, TransferError?) -> Void)
        -> TransferDownloadTask {
        makeResumedTask(data, completion: .download(completionHandler))
    }

    /// Continues a download from resume data; the file belongs to the caller.
    public func download(resumeFrom data: Data) async throws(TransferError) -> (URL, TransferResponse) {
        try await run { done in
            self.downloadTask(withResumeData: data) { file, response, error in
                done(Self.outcome(file.flatMap(Self.keep), response, error))
            }
        }
    }

    /// Decodes and validates resume data (pure checks plus one stat of the partial file).
    public func validateResumeData(_ data: Data) throws(ResumeDataError) -> ResumeData {
        let r = try ResumeData(decoding: data)
        try r.validate(stateDirectory: confiningDirectory(for: r.partialFilePath)) { path in
            (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        }
        return r
    }

    /// The directory resume data's partial file must lie directly inside: the configured
    /// download directory for one of our hidden `.NAME.ttpart` files (any other file there,
    /// such as a finished download, is refused: resuming truncates the file), otherwise the
    /// session's partial directory.
    func confiningDirectory(for partialPath: String) -> String {
        // A background session's resume data names a partial file of the daemon's, in one of
        // this identifier's task directories (DECISIONS 131).
        if let dir = backgroundLink?.taskDirectory(of: partialPath) { return dir }
        if let dir = configuration.downloadDirectory,
           PartialFileName.isPartialName((partialPath as NSString).lastPathComponent),
           ResumeData.partialFile(partialPath, isDirectlyInside: dir) != nil {
            return dir
        }
        return engine.partialDirectory
    }

    private func makeResumedTask(_ data: Data, completion: TaskCompletion?) -> TransferDownloadTask {
        do throws(ResumeDataError) {
            let r = try validateResumeData(data)
            guard let url = URL(string: r.url) else { throw ResumeDataError.malformed("\"url\" is not a URL") }
            let request = TransferRequest(url: url, headers: r.requestHeaders)
            return register {
                TransferDownloadTask(session: self, identifier: $0, kind: .download, request: request,
                                     resumeFrom: r, completion: completion)
            }
        } catch {
            let placeholder = URL(string: "resume-data:invalid")!
            let task = register {
                TransferDownloadTask(session: self, identifier: $0, kind: .download,
                                     request: TransferRequest(url: placeholder), completion: completion)
            }
            task.core.withLock { $0.error = error.transferError }
            task.rejection = error.transferError
            return task
        }
    }
}
