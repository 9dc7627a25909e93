import Foundation
import Synchronization
import TransferKit
import TransferTopUI

/// The ncurses monitor (SPEC T1-T5): one loop on one thread takes keys, snapshots and
/// events, updates the `MonitorModel`, and draws it at a capped rate (STYLE 8).
public enum MonitorApp {
    public static func run(_ runner: Runner, options: Options, environment: [String: String],
                           stayUntilQuit: Bool) async -> Int32 {
        let ring = EventRing()
        runner.setEventSink { _, event in ring.push(event) }
        let signals = SignalFlag()
        runner.start()
        let status: Int32 = await withCheckedContinuation { c in
            let thread = Thread {
                let loop = MonitorLoop(runner: runner, ring: ring, options: options, environment: environment, signals: signals)
                c.resume(returning: loop.run())
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        signals.cancel()
        // After the terminal is back: the summary, for the scrollback.
        Output.shared.line(LineFormat.summary(runner.taskSnapshots(), succeeded: runner.succeeded))
        if let text = runner.interruptionMessage() { Output.shared.line(text) }
        let errors = runner.writeExports()
        for e in errors { Output.shared.error("transfertop: \(e)") }
        return errors.isEmpty ? status : 1
    }
}

/// SIGINT/SIGTERM/SIGHUP noted for the UI loop, which then quits as `q` does.
final class SignalFlag: Sendable {
    let raised = Atomic<Int32>(0)
    private let watcher = Locked<SignalWatcher?>(nil)

    init() {
        watcher.withLock { $0 = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP]) { [weak self] in self?.note($0) } }
    }

    func note(_ signo: Int32) { raised.store(signo, ordering: .relaxed) }

    func cancel() { watcher.withLock { $0?.cancel() } }
}
