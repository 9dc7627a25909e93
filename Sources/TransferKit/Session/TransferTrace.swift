import Foundation
import TransferModel

/// One line of libcurl's verbose trace, as `curl -v` prints it: `*` for libcurl's own notes,
/// `>` for the request head, `<` for the response head. Credential header values are already
/// replaced by `[redacted]` and URLs in notes redacted, so a trace can go to a log file.
public struct TransferTraceLine: Sendable, Equatable {
    public enum Kind: String, Sendable { case info = "*", headerOut = ">", headerIn = "<" }
    public var sessionID: Int
    public var taskIdentifier: Int
    public var kind: Kind
    public var text: String

    public init(sessionID: Int, taskIdentifier: Int, kind: Kind, text: String) {
        self.sessionID = sessionID
        self.taskIdentifier = taskIdentifier
        self.kind = kind
        self.text = text
    }

    public var description: String { "\(kind.rawValue) \(text)" }
}

/// Where trace lines go (`TransferConfiguration.trace`). A class so the configuration stays
/// Equatable: two configurations trace alike when they share the same receiver.
public final class TransferTrace: Sendable, Equatable {
    let receive: @Sendable (TransferTraceLine) -> Void

    public init(_ receive: @escaping @Sendable (TransferTraceLine) -> Void) {
        self.receive = receive
    }

    public static func == (a: TransferTrace, b: TransferTrace) -> Bool { a === b }
}
