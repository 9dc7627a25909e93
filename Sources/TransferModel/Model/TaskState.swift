/// The four public states of a task, as in URLSession.
///
/// Every task starts `suspended`. `resume()` moves it to `running`; `suspend()` back to
/// `suspended`; `cancel()` to `canceling`, then `completed` once the transfer is torn down.
/// A transfer that ends on its own (success or failure) goes straight to `completed`.
public enum TaskState: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case running
    case suspended
    case canceling
    case completed
}

/// What a task does with its bytes.
public enum TaskKind: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// Response body collected in memory.
    case data
    /// Request body from bytes or a file; response body in memory.
    case upload
    /// Response body streamed to a temporary file handed over at completion.
    case download
}

/// The configuration kind of a session.
public enum SessionKind: Sendable, Equatable, Hashable, Codable {
    case `default`
    case ephemeral
    case background(identifier: String)

    /// A short name for tables and exports: `default`, `ephemeral`, `background`.
    public var name: String {
        switch self {
        case .default: return "default"
        case .ephemeral: return "ephemeral"
        case .background: return "background"
        }
    }
}

/// The life of a session.
public enum SessionState: String, Sendable, Equatable, Hashable, Codable {
    /// Accepting new tasks.
    case active
    /// `finishTasksAndInvalidate()` was called: running tasks finish, new ones are refused.
    case invalidating
    /// Every task is done and *didBecomeInvalidWithError* was delivered.
    case invalidated
}
