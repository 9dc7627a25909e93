import Foundation

extension TransferSession {
    /// Writes the cookies of this session's store to `path` in the Netscape cookies.txt format
    /// that curl and wget read (curl's `-c`), session cookies included, readable only by the
    /// user (0600), atomically. False when the file could not be written.
    public func writeCookies(to path: String) -> Bool {
        cookieStorage.write(to: path)
    }
}
