import TransferModel

/// What the app layer must do after a key: the reducer never touches the engine itself.
public enum Effect: Sendable, Equatable {
    case suspend(TaskID)
    case resume(TaskID)
    case cancel(TaskID)
    case cancelWithResumeData(TaskID)
    case resumeFromResumeData(TaskID)
    /// A failed or cancelled task again, as a new attempt (from its resume data if any).
    case retry(TaskID)
    /// Bytes per second, 0 for none (TransferKit's `rateLimit`).
    case limitTask(TaskID, Int64)
    case limitSession(sessionID: Int, Int64)
    case connectionsPerHost(sessionID: Int, Int)
    case finishAndInvalidate(sessionID: Int)
    case invalidateAndCancel(sessionID: Int)
    case newTask(url: String, sessionID: Int)
    case newSession
    case exportCSV
    /// Load and switch to this theme (the reducer already put its name in the model).
    case loadTheme(String)
    case quit
}
