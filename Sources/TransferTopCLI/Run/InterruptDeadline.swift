import Foundation
import TransferModel

/// The bound on an interrupted run: after the first Ctrl-C or SIGTERM has cancelled every
/// task, the run waits `grace` for them to stop, then ends without the ones that did not (a
/// task blocked in a system call, such as the open of a FIFO nobody writes to, cannot be
/// cancelled, and `timeout` or systemd send SIGTERM only once). Downloads that can keep resume
/// data have done so well within it: that is one message to the transfer thread and one file.
final class InterruptDeadline: Sendable {
    static let grace: Double = 2
    private let fired = Locked(false)
    private let body: @Sendable () -> Void

    /// `body` runs once: at `finish()` or when the deadline passes, whichever comes first.
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// The run finished on its own.
    func finish() { fire() }

    /// Starts the clock; `expired` runs (before `body`) only if the run has not finished.
    func arm(expired: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.grace) { [self] in fire(before: expired) }
    }

    private func fire(before first: (() -> Void)? = nil) {
        guard fired.withLock({ was in defer { was = true }; return !was }) else { return }
        first?()
        body()
    }
}
