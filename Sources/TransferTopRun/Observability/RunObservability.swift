import Foundation
import Logging
import TransferKit

/// What a run reports besides its screen or lines: diagnostics (`--log-file`, `--trace`) and
/// fleet metrics (`--prometheus`). Fed by the Runner on engine threads; constant work per event.
public struct RunObservability: Sendable {
    public var logging: RunLogging = .off
    public var metrics: FleetMetrics? = nil
    /// Record request headers as sent (the monitor's detail pane; `--har` turns it on too).
    public var recordsSentHeaders = false

    public init() {}

    func observe(_ event: TransferEvent) {
        metrics?.observe(event)
        guard case .taskStateChanged(let state) = event.kind, let id = event.taskIdentifier, state != .completed else { return }
        logging.logger.debug("task \(event.sessionID).\(id) \(state.rawValue)")
    }

    /// Whether `taskFinished` does anything: without metrics and with the log off (line
    /// mode's default) the caller need not even make the task's snapshot.
    var wantsFinishedTasks: Bool { metrics != nil || logging.logger.logLevel <= .warning }

    func taskFinished(_ task: TaskSnapshot) {
        metrics?.record(task)
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
        return (obs, server)
    }
}
