import Foundation

extension TransferSession {
    /// Writes this session's own cookies (those of its `cookieFiles` and those servers set
    /// during the session, DECISIONS 109) to `path` in the Netscape cookies.txt format that
    /// curl and wget read (curl's `-c`), session cookies included, readable only by the user
    /// (a 0600 temporary file renamed over `path`). False when the file could not be written.
    /// Synchronous and independent of the engine: it answers after invalidation too.
    public func writeCookies(to path: String) -> Bool {
        engine.cookies.own.write(to: path)
    }
}
