/// The brain of a task: events in, one action out. Pure; its owner performs the
/// action under its own lock.
///
/// States and where they may go next:
/// - `suspended` (every task starts here) → `running` (resume), `canceling` (cancel),
///   `completed` (the transfer ended while suspended, e.g. its session was torn down).
/// - `running` → `suspended` (suspend), `canceling` (cancel), `completed` (finished).
/// - `canceling` → `completed` (the engine confirms the transfer is gone).
/// - `completed` → nowhere; every event is ignored, as URLSession ignores them.
public struct TaskStateMachine: Sendable, Equatable {
    public enum Event: Sendable, Equatable {
        case resume
        case suspend
        case cancel(byProducingResumeData: Bool)
        /// The transfer is over: `nil` for success.
        case finished(TransferError?)
        /// A transfer already running for another task is handed to this one (a data task
        /// that became a download task).
        case adoptRunningTransfer
        /// This task handed its running transfer to another task and ends without a result.
        case handedOver
    }

    public enum Action: Sendable, Equatable {
        /// First resume: hand the task to the transfer thread.
        case startTransfer
        /// Stop the flow of bytes without losing the transfer.
        case pauseTransfer
        case unpauseTransfer
        /// Tear the transfer down; the engine answers with `.finished(cancelled)`.
        case cancelTransfer(byProducingResumeData: Bool)
        /// Deliver the outcome to the delegate or completion handler.
        case complete(TransferError?)
        /// The event makes no sense in this state; the reason is for logs and the monitor.
        case ignore(String)
        /// The state changed and there is nothing to perform (adoption, hand-over).
        case none
    }

    public private(set) var state: TaskState = .suspended
    /// Whether the transfer thread has been given this task.
    public private(set) var hasStarted = false

    public init() {}

    public mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.completed, _):
            return .ignore("task is completed")
        case (.suspended, .adoptRunningTransfer) where !hasStarted:
            state = .running
            hasStarted = true
            return .none
        case (_, .adoptRunningTransfer):
            return .ignore("only a new task can adopt a transfer")
        case (.running, .handedOver), (.suspended, .handedOver):
            state = .completed
            return .none
        case (_, .handedOver):
            return .ignore("task is not running")
        case (.canceling, .finished(let error)):
            state = .completed
            return .complete(error ?? .cancelled())
        case (.canceling, _):
            return .ignore("task is being cancelled")
        case (.suspended, .resume):
            state = .running
            if hasStarted { return .unpauseTransfer }
            hasStarted = true
            return .startTransfer
        case (.running, .resume):
            return .ignore("task is already running")
        case (.running, .suspend):
            state = .suspended
            return .pauseTransfer
        case (.suspended, .suspend):
            return .ignore("task is already suspended")
        case (.running, .cancel(let rd)), (.suspended, .cancel(let rd)):
            state = .canceling
            return .cancelTransfer(byProducingResumeData: rd)
        case (.running, .finished(let error)), (.suspended, .finished(let error)):
            state = .completed
            return .complete(error)
        }
    }
}
