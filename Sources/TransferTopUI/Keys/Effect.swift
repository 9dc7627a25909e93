import TransferModel

/// What the app layer must do after a key: the reducer never touches the engine itself.
public enum Effect: Sendable, Equatable {
    case suspend(TaskID)
    case resume(TaskID)
    case cancel(TaskID)
    case cancelWithResumeData(TaskID)
    case resumeFromResumeData(TaskID)
    case finishAndInvalidate(sessionID: Int)
    case invalidateAndCancel(sessionID: Int)
    case newTask(url: String, sessionID: Int)
    case newSession
    case exportCSV
    /// Load and switch to this theme (the reducer already put its name in the model).
    case loadTheme(String)
    case quit
}
