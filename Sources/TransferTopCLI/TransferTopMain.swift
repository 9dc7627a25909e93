import BackgroundWire
import Foundation
import RunEvidence
import Synchronization
import TransferKit
import TransferTopRun

/// The executable's body: parse and validate (argument-parser and `Commands/`), then run line
/// mode, the monitor, the demo or `clean`.
public enum TransferTopMain {
    public static func run(_ arguments: [String]) async -> Int32 {
        // Any command whose stdout lost lines ends with 1 and says so (Output).
        Output.shared.finalStatus(await command(arguments))
    }

    private static func command(_ arguments: [String]) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // A file-size limit (ulimit -f) must fail the write with EFBIG, which is reported and
        // resumable, rather than kill the process and lose the resume data.
        signal(SIGXFSZ, SIG_IGN)
        _ = FileModes.umaskValue  // read while one thread runs: reading umask sets it briefly
        let command: Command
        do {
            command = try TransferTopCommand.command(from: Array(arguments.dropFirst()))
        } catch {
            Output.shared.error(error.message)
            return 2
        }
        let env = ProcessEnvironment.current()
        switch command {
        case .print(let text):
            Output.shared.write(text.hasSuffix("\n") ? text : text + "\n", fd: STDOUT_FILENO)
            return 0
        case .run(let options):
            // Parsed: the `-u` password leaves the visible command line (curl's cleanarg).
            if options.user?.password != nil { ArgvScrub.scrubPasswords() }
            if options.background != nil { return await BackgroundCLI.submit(options, environment: env) }
            do {
                let plan = try Preparation.plan(options)
                try Preflight.checkKeyBindings(environment: env)
                // The default theme is read only for the monitor: parsing it was a tenth of a
                // one-URL line-mode run. A theme named with --theme is checked either way.
                if options.theme != Options().theme || useMonitor(options, env) {
                    try Preflight.checkTheme(options.theme, environment: env)
                }
                if options.segments != nil {
                    let monitor = useMonitor(options, env)
                    if !monitor { try SegmentedUploadOptions.checkLineMode(options) }
                    return monitor ? await SegmentedRun.runInMonitor(plan, options: options, environment: env)
                        : await SegmentedRun.run(plan, options: options)
                }
                return await execute(plan, options: options, environment: env, demo: false)
            } catch let e as UsageError {
                Output.shared.error(e.message)
                return 2
            } catch {
                Output.shared.error("transfertop: \(error)")
                return 2
            }
        case .demo(let options):
            return await Demo.run(options, environment: env)
        case .clean(let directory, let delete):
            return CleanCommand.execute(directory: directory, delete: delete)
        case .compare(let request):
            return CompareCommand.execute(request)
        case .report(let request):
            return ReportCommand.execute(request, environment: env)
        case .background(let command):
            return await BackgroundCLI.run(command, environment: env)
        }
    }

    /// Line mode or the monitor, by `--no-tui` and whether stdout is a terminal.
    static func execute(_ given: RunPlan, options: Options, environment: [String: String], demo: Bool) async -> Int32 {
        var plan = given
        if !demo {
            let (filtered, notes) = await AlreadyComplete.filter(given, store: CompletionStore.standard())
            for n in notes { Output.shared.line("note: \(n)") }
            plan = filtered
        }
        let monitor = useMonitor(options, environment)
        let observability: RunObservability, metricsServer: MetricsServer?
        do {
            (observability, metricsServer) = try RunObservability.make(options, monitor: monitor)
        } catch {
            Output.shared.error(error.message)
            return 2
        }
        defer { metricsServer?.stop() }
        let runner = Runner(plan: plan, store: demo ? nil : ResumeStore.standard(), observability: observability)
        if let server = metricsServer { runner.notice("serving Prometheus metrics at http://\(server.address)/metrics") }
        if !demo, let stale = StalePartials.notice(in: plan.outputDirectory) { Output.shared.error("transfertop: note: \(stale)") }
        // Checked when the option was read (exit 2 with the column), so it parses here.
        let budgets = (try? BudgetParser.parse(options.slo ?? "")) ?? []
        if monitor {
            if !budgets.isEmpty { runner.collectEvidence() }
            let status = await MonitorApp.run(runner, options: options, environment: environment, stayUntilQuit: demo,
                                              daemon: demo ? nil : DaemonFeed.standard(environment))
            let finished = await observability.finish(status)
            // After the screen is restored, as line mode says them.
            let results = Budget.check(budgets, runner.statistics ?? RunStatistics())
            return LineMode.reportBreaches(results, out: Output.shared) ? 3 : finished
        }
        let status = await LineMode.run(runner, environment: environment, progress: options.progress,
                                        summary: options.summary ?? .tasks, budgets: budgets)
        // The last spans leave before the process does (a short run must not lose them).
        return await observability.finish(status)
    }

    /// The monitor on a terminal whose TERM terminfo knows; line mode otherwise. An unknown
    /// TERM (`xterm-kitty` over ssh to a host without its entry) is said once on stderr:
    /// ncurses would have ended the process after the transfers had started.
    static func useMonitor(_ o: Options, _ env: [String: String]) -> Bool {
        guard !o.noTUI, isatty(STDOUT_FILENO) == 1, let term = env["TERM"], term != "dumb", !term.isEmpty else { return false }
        guard CursesScreen.knows(terminal: term) else {
            if !saidUnknownTerminal.exchange(true, ordering: .relaxed) {
                Output.shared.error("transfertop: note: terminal type '\(SafeQuote.quote(term, limit: 40))' is not in this system's terminfo; using line mode")
            }
            return false
        }
        return true
    }

    private static let saidUnknownTerminal = Atomic<Bool>(false)
}
