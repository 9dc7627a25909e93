import Foundation
import RunEvidence
import Synchronization
import TransferKit

/// `--no-tui` and piped runs: a line per state change, a summary, an exit status.
public enum LineMode {
    /// `progress`: `--progress`, periodic progress lines when stdout is not a terminal (on a
    /// terminal the progress line is always drawn, in place).
    /// `summary`: what the end prints (`--summary`); `budgets`: `--slo`, checked at the end.
    public static func run(_ runner: Runner, environment: [String: String], progress: Bool = false,
                           summary: SummaryMode = .tasks, budgets: [Budget] = []) async -> Int32 {
        let json = summary == .json
        // With JSON, stdout carries the one document a program reads: the lines a person
        // follows go to stderr, and no progress line is drawn.
        let isTerminal = isatty(json ? STDERR_FILENO : STDOUT_FILENO) == 1
        let color = usesColor(isTerminal: isTerminal, environment: environment)
        let out = Output.shared
        // Never silent (DECISIONS 110): `-k` is said once, before anything is fetched.
        if let warning = insecureWarning(runner.plan) { out.error(warning) }
        runner.keepsCompletedTasks = false  // a long list holds only its window
        if !summary.showsTasks || !budgets.isEmpty { runner.collectEvidence() }
        let lines = LineBuffer(out)
        let meter = json ? nil : LineProgress.mode(isTerminal: isTerminal, progressFlag: progress)
            .map { LineProgress(mode: $0, runner: runner, lines: lines) }
        runner.setEventSink(stateAndProgressOnly: true, sink(runner, color: color, progress: meter) {
            if json { out.error($0) } else { lines.line($0) }
        })
        let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self)
        let deadline = InterruptDeadline { endedContinuation.finish() }
        let signals = SignalWatcher { signo in
            meter?.stop()
            lines.clearStatus()
            let said = "transfertop: \(signo == SIGINT ? "interrupted" : "terminated"); cancelling, keeping resume data"
            if json { out.error(said) } else { out.line(said) }
            runner.interrupt()
            deadline.arm(stopped: { runner.finishedCount }) {
                out.error("transfertop: no task stopped for \(Int(InterruptDeadline.grace)) s after the cancel; ending without the ones left")
            }
        }
        runner.start()
        for n in runner.takeNotices() {
            if json { out.error("note: " + TerminalText.safe(n)) } else { out.line("note: " + TerminalText.safe(n)) }
        }
        runner.whenFinished { deadline.finish() }
        for await _ in ended {}
        signals.cancel()
        meter?.stop()
        lines.close()
        return finish(runner, out: out, summary: summary, budgets: budgets)
    }

    /// The one stderr line of a run with `-k` (any of its sessions), nil without.
    public static func insecureWarning(_ plan: RunPlan) -> String? {
        plan.sessions.contains(where: \.insecure) ? "transfertop: warning: -k: TLS certificates are not verified" : nil
    }

    /// Colour codes only for a terminal that has colour: never into a pipe, never with
    /// NO_COLOR, never for TERM=dumb or an unset TERM.
    public static func usesColor(isTerminal: Bool, environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        return isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && !term.isEmpty && term != "dumb"
    }

    /// The engine-event handler: a line per state change, then any pending notices. Constant
    /// work per event (one dictionary look-up, one task snapshot) and a fixed stack depth.
    static func sink(_ runner: Runner, color: Bool, progress: LineProgress? = nil, write: @escaping @Sendable (String) -> Void)
        -> @Sendable (TransferSession, TransferEvent) -> Void {
        return { session, event in
            if case .progress(let received, let sent) = event.kind {
                progress?.add(received + sent)
                return
            }
            guard case .taskStateChanged = event.kind, let id = event.taskIdentifier,
                  let task = runner.task(TaskID(session: session.sessionID, task: id)) else { return }
            write(LineFormat.line(task.snapshot(), at: event.date, color: color))
            for n in runner.takeNotices() { write("note: " + TerminalText.safe(n)) }
        }
    }

    /// After the run: notices, the summary (`--summary`), the exports, the budgets
    /// (`--slo`), the exit status: 3 when a budget was breached, else 1 when a task failed or
    /// an export could not be written, else 0 (DECISIONS 191).
    static func finish(_ runner: Runner, out: Output, summary: SummaryMode = .tasks, budgets: [Budget] = []) -> Int32 {
        let json = summary == .json
        let say: (String) -> Void = { json ? out.error($0) : out.line($0) }
        for n in runner.takeNotices() { say("note: " + TerminalText.safe(n)) }
        let all = runner.taskSnapshots()
        let stats = runner.statistics ?? RunStatistics()
        let results = Budget.check(budgets, stats)
        if json {
            let totals = TaskTotals(total: all.count, succeeded: all.count { runner.succeeded($0) })
            out.line(EvidenceFormat.json(stats, tasks: totals, budgets: results).serialized(pretty: true))
        } else {
            out.line("")
            if summary.showsTasks {
                // Streamed in 64 KiB writes: a 100,000-row table is never one string.
                LineFormat.summaryTable(all, succeeded: runner.succeeded) { out.write($0, fd: STDOUT_FILENO) }
            }
            if summary.showsHosts {
                var lines = summary.showsTasks ? [""] : []
                lines += EvidenceFormat.table(stats).map { TerminalText.safe($0) }
                if !summary.showsTasks { lines.append(LineFormat.totalLine(all, succeeded: runner.succeeded)) }
                out.write(lines.map { $0 + "\n" }.joined(), fd: STDOUT_FILENO)
            }
        }
        let notStarted = runner.notStartedCount
        if notStarted > 0 { say("\(notStarted) task(s) of the list were not started") }
        if let text = runner.interruptionMessage() { say(text) }
        let errors = runner.writeExports()
        for e in errors { out.error("transfertop: \(e)") }
        if reportBreaches(results, out: out) { return 3 }
        return errors.isEmpty ? runner.exitStatus(all) : 1
    }

    /// One stderr line per breached budget; whether there was one.
    package static func reportBreaches(_ results: [BudgetResult], out: Output) -> Bool {
        let breached = results.filter(\.breached)
        for r in breached { out.error("transfertop: " + TerminalText.safe(r.line)) }
        return !breached.isEmpty
    }
}

