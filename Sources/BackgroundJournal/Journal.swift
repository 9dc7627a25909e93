import Foundation
import GRDB

/// The background-session journal: sessions, their submissions and tasks, the events
/// clients are told, and how far each client has acknowledged them, in one SQLite file in WAL
/// mode. Every write is one transaction committed before the call returns, so whatever the
/// daemon acknowledges survives its crash; readers (a second process, `transfertop status`)
/// never block the writer.
public final class Journal: Sendable {
    public let path: String
    let pool: DatabasePool

    init(path: String, pool: DatabasePool) {
        self.path = path
        self.pool = pool
    }

    /// Checkpoints the WAL into the file and closes the connections; later calls fail.
    /// Dropping the journal closes too, but may leave the WAL's pages outside the main file
    /// (the pool's last connection to close is a reader, which does not checkpoint). The
    /// checkpoint is best effort: another process reading the file may hold it back, and the
    /// WAL is as durable as the file.
    public func close() throws(JournalError) {
        try run("close") {
            _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
        }
    }

    /// GRDB's and SQLite's errors as one line naming the journal and what was being done.
    func run<T>(_ what: String, _ body: () throws -> T) throws(JournalError) -> T {
        do { return try body() } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError("journal \(path): \(what): \(error)")
        }
    }

    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(JournalError) -> T {
        try run(what) { try pool.write(body) }
    }

    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(JournalError) -> T {
        try run(what) { try pool.read(body) }
    }
}
