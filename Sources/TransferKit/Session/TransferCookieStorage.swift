import BackgroundWire
import Foundation

/// A cookie store, as Foundation's `HTTPCookieStorage` (DECISIONS 100):
/// thread-safe, shared by the sessions given it. `default` (and background) sessions share one
/// persistent store per file, `$XDG_DATA_HOME/transfertop/cookies.txt` (or the configured state
/// directory's): read on first use, written atomically (a private temporary file renamed over
/// the old one, 0600) each time its persistent cookies change, merged with what another
/// process wrote meanwhile. Session cookies (no expiry) stay in memory, as Apple's and a
/// browser's. An `ephemeral` session gets a store of its own in memory, gone with the session.
public final class TransferCookieStorage: @unchecked Sendable, Equatable {
    // @unchecked: every mutable field is behind `state`.

    /// The file of a persistent store; nil: memory only.
    public let path: String?
    private let state: Locked<State>

    struct State {
        var jar = CookieJar()
        var loaded = false
        var policy: CookieAcceptPolicy = .always
        /// Why the file could not be read or written, the last time it could not.
        var problem: String?
    }

    /// A store in memory only.
    public init() {
        path = nil
        state = Locked(State(loaded: true))
    }

    private init(path: String) {
        self.path = path
        state = Locked(State())
    }

    public static func == (a: TransferCookieStorage, b: TransferCookieStorage) -> Bool { a === b }

    private static let registry = Locked<[String: TransferCookieStorage]>([:])

    /// The process's one store for the file at `path`: every default session using that file
    /// shares it (and so sees the others' cookies at once).
    public static func persistent(at path: String) -> TransferCookieStorage {
        registry.withLock { r in
            if let s = r[path] { return s }
            let s = TransferCookieStorage(path: path)
            r[path] = s
            return s
        }
    }

    /// The store of default sessions without a state directory of their own:
    /// `$XDG_DATA_HOME/transfertop/cookies.txt`. nil without a home directory.
    public static var shared: TransferCookieStorage? {
        StatePaths.dataDirectory(nil).map { persistent(at: $0 + "/cookies.txt") }
    }

    /// The store a session with `configuration` uses when it names none.
    static func forConfiguration(_ configuration: TransferConfiguration) -> TransferCookieStorage {
        if let s = configuration.httpCookieStorage { return s }
        if case .ephemeral = configuration.kind { return TransferCookieStorage() }
        guard let dir = StatePaths.dataDirectory(configuration.stateDirectory) else { return TransferCookieStorage() }
        return persistent(at: dir + "/cookies.txt")
    }

    /// HTTPCookieStorage's `cookieAcceptPolicy`: the policy of the API's `setCookies(_:for:
    /// mainDocumentURL:)`. Sessions use their configuration's `httpCookieAcceptPolicy`.
    public var cookieAcceptPolicy: CookieAcceptPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// The last problem reading or writing the file (a corrupt line skipped, a directory that
    /// cannot be written), for a one-line warning; nil when there was none.
    public var problem: String? { state.withLock { load(&$0); return $0.problem } }

    // MARK: HTTPCookieStorage's API

    /// Every cookie that has not expired.
    public var cookies: [TransferCookie] {
        let now = Self.now
        return state.withLock { s in
            load(&s)
            return s.jar.all.filter { !$0.isExpired(now: now) }
        }
    }

    /// The cookies a request to `url` sends.
    public func cookies(for url: URL) -> [TransferCookie] {
        let now = Self.now
        return state.withLock { s in
            load(&s)
            return s.jar.cookies(for: url, now: now)
        }
    }

    /// Stores a cookie (replacing its namesake); one that has expired deletes it.
    public func setCookie(_ cookie: TransferCookie) {
        var c = cookie
        if c.created == 0 { c.created = Self.now }
        change { $0.set(c, now: Self.now) }
    }

    public func deleteCookie(_ cookie: TransferCookie) {
        change { $0.delete(cookie.key) }
    }

    /// Deletes every cookie.
    public func removeAllCookies() {
        change { jar in
            let keys = Array(jar.cookies.keys)
            for k in keys { jar.delete(k) }
            return !keys.isEmpty
        }
    }

    /// HTTPCookieStorage's `setCookies(_:for:mainDocumentURL:)`: cookies from a response
    /// header of `url`, under the store's `cookieAcceptPolicy`.
    public func setCookies(fromSetCookieHeaders headers: [String], for url: URL, mainDocumentURL: URL?) {
        receive(headers, from: url, mainDocumentURL: mainDocumentURL, policy: cookieAcceptPolicy)
    }

    // MARK: for sessions

    /// The Cookie header value for a request to `url`.
    func cookieHeader(for url: URL) -> String? {
        let now = Self.now
        return state.withLock { s in
            load(&s)
            return s.jar.cookieHeader(for: url, now: now)
        }
    }

