import Dispatch
import Foundation

/// What other threads ask of a session's transfer thread: start, suspend, resume and cancel a
/// task, the delegates' answers, and shutdown.
enum EngineCommand: Sendable {
    /// `requestedAt`: when `resume()` asked for it, the task's fetch start (`Monotonic`).
    case start(TransferTask, requestedAt: UInt64)
    case suspend(TransferTask)
    case resume(TransferTask)
    case cancel(TransferTask, byProducingResumeData: Bool, reply: (@Sendable (Data?) -> Void)?)
    case disposition(TransferTask, ResponseDisposition)
    case redirect(TransferTask, TransferRequest?)
    /// The task delegate's answer to an authentication challenge.
    case challenge(TransferTask, AuthChallengeDisposition, TransferCredential?)
    /// The session delegate's answer to a server-trust challenge.
    case trust(TransferTask, AuthChallengeDisposition)
    /// The data delegate caught up: unpause a transfer paused for back-pressure.
    case drained(TransferTask)
    /// The delegate's answer to `needNewBodyStream` (nil: none).
    case bodyStream(TransferTask, SendableStream?)
    /// A streamed body has bytes again.
    case bodyReady(TransferTask)
    /// A task's own bandwidth limit in bytes per second, each direction (0: none).
    case rateLimit(TransferTask, Int64)
    /// The session's bandwidth limit, shared among its transfers (0: none).
    case sessionRateLimit(Int64)
    /// The session's connections per host (`CURLMOPT_MAX_HOST_CONNECTIONS`), at least 1.
    case connectionsPerHost(Int)
    case shutdown(DispatchSemaphore)

    var task: TransferTask? {
        switch self {
        case .start(let t, _), .suspend(let t), .resume(let t), .cancel(let t, _, _),
             .disposition(let t, _), .redirect(let t, _), .challenge(let t, _, _), .trust(let t, _),
             .drained(let t), .bodyStream(let t, _),
             .bodyReady(let t), .rateLimit(let t, _): return t
        case .sessionRateLimit, .connectionsPerHost, .shutdown: return nil
        }
    }
}

/// Commands from any thread for the transfer thread, which runs them a turn at a time.
final class CommandInbox: @unchecked Sendable {
    // @unchecked: `pending` is behind its lock; `turn` and `cursor` belong to the transfer
    // thread (`runTurn`, `hasBacklog`).
    private let pending = Locked<[EngineCommand]>([])
    /// The loop swaps this with `pending`, so neither array is reallocated per turn.
    private var turn: [EngineCommand] = []
    /// The next command of `turn` to run.
    private var cursor = 0
    /// New transfers set up per loop turn: one. More delayed the first connects of a long
    /// list by their set-up work, at no gain in wall time (docs/decisions).
    static let startsPerTurn = 1

    /// Appends a command; true when it found the inbox empty, so the caller wakes the loop. A
    /// non-empty inbox already had its wakeup, and the loop does not sleep while it holds
    /// commands (`hasBacklog`): one wakeup per command was a `send` and a `recv` on libcurl's
    /// socket pair per URL of a long list.
    func post(_ command: EngineCommand) -> Bool {
        pending.withLock { pending in
            pending.append(command)
            return pending.count == 1
        }
    }

    /// Runs the commands that arrived, in order, but sets up at most `startsPerTurn` new
    /// transfers before libcurl runs again: the rest wait for the next turn, which then comes
    /// without a poll. Setting up a few thousand handles in one turn (a long URL list) held
    /// up the connections already being made, and libcurl counted that wait into their connect
    /// and TLS phases. Returns the shutdown command when one is reached. Transfer thread only.
    func runTurn(_ handle: (EngineCommand) -> Void) -> EngineCommand? {
        if cursor == turn.count {
            turn.removeAll(keepingCapacity: true)
            cursor = 0
            // Swapped, not copied: copying and then emptying the inbox allocated a new array
            // on every iteration.
            pending.withLock { swap(&$0, &turn) }
        }
        var starts = 0
        while cursor < turn.count {
            let command = turn[cursor]
            if case .start = command {
                if starts == Self.startsPerTurn { break }
                starts += 1
            }
            cursor += 1
            if case .shutdown = command { return command }
            handle(command)
        }
        return nil
    }

    /// The commands the loop will never run, in order: those after the shutdown in the turn
    /// it ended, and those posted until the multi handle closed. The inbox is empty after it.
    /// Kept there, a command would keep its task, and so the session and the engine that owns
    /// this inbox, alive. Transfer thread only, after the handle closed (nothing more is posted).
    func takeLeftovers() -> [EngineCommand] {
        var rest = Array(turn[cursor...])
        turn.removeAll()
        cursor = 0
        pending.withLock { pending in
            rest += pending
            pending.removeAll()
        }
        return rest
    }

    /// Commands waiting: taken but not yet run (a long list of starts), or still pending. The
    /// pending ones count because a poll during a backlog consumes the wakeup that came with
    /// them: without them the loop could sleep a whole poll timeout with work waiting.
    /// Transfer thread only.
    var hasBacklog: Bool {
        cursor < turn.count || pending.withLock { !$0.isEmpty }
    }
}
