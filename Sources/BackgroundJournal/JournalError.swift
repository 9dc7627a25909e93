/// Every failure of the journal, as one line a user can act on (the path, what was being done,
/// and SQLite's or the system's reason). The daemon prints it as is.
public struct JournalError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
