/// Where a download's body is stored, decided as values: the first bytes wait in memory
/// until they outgrow `memoryLimit` (then the file is created and they are written), and a
/// body that never did is written once when the task ends (on the delegate queue, off the
/// transfer thread). At the end the file is handed over, kept for resume data, or removed.
/// Pure: the engine creates, writes, closes and removes (TransferCallbacks.swift,
/// TransferEngine+Completion.swift).
enum DownloadStorage {
    /// A download's first bytes stay in memory up to this many.
    static let memoryLimit = 64 * 1024

    enum Store: Equatable {
        /// Append to the bytes held in memory.
        case hold
        /// Create the file, write what memory holds, then these bytes.
        case createFileThenWrite
        case write
    }

    /// Where `count` more bytes go, with `held` bytes in memory and the file open or not.
    static func store(count: Int, held: Int, fileOpen: Bool) -> Store {
        if fileOpen { return .write }
        return held + count <= memoryLimit ? .hold : .createFileThenWrite
    }

    /// What the task's end does with the body, in order.
    enum Step: Equatable {
        /// Hand the bytes held in memory to the delegate queue, which writes them once.
        case writeMemoryOnce
        /// Create the file from the bytes in memory: a failure that keeps its partial needs
        /// one for its resume data.
        case createFile
        /// Keep the descriptor open (and so locked) until the delegate has moved the file.
        case handOverDescriptor
        case closeDescriptor
        case removeFile
    }

    /// `toFile`: the body goes to a file (a download task); `hasFile`: the file exists;
    /// `descriptorOpen`: it is open here.
    static func ending(succeeded: Bool, keepPartialFile: Bool, toFile: Bool, hasFile: Bool,
                       descriptorOpen: Bool) -> [Step] {
        var steps: [Step] = []
        var fileExists = hasFile, open = descriptorOpen
        if toFile, !hasFile {
            if succeeded {
                steps.append(.writeMemoryOnce)
            } else if keepPartialFile {
                steps.append(.createFile)
                fileExists = true
                open = true
            }
        }
        if open { steps.append(succeeded && toFile ? .handOverDescriptor : .closeDescriptor) }
        if !succeeded, !keepPartialFile, fileExists { steps.append(.removeFile) }
        return steps
    }
}
