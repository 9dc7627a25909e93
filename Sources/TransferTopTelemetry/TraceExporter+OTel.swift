#if OpenTelemetry
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing
import TransferModel

/// The edge to swift-otel: its tracing backend (batch processor, OTLP/HTTP exporter) run in a
/// service group of our own, without signal handlers (the run handles its signals itself) and
/// without bootstrapping the process-wide `InstrumentationSystem`.
extension TraceExporter {
    static func startOTel(endpoint: String, serviceVersion: String,
                          warn: @escaping @Sendable (String) -> Void) throws(TelemetryError) -> TraceExporter {
        var config = OTel.Configuration.default
        config.serviceName = "transfertop"
        config.resourceAttributes = ["service.version": serviceVersion]
        config.diagnosticLogger = .custom(Logger(label: "transfertop.otlp") { _ in
            ExportWarnings(endpoint: endpoint, warn: warn)
        })
        config.diagnosticLogLevel = .warning
        config.metrics.enabled = false
        config.logs.enabled = false
        config.traces.sampler = .alwaysOn
        config.traces.otlpExporter.endpoint = endpoint
        // A collector that accepts the connection and never answers costs at most this, once
        // per batch and once at the end.
        config.traces.otlpExporter.timeout = .seconds(5)
        config.traces.batchSpanProcessor.exportTimeout = .seconds(5)
        do {
            let backend = try OTel.makeTracingBackend(configuration: config)
            return running(backend.factory, backend.service, endpoint: endpoint, warn: warn)
        } catch {
            throw .configuration("\(error)")
        }
    }

    /// The backend's service run in a group of our own; stopping is its graceful shutdown, in
    /// which the batch processor sends what it holds, unless the collector refuses a
    /// connection (`CollectorProbe`): then the spans held are dropped with a warning instead of
    /// waiting out the export timeout, and the process's exit ends the group.
    static func running<T: Tracer>(_ tracer: T, _ service: some Service, endpoint: String,
                                   warn: @escaping @Sendable (String) -> Void) -> TraceExporter {
        let quiet = Logger(label: "transfertop.otlp.group") { _ in SwiftLogNoOpLogHandler() }
        let group = ServiceGroup(configuration: .init(services: [service], logger: quiet))
        let running = Task { try? await group.run() }
        return TraceExporter(endpoint: endpoint, emit: emitter(tracer), stop: {
            // swift-otel sends to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT when set, not to
            // `endpoint`: then the probe would ask the wrong host.
            let overridden = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
                .contains { ProcessInfo.processInfo.environment[$0] != nil }
            if !overridden, case .refused(let why) = await CollectorProbe.probe(endpoint) {
                warn(Redaction.redactText("traces to \(endpoint): not sent at exit: \(why)"))
                return
            }
            await group.triggerGracefulShutdown()
            await running.value
        })
    }

    /// Starts and ends each described span at its own times; a child's parent is the span made
    /// for its parent's index (always earlier in the list).
    static func emitter<T: Tracer>(_ tracer: T) -> @Sendable ([SpanDescription]) -> Void {
        { descriptions in
            var spans: [T.Span] = []
            for d in descriptions {
                let parent = d.parent.map { spans[$0].context } ?? .topLevel
                let span = tracer.startSpan(d.name, context: parent, ofKind: d.kind == .client ? .client : .internal,
                                            at: EpochInstant(d.start))
                for (name, value) in d.attributes { span.attributes[name] = value.attribute }
                if let error = d.error { span.setStatus(SpanStatus(code: .error, message: error)) }
                spans.append(span)
            }
            // Children first: a processor sees a parent end after what it holds.
            for (span, d) in zip(spans, descriptions).reversed() { span.end(at: EpochInstant(d.end)) }
        }
    }
}

/// An instant from a metrics date, for `startSpan(at:)` and `end(at:)`.
struct EpochInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        nanosecondsSinceEpoch = UInt64(max(0, (date.timeIntervalSince1970 * 1e9).rounded()))
    }

    static func < (a: EpochInstant, b: EpochInstant) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }
}

extension SpanValue {
    var attribute: SpanAttribute {
        switch self {
        case .string(let s): return .string(s)
        case .int(let i): return .int64(i)
        case .bool(let b): return .bool(b)
        }
    }
}

/// swift-otel's diagnostics as our warnings: a failed export (collector down, refused,
/// timed out) becomes one line on stderr, each distinct message once per run.
struct ExportWarnings: LogHandler {
    let endpoint: String
    let warn: @Sendable (String) -> Void
    private let said = Said()
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider? = nil

    init(endpoint: String, warn: @escaping @Sendable (String) -> Void) {
        self.endpoint = endpoint
        self.warn = warn
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .warning else { return }
        // A collector that is down shows as a timeout: async-http-client retries the connect
        // until the export's deadline. Said plainly rather than as the nested error's dump.
        let why = event.error.map { "\($0)".hasPrefix("TimeoutError") ? " (no answer within 5 s)" : " (\($0))" } ?? ""
        let line = Redaction.redactText("traces to \(endpoint): \(event.message)\(why)")
        if said.first(line) { warn(line) }
    }

    /// The lines already written (a collector that stays down fails every batch alike).
    final class Said: Sendable {
        private let lines = Locked<Set<String>>([])
        func first(_ line: String) -> Bool { lines.withLock { $0.insert(line).inserted } }
    }
}
#endif
