import Foundation
import GRDB

extension Journal {
    /// Opens (creating) the journal at `path`: directory created 0700 if missing, file 0600,
    /// WAL mode (`PRAGMA journal_mode=WAL`), schema migrated with GRDB's DatabaseMigrator.
    /// A file that is not a readable journal (garbage, truncated, a future schema version) is
    /// never deleted: it is renamed aside to `<path>.corrupt-<UTC yyyyMMdd-HHmmss>` (with its
    /// -wal/-shm) and a new journal is created; `notice` then says so in one line naming the
    /// moved file. Unwritable directory etc.: throws JournalError with a clear message.
    public static func open(at path: String) throws(JournalError) -> (journal: Journal, notice: String?) {
        try JournalFiles.makeDirectory(for: path)
        try JournalFiles.createPrivateFile(path)
        switch attempt(path) {
        case .opened(let pool):
            return (Journal(path: path, pool: pool), nil)
        case .failed(let error):
            throw error
        case .unreadable(let reason):
            let moved = try JournalFiles.moveAside(path)
            try JournalFiles.createPrivateFile(path)
            switch attempt(path) {
            case .opened(let pool):
                let notice = "journal \(path) was not readable (\(reason)); moved it to \(moved) and started a new one"
                return (Journal(path: path, pool: pool), notice)
            case .failed(let error):
                throw error
            case .unreadable(let again):
                throw JournalError("journal \(path): a new journal is not readable either (\(again))")
            }
        }
    }

    private enum Attempt {
        case opened(DatabasePool)
        /// The file is not a journal this build can use: move it aside.
        case unreadable(String)
        /// Anything else (permissions, a full disk, a lock held past the busy timeout): the
        /// file may be fine, so it is left where it is and the caller is told.
        case failed(JournalError)
    }

    private static func attempt(_ path: String) -> Attempt {
        do {
            if let reason = try inspect(path) { return .unreadable(reason) }
            let pool = try DatabasePool(path: path, configuration: configuration())
            try migrate(pool)
            return .opened(pool)
        } catch let error as DatabaseError where isDamage(error) {
            return .unreadable(error.message ?? "\(error.resultCode)")
        } catch {
            return .failed(JournalError("journal \(path): cannot open: \(error)"))
        }
    }

    /// Checks the file through a read-only connection first: opening the pool switches the
    /// file to WAL, and a file that is moved aside must keep the bytes it had.
    private static func inspect(_ path: String) throws -> String? {
        let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
        defer { try? queue.close() }
        return try queue.read(JournalSchema.unreadableReason)
    }

    /// Two processes creating one journal at once may both find it unmigrated; the second
    /// one's `CREATE TABLE` then fails, and the schema the first one made is what it wanted.
    private static func migrate(_ pool: DatabasePool) throws {
        do { try JournalSchema.migrator.migrate(pool) } catch {
            if try !pool.read(JournalSchema.migrator.hasCompletedMigrations) { throw error }
        }
        // Without them the journal works (slower without the index; a limit's write makes the
        // table itself): a full disk or a lock held past the busy timeout leaves them for the
        // next open. Damage still reads as damage. Apart, so an index that cannot be built (a
        // large journal on a full disk) does not take the small table with it.
        for sql in [JournalSchema.optionalTables, JournalSchema.indexes] {
            do { try pool.write { try $0.execute(sql: sql) } } catch let error as DatabaseError where isDamage(error) {
                throw error
            } catch {}
        }
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    private static func configuration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.label = "BackgroundJournal"
        config.readonly = readonly
        // The daemon and a `transfertop status` may touch the file at once: wait for the other
        // process's transaction rather than fail with SQLITE_BUSY.
        config.busyMode = .timeout(5)
        return config
    }
}
