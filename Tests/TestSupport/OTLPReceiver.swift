import Foundation

/// An OTLP/HTTP trace receiver (`otlp_receiver.py` beside this file, on the official
/// opentelemetry-proto definitions) on 127.0.0.1 for one test: a child process on a port the
/// kernel picks, ready when it prints that port (an event, not a wait), stopped by closing its
/// standard input. What it received is read back from its JSON-lines file.
public final class OTLPReceiver: @unchecked Sendable {
    // @unchecked: every field is set in init and never changed.
    public let port: Int
    public let file: String
    private let server: AnnouncedServer

    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("otlp_receiver.py").path

    /// Starts a receiver writing to `file`.
    public static func start(writingTo file: String) async throws -> OTLPReceiver {
        let python = try RequiredTool.python(importing: "opentelemetry.proto", package: "opentelemetry-proto")
        return try await offPool { try OTLPReceiver(python: python, file: file) }
    }

    private init(python: String, file: String) throws {
        server = try AnnouncedServer.start([python, "-B", Self.script, file], what: "the OTLP receiver")
        let port = server.port
        self.port = port
        self.file = file
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// One line of the file: a request (`type` "request") or a span (`type` "span").
    public struct Line: Decodable, Sendable {
        public var type: String
        public var path: String?
        public var content_type: String?
        public var body_text: String?
        public var headers: [String: String]?
        public var resource: [String: Value]?
        public var trace_id: String?
        public var span_id: String?
        public var parent_span_id: String?
        public var name: String?
        public var kind: Int?
        public var start_time_unix_nano: UInt64?
        public var end_time_unix_nano: UInt64?
        public var attributes: [String: Value]?
        public var status: Status?

        public struct Status: Decodable, Sendable {
            public var code: Int
            public var message: String
        }
    }

    /// An attribute's value as the receiver wrote it.
    public enum Value: Decodable, Sendable, Equatable, CustomStringConvertible {
        case string(String), int(Int64), double(Double), bool(Bool), other

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int64.self) { self = .int(i) }
            else if let d = try? c.decode(Double.self) { self = .double(d) }
            else if let s = try? c.decode(String.self) { self = .string(s) }
            else { self = .other }
        }

        public var description: String {
            switch self {
            case .string(let s): return s
            case .int(let i): return String(i)
            case .double(let d): return String(d)
            case .bool(let b): return String(b)
            case .other: return "?"
            }
        }
    }

    /// Everything received so far, in order.
    public func received() throws -> [Line] {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// Stops the receiver and waits for it to exit.
    public func stop() async { await server.stop() }
}
