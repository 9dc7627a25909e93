import Foundation

extension TransferSession {
    /// Writes this session's cookies to `path` in the Netscape cookies.txt format that curl
    /// and wget read (curl's `-c`), readable only by the user (0600). Blocks until written, on
    /// the session's transfer thread (which owns the cookies); never call it from a delegate
    /// callback that the transfer thread waits for. False when the session keeps no cookies
    /// (`httpShouldSetCookies` off), has been invalidated, or the file could not be written.
    public func writeCookies(to path: String) -> Bool {
        let result = Locked<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let sent = engine.send(.writeCookies(path) { ok in
            result.withLock { $0 = ok }
            done.signal()
        })
        guard sent else { return false }
        done.wait()
        return result.withLock { $0 } ?? false
    }
}