/// SIGINT/SIGTERM as dispatch sources (the handler runs on a queue, not in a signal
/// context). A second signal while the first is handled exits at once with 130.
///
/// libdispatch registers a signal source on the source's queue, and only then installs the
/// handler that forwards the signal to it; until then the signal meets SIG_IGN and is lost. So
/// the sources have a serial queue of their own (it targets an overcommit pool, which always
/// gets a thread: on a global queue registration waited for a free worker, and an ASan run's
/// Ctrl-C was ignored for good), and `init` returns only once every source is registered.
package final class SignalWatcher: @unchecked Sendable {
    // @unchecked: the sources are set up in init and only cancelled afterwards.
    private var sources: [DispatchSourceSignal] = []
    private let count = Atomic<Int>(0)
    private static let queue = DispatchQueue(label: "transfertop.signals")

    package init(signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        let registered = DispatchSemaphore(value: 0)
        for signo in signals {
            Self.ignoreUnlessForwarded(signo)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: Self.queue)
            source.setEventHandler { [self] in
                if self.count.wrappingAdd(1, ordering: .relaxed).newValue > 1 { exit(130) }
                handler(signo)
            }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
            sources.append(source)
        }
        // Bounded, so a libdispatch that never registers cannot hang the run: it only goes
        // back to the old window.
        for _ in signals { _ = registered.wait(timeout: .now() + 5) }
    }

    /// The default action (terminate) would win before the source is registered, so the
    /// signal is ignored first, as libdispatch asks. But only while nothing handles it:
    /// libdispatch installs its forwarding handler once per process and never again, so
    /// replacing it with SIG_IGN for a second watcher (after an earlier one was cancelled)
    /// would lose every later signal.
    static func ignoreUnlessForwarded(_ signo: Int32) {
        var current = sigaction()
        guard sigaction(signo, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { return }
        signal(signo, SIG_IGN)
    }

    package func cancel() { for s in sources { s.cancel() } }
}
