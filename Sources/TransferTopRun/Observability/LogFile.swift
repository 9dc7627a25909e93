import Foundation
import Logging
import TransferKit

/// Where `--log-file` lines go: one file opened for appending (mode 0600, as it may name the
/// URLs a user fetched), or stderr in line mode. Each line is one `write(2)` on an O_APPEND
/// descriptor, so two processes logging to one file interleave whole lines.
///
/// A line that cannot be written (a full disk) is counted, never waited on: a log must not
/// stop transfers. The run's end reports the first error and the count (`failure`).
final class LogDestination: Sendable {
    let fd: Int32
    let ownsDescriptor: Bool
    /// The log file's path, for the report; nil for stderr (a failed stderr is not reported).
    let path: String?
    /// The first errno a line failed with, and how many lines were lost.
    private let lost = Locked<(error: Int32, lines: Int)?>(nil)

    static func open(_ path: String) throws(UsageError) -> LogDestination {
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw UsageError("cannot open log file '\(SafeQuote.quote(path))': \(String(cString: strerror(errno)))")
        }
        return LogDestination(fd: fd, ownsDescriptor: true, path: path)
    }

    static let standardError = LogDestination(fd: STDERR_FILENO, ownsDescriptor: false, path: nil)

    init(fd: Int32, ownsDescriptor: Bool, path: String?) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.path = path
    }

    deinit { if ownsDescriptor { close(fd) } }

    func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        guard let error = FileDescriptorWrite.all(bytes, to: fd) else { return }
        lost.withLock { $0 = ($0?.error ?? error, ($0?.lines ?? 0) + 1) }
    }

    /// What the run's end says when lines of a log file were lost (nil: none were).
    var failure: String? {
        guard let path, let (error, lines) = lost.withLock({ $0 }) else { return nil }
        return "cannot write the log file '\(SafeQuote.quote(path))': \(String(cString: strerror(error))); "
            + (lines == 1 ? "1 line" : "\(lines) lines") + " lost"
    }
}

/// A swift-log handler: `2026-11-23T17:40:01.123Z warning transfertop: message key=value`,
/// with every URL in the message and metadata redacted (secrets never reach a log).
struct LogFileHandler: LogHandler {
    let label: String
    let destination: LogDestination
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider? = nil

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let fields = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let text = "\(ExportTimestamp.iso8601(Date())) \(event.level) \(label): \(event.message)\(fields)"
        // Header values and notes come from servers; the log is read on a terminal (and in
        // line mode is stderr): their control characters are escaped, tabs kept.
        destination.write(TerminalText.safe(Redaction.redactText(text), keepingTabs: true))
    }
}

/// The loggers of one run, made without `LoggingSystem.bootstrap` (a process-wide, once-only
/// switch that tests running several commands in one process cannot use).
public struct RunLogging: Sendable {
    public let logger: Logger
    public let curl: Logger
    /// `--trace`: libcurl's verbose lines go to the `transfertop.curl` logger at trace level.
    public let traceCurl: Bool
    let destination: LogDestination?

    /// Nothing logged anywhere: the default without `--log-file`/`--log-level`/`--trace`.
    public static let off = RunLogging(destination: nil, level: .critical, traceCurl: false)

    init(destination: LogDestination?, level: Logger.Level, traceCurl: Bool) {
        func make(_ label: String) -> Logger {
            guard let destination else { return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
            var l = Logger(label: label, factory: { LogFileHandler(label: $0, destination: destination, logLevel: level) })
            l.logLevel = level
            return l
        }
        logger = make("transfertop")
        var curl = make("transfertop.curl")
        // `--trace --log-level debug`: the trace was asked for by name, so it is written.
        if traceCurl { curl.logLevel = .trace }
        self.curl = curl
        self.traceCurl = traceCurl
        self.destination = destination
    }

    /// The trace receiver for session configurations (`TransferConfiguration.trace`).
    var trace: TransferTrace? {
        guard traceCurl else { return nil }
        let curl = self.curl
        return TransferTrace { line in
            curl.trace("\(line.description)", metadata: ["task": "\(line.sessionID).\(line.taskIdentifier)"])
        }
    }
}
