import Foundation
import TransferModel

/// The bound on an interrupted run: after the first Ctrl-C or SIGTERM has cancelled every
/// task, the run waits for them to stop, and ends without the ones left once `grace` passes
/// with none stopping (a task blocked in a system call, such as the open of a FIFO nobody
/// writes to, cannot be cancelled, and `timeout` or systemd send SIGTERM only once). While
/// tasks keep stopping, the wait goes on: on a loaded machine a thousand downloads keeping
/// their resume data may take longer than `grace` together, each well within it.
package final class InterruptDeadline: Sendable {
    package static let grace: Double = 2
    private let fired = Locked(false)
    private let body: @Sendable () -> Void

    /// `body` runs once: at `finish()` or when the deadline passes, whichever comes first.
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// The run finished on its own.
    func finish() { fire() }

    /// Starts the clock; `expired` runs (before `body`) only if the run has not finished and
    /// `stopped` (how many tasks have stopped so far) did not move during the last `grace`.
    func arm(stopped: @escaping @Sendable () -> Int, expired: @escaping @Sendable () -> Void) {
        wait(since: stopped(), stopped, expired)
    }

    private func wait(since count: Int, _ stopped: @escaping @Sendable () -> Int, _ expired: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.grace) { [self] in
            guard !fired.withLock({ $0 }) else { return }
            let now = stopped()
            if now != count { return wait(since: now, stopped, expired) }
            fire(before: expired)
        }
    }

    private func fire(before first: (() -> Void)? = nil) {
        guard fired.withLock({ was in defer { was = true }; return !was }) else { return }
        first?()
        body()
    }
}
