import Foundation

/// One span to export, as plain values: what `TaskTrace.spans(for:)` makes from a finished
/// task's metrics and `TraceExporter` hands to swift-otel. Its times are the metrics' own
/// dates, never the moment of export (DECISIONS 186).
public struct SpanDescription: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A hop: one HTTP request and its response (OpenTelemetry's HTTP client span).
        case client
        /// The task, and a hop's phases.
        case `internal`
    }

    public var name: String
    public var kind: Kind
    public var start: Date
    public var end: Date
    /// The index of the parent span in the same list; nil for the task's root span.
    public var parent: Int?
    /// Attribute name → value, by OpenTelemetry's semantic conventions where one applies and
    /// `transfertop.*` for the rest. No credentials (URLs lose their user info).
    public var attributes: [String: SpanValue]
    /// Set when the span failed: a short description, secrets removed.
    public var error: String?

    public init(name: String, kind: Kind, start: Date, end: Date, parent: Int?,
                attributes: [String: SpanValue] = [:], error: String? = nil) {
        self.name = name
        self.kind = kind
        self.start = start
        self.end = end
        self.parent = parent
        self.attributes = attributes
        self.error = error
    }
}

/// An attribute's value: the three kinds our spans use.
public enum SpanValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case bool(Bool)

    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : "false"
        }
    }
}
