import Foundation
import TransferKit

/// Serialised writes to stdout/stderr from any thread.
///
/// A write to stdout that fails (a full disk, `>/dev/full`, a reader that went away) is
/// remembered, and stdout is not written again: the transfers go on, and the command's end
/// says so and exits 1 (`finalStatus`), as curl's write error does. A failed stderr has
/// nowhere to be reported and is ignored.
package final class Output: Sendable {
    package static let shared = Output()
    private struct State {
        /// The first errno a write to stdout failed with.
        var stdoutError: Int32?
    }
    /// Serialises writes.
    private let lock = Locked(State())

    package func line(_ text: String) { write(text + "\n", fd: STDOUT_FILENO) }
    package func error(_ text: String) { write(text + "\n", fd: STDERR_FILENO) }

    package func write(_ text: String, fd: Int32) { write(Array(text.utf8), fd: fd) }

    package func write(_ bytes: [UInt8], fd: Int32) {
        lock.withLock { state in
            if fd == STDOUT_FILENO, state.stdoutError != nil { return }
            if let failure = FileDescriptorWrite.all(bytes, to: fd), fd == STDOUT_FILENO { state.stdoutError = failure }
        }
    }

    /// Whether a write to stdout has failed (and not been reported by `finalStatus` yet).
    package var hasLostStdout: Bool { lock.withLock { $0.stdoutError != nil } }

    /// The status a command ends with: `status`, or 1 in place of 0 when stdout lost lines
    /// (said on stderr, except for a reader that closed the pipe: `| head` meant it). Clears
    /// the failure for the next command run in this process.
    package func finalStatus(_ status: Int32) -> Int32 {
        guard let failure = lock.withLock({ state -> Int32? in defer { state.stdoutError = nil }; return state.stdoutError }) else {
            return status
        }
        if failure != EPIPE { error("transfertop: cannot write to standard output: \(String(cString: strerror(failure)))") }
        return status == 0 ? 1 : status
    }
}