    /// Set-Cookie values of a response from `url`, under `policy`.
    /// `onlyFromMainDocumentDomain` keeps a cookie only when the main document's host is within
    /// the cookie's domain (without a main document, as Apple's, the response's URL is it).
    func receive(_ values: [String], from url: URL, mainDocumentURL: URL?, policy: CookieAcceptPolicy) {
        guard policy != .never, !values.isEmpty else { return }
        let now = Self.now
        let suffixes = Self.publicSuffixes
        let parsed = values.compactMap { CookieRules.parse(setCookie: $0, from: url, now: now, publicSuffixes: suffixes) }
        let accepted = parsed.filter { c in
            guard policy == .onlyFromMainDocumentDomain, let main = (mainDocumentURL ?? url).host else { return true }
            return CookieRules.domainMatches(host: CookieRules.normalizedDomain(main), domain: c.domain)
        }
        guard !accepted.isEmpty else { return }
        change { jar in accepted.reduce(false) { jar.set($1, now: now) || $0 } }
    }

    /// Reads a `-b FILE` (cookies.txt, or Set-Cookie lines standing for `origin`). Returns the
    /// numbers of the lines skipped, nil when the file could not be read.
    public func importFile(_ file: String, origin: URL? = nil) -> [Int]? {
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() ?? Data() else { return nil }
        var incoming = CookieJar()
        let skipped = incoming.merge(fileData: data, now: Self.now, origin: origin)
        change { jar in incoming.all.reduce(false) { jar.set($1, now: Self.now) || $0 } }
        return skipped
    }

    /// Writes every cookie, session cookies too, to `file` in the Netscape format (curl's `-c`),
    /// 0600, atomically. False when it could not.
    public func write(to file: String) -> Bool {
        let text = state.withLock { s -> String in
            load(&s)
            return s.jar.netscapeText(now: Self.now, includeSession: true)
        }
        // A jar that names a device or a pipe (`-c /dev/null`) is written into (StreamTarget).
        switch StreamTarget.write(Array(text.utf8), to: file) {
        case .written: return true
        case .failed: return false
        case .notStream: return PrivateFile.replace(file, with: Array(text.utf8))
        }
    }

    /// The system's public suffix list (Debian's `publicsuffix`, which libcurl's libpsl uses),
    /// read once; nil where it is missing (then a Domain needs a dot, DECISIONS 100).
    static let publicSuffixes: PublicSuffixList? = {
        for path in ["/usr/share/publicsuffix/public_suffix_list.dat", "/usr/share/publicsuffix/effective_tld_names.dat"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                let list = PublicSuffixList(text: text)
                if !list.isEmpty { return list }
            }
        }
        return nil
    }()

    // MARK: the file

    static var now: Double { Date().timeIntervalSince1970 }

    private func change(_ body: (inout CookieJar) -> Bool) {
        state.withLock { s in
            load(&s)
            let before = path == nil ? [] : Self.fileSignature(s.jar)
            guard body(&s.jar), let path else { return }
            // Only persistent cookies reach the file: a session cookie's change writes nothing,
            // nor does a server refreshing an expiry by less than a minute (a cookie renewed
            // with every response of a long list would otherwise cost a write each).
            if Self.fileSignature(s.jar) == before { return }
            save(&s, path)
        }
    }

    /// What the file would say, expiries to the minute.
    static func fileSignature(_ jar: CookieJar) -> [TransferCookie] {
        jar.all.filter { !$0.isSessionOnly }.map { c in
            var c = c
            c.expires = c.expires.map { ($0 / 60).rounded(.down) * 60 }
            c.created = 0
            return c
        }
    }

    private func load(_ s: inout State) {
        guard !s.loaded else { return }
        s.loaded = true
        guard let path, FileManager.default.fileExists(atPath: path) else { return }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            s.problem = "cannot read the cookie store '\(SafeQuote.quote(path))'; it is kept and not written"
            return
        }
        let skipped = s.jar.merge(fileText: text, now: Self.now)
        if skipped > 0 {
            // Never lose what we could not read: a copy stays beside the store.
            let copy = path + ".corrupt"
            _ = PrivateFile.replace(copy, with: Array(text.utf8))
            s.problem = "skipped \(skipped) unreadable line\(skipped == 1 ? "" : "s") of the cookie store '\(SafeQuote.quote(path))' (a copy is in '\(SafeQuote.quote(copy))')"
        }
    }

    /// Merged with the file as another process may have left it, then written.
    private func save(_ s: inout State, _ path: String) {
        if s.problem?.hasPrefix("cannot read") == true { return }
        let now = Self.now
        var merged = s.jar
        if let onDisk = try? String(contentsOfFile: path, encoding: .utf8) {
            var theirs = CookieJar()
            theirs.merge(fileText: onDisk, now: now)
            merged.adoptMissing(from: theirs)
            s.jar = merged
        }
        if !PrivateFile.replace(path, with: Array(merged.netscapeText(now: now, includeSession: false).utf8)) {
            s.problem = "cannot write the cookie store '\(SafeQuote.quote(path))'"
        }
    }
}
