import Foundation
import TransferModel

/// Finished tasks as traces to an OpenTelemetry collector over OTLP/HTTP (`--otlp URL`, the
/// daemon's `TRANSFERTOP_OTLP`). `TaskTrace` makes the spans; this type only hands them to
/// swift-otel, which batches and sends them in the background. `shutdown()` sends what is left
/// before the process exits, bounded by the export timeout; a collector that is down costs a
/// warning, never the run (DECISIONS 186, 188).
///
/// Built without the `OpenTelemetry` package trait (the sanitizer builds, DECISIONS 187) the type
/// is still here, but `isAvailable` is false and `start` throws.
public final class TraceExporter: Sendable {
    #if OpenTelemetry
    public static let isAvailable = true
    #else
    public static let isAvailable = false
    #endif

    /// Where spans are posted: the collector's URL with `/v1/traces`.
    public let endpoint: String
    private let emit: @Sendable ([SpanDescription]) -> Void
    private let stop: @Sendable () async -> Void

    init(endpoint: String, emit: @escaping @Sendable ([SpanDescription]) -> Void,
         stop: @escaping @Sendable () async -> Void) {
        self.endpoint = endpoint
        self.emit = emit
        self.stop = stop
    }

    /// The traces URL for a collector's base URL, as OpenTelemetry's `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// is read: `/v1/traces` appended, unless the URL already ends with it.
    public static func tracesURL(_ collector: String) -> String {
        // The path gets it, not the end of the text: a query or fragment stays after it.
        guard var parts = URLComponents(string: collector) else {
            return collector.hasSuffix("/") ? collector + "v1/traces" : collector + "/v1/traces"
        }
        if !parts.path.hasSuffix("/v1/traces") {
            parts.path = (parts.path.hasSuffix("/") ? parts.path : parts.path + "/") + "v1/traces"
        }
        return parts.string ?? collector
    }

    /// Starts the exporter's background work. `warn` receives one line per distinct problem
    /// (a collector that refuses, a timeout), already prefixed with the endpoint.
    public static func start(collector: String, serviceVersion: String,
                             warn: @escaping @Sendable (String) -> Void) throws(TelemetryError) -> TraceExporter {
        #if OpenTelemetry
        return try startOTel(endpoint: tracesURL(collector), serviceVersion: serviceVersion, warn: warn)
        #else
        throw .unavailable
        #endif
    }

    /// Exports one finished task: its spans are made now, with the metrics' times, and queued.
    public func export(_ task: TaskSnapshot) { emit(TaskTrace.spans(for: task)) }

    /// Sends every queued span and stops: at once, with a warning, when the collector refuses
    /// connections (`CollectorProbe`); otherwise within the probe's second and the export
    /// timeout (5 s) even when it does not answer.
    public func shutdown() async { await stop() }
}

public enum TelemetryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// This build has no OpenTelemetry support (built without the trait).
    case unavailable
    /// swift-otel refused the configuration (e.g. `OTEL_SDK_DISABLED`, a bad endpoint).
    case configuration(String)

    public var description: String {
        switch self {
        case .unavailable:
            return "this build of transfertop has no OpenTelemetry support (it was built without the OpenTelemetry trait)"
        case .configuration(let why):
            return why
        }
    }
}
