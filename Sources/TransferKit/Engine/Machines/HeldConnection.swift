import TransferModel

/// Whether the hop's connection sat idle under a suspend, and what a failure of that
/// connection after the resume does. A server closes a connection nobody reads from (its send
/// timeout); libcurl, paused, learns it only on resume, so the resumed hop fails at once. A
/// download that can be continued from resume data continues instead, in the same task, once
/// per resume (DECISIONS 173). Pure: the engine reports suspend, resume and the hop's failure and
/// performs the action.
///
/// `fresh` → (suspended with a connection) `held` → (resumed) `resumed` → (the hop fails)
/// `fresh`, with `continueFromResumeData` or `fail`. A new hop is `fresh` again.
struct HeldConnection: Equatable {
    enum State: Equatable {
        /// No suspend held this hop's connection idle (or the continuation it allowed is spent).
        case fresh
        /// Suspended while connected: the server may close the idle connection meanwhile.
        /// Goes to `resumed` on resume, `fresh` on a new hop.
        case held
        /// Resumed after `held`: a connection failure on this hop is taken as the server having
        /// dropped the idle connection. Goes to `held` on another suspend, `fresh` when the hop
        /// ends or a new one begins.
        case resumed
    }

    /// What the engine knows of the failed hop.
    struct Failure: Equatable {
        var code: TransferError.Code
        var isDownload: Bool
        var isHTTP: Bool
        /// Resume data can be made now: a validator, bytes on disk, ranges allowed
        /// (`Resumability`), and any `Range` sent is the engine's own.
        var resumable: Bool
    }

    enum Action: Equatable {
        /// Ask for the rest with `Range`/`If-Range` on a new hop of the same task.
        case continueFromResumeData
        /// Fail as any failed hop does (with resume data where it can be made).
        case fail
    }

    private(set) var state: State = .fresh

    /// The task was suspended; `pausedConnection`: its connection was paused, not dropped (a
    /// hop without one starts again on resume and meets no dead connection).
    mutating func suspended(pausedConnection: Bool) {
        if pausedConnection { state = .held }
    }

    mutating func resumed() {
        if state == .held { state = .resumed }
    }

    /// A new hop has a connection of its own.
    mutating func hopBegan() { state = .fresh }

    /// The hop failed. Only a connection lost after a resume from `held` continues: failures
    /// while still suspended, time-outs and the server's own answers fail as before.
    mutating func hopFailed(_ failure: Failure) -> Action {
        defer { state = .fresh }
        guard state == .resumed, failure.code == .networkConnectionLost, failure.isDownload, failure.isHTTP,
              failure.resumable else { return .fail }
        return .continueFromResumeData
    }
}
