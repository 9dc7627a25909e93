import Foundation
import Logging
import TransferKit
import TransferModel
import TransferTopTelemetry

/// What a run reports besides its screen or lines: diagnostics (`--log-file`, `--trace`),
/// fleet metrics (`--prometheus`) and traces (`--otlp`). Fed by the Runner on engine threads;
/// constant work per event.
public struct RunObservability: Sendable {
    public var logging: RunLogging = .off
    public var metrics: FleetMetrics? = nil
    /// Record request headers as sent (the monitor's detail pane; `--har` turns it on too).
    public var recordsSentHeaders = false
    /// `--otlp`: each finished task as a trace (TransferTopTelemetry, DECISIONS 186).
    public var traces: TraceExporter? = nil
    /// The exporter's warnings while the monitor owns the screen, said when the run ends.
    var heldWarnings: HeldLines? = nil

    public init() {}

    func observe(_ event: TransferEvent) {
        metrics?.observe(event)
        guard case .taskStateChanged(let state) = event.kind, let id = event.taskIdentifier, state != .completed else { return }
        logging.logger.debug("task \(event.sessionID).\(id) \(state.rawValue)")
    }

    /// Whether `taskFinished` does anything: without metrics and with the log off (line
    /// mode's default) the caller need not even make the task's snapshot.
    var wantsFinishedTasks: Bool { metrics != nil || traces != nil || logging.logger.logLevel <= .warning }

    func taskFinished(_ task: TaskSnapshot) {
        metrics?.record(task)
        traces?.export(task)
        // The metadata is built only for a log that writes it: it was a dictionary of four
        // strings per finished URL into a no-op logger.
        guard logging.logger.logLevel <= (task.error == nil ? .info : .warning) else { return }
        var metadata: Logger.Metadata = ["url": "\(task.currentURL)", "bytes": "\(task.countOfBytesReceived)"]
        if let status = task.statusCode { metadata["status"] = "\(status)" }
        if let error = task.error {
            metadata["error"] = "\(error.code): \(error.message)"
            logging.logger.warning("task \(task.id) failed", metadata: metadata)
        } else {
            logging.logger.info("task \(task.id) completed", metadata: metadata)
        }
    }
}

extension RunObservability {
    /// From the options, before any transfer: opens the log file and starts the metrics
    /// server (a usage error, exit 2, when either cannot be had). `monitor`: the screen
    /// belongs to the monitor, so logging there needs a file.
    package static func make(_ o: Options, monitor: Bool) throws(UsageError) -> (RunObservability, MetricsServer?) {
        var obs = RunObservability()
        obs.recordsSentHeaders = monitor
        let wantsLog = o.logFile != nil || o.logLevel != nil || o.trace
        if wantsLog {
            let destination: LogDestination
            if let file = o.logFile {
                destination = try LogDestination.open(file)
            } else if monitor {
                throw UsageError("--log-level and --trace need --log-file while the monitor runs (the screen is the monitor's)")
            } else {
                destination = .standardError
            }
            let level = Logger.Level(rawValue: o.logLevel ?? (o.trace ? "trace" : "info")) ?? .info
            obs.logging = RunLogging(destination: destination, level: level, traceCurl: o.trace)
            obs.logging.logger.notice("transfertop \(VersionInfo.version) started", metadata: ["pid": "\(getpid())"])
        }
        var server: MetricsServer? = nil
        if let address = o.prometheus {
            let metrics = FleetMetrics()
            do {
                server = try MetricsServer.start(host: address.host, port: address.port, metrics: metrics)
            } catch {
                throw UsageError("--prometheus cannot listen on \(address.host):\(address.port): \(error)")
            }
            obs.metrics = metrics
        }
        if let collector = o.otlp { obs.startTraces(collector, holdingWarnings: monitor) }
        return (obs, server)
    }

    /// Starts the trace exporter; one that cannot start is a warning, never the run's failure.
    package mutating func startTraces(_ collector: String, holdingWarnings: Bool) {
        let held = holdingWarnings ? HeldLines() : nil
        heldWarnings = held
        let warn: @Sendable (String) -> Void = { line in
            if let held { held.append(line) } else { Output.shared.error("transfertop: warning: \(TerminalText.safe(line))") }
        }
        do {
            traces = try TraceExporter.start(collector: collector, serviceVersion: VersionInfo.version, warn: warn)
        } catch {
            warn("traces are not exported: \(error)")
        }
    }

    /// Before the process exits: sends the spans still queued (within the exporter's timeout)
    /// and says the warnings held while the monitor ran. Returns the run's `status`, or 1 in
    /// place of 0 when lines of the log file were lost (said on stderr).
    package func finish(_ status: Int32) async -> Int32 {
        await traces?.shutdown()
        for line in heldWarnings?.take() ?? [] { Output.shared.error("transfertop: warning: \(TerminalText.safe(line))") }
        guard let failure = logging.destination?.failure else { return status }
        Output.shared.error("transfertop: \(failure)")
        return status == 0 ? 1 : status
    }
}

extension RunObservability {
    /// `finish` for a caller off Swift concurrency's pool that is about to exit (the daemon's stop).
    package func finishBlocking() {
        guard traces != nil else { return }
        let done = DispatchSemaphore(value: 0)
        Task { _ = await finish(0); done.signal() }
        done.wait()
    }
}

/// Lines kept for later, from any thread.
final class HeldLines: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func take() -> [String] { lines.withLock { l in defer { l = [] }; return l } }
}
