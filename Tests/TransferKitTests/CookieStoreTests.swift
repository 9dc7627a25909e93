import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// The cookie store per configuration kind (DECISIONS 100) against the
/// loopback server: `/cookies/set?K=V` sets session cookies, `/cookies/keep?K=V` cookies for a
/// day, `/cookies` echoes the Cookie header it got as JSON.
@Suite struct CookieStoreTests {
    private func privateDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "cookie-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func defaultConfig(_ dir: String) -> TransferConfiguration {
        var c = TransferConfiguration.default
        c.stateDirectory = dir
        return c
    }

    private func sentCookies(_ session: TransferSession, _ u: String) async throws -> String {
        let (data, _) = try await session.data(from: url(u))
        return String(decoding: data, as: UTF8.self)
    }

    @Test func twoDefaultSessionsShareThePersistentStoreWrittenWhenItChanges() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = TransferSession(configuration: defaultConfig(dir))
        let second = TransferSession(configuration: defaultConfig(dir))
        defer { first.invalidateAndCancel(); second.invalidateAndCancel() }
        #expect(first.cookieStorage === second.cookieStorage)
        _ = try await first.data(from: url("\(server.httpBase)/cookies/keep?sid=abc123"))
        _ = try await first.data(from: url("\(server.httpBase)/cookies/set?tmp=1"))
        // On disk already, before any invalidation: 0600, curl's format, the session cookie not.
        let path = dir + "/cookies.txt"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t"), "\(text)")
        #expect(text.contains("\tsid\tabc123\n"), "\(text)")
        #expect(!text.contains("tmp"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }.isEmpty)

        let echoed = try await sentCookies(second, "\(server.httpBase)/cookies")
        #expect(echoed.contains("\"sid\":\"abc123\"") && echoed.contains("\"tmp\":\"1\""), "\(echoed)")
        // The file alone (a new process's view) gives the persistent cookie.
        var fresh = CookieJar()
        fresh.merge(fileText: try String(contentsOfFile: path, encoding: .utf8), now: Date().timeIntervalSince1970)
        #expect(fresh.all.map(\.name) == ["sid"])
    }

    @Test func neverPolicyStoresNothing() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var c = defaultConfig(dir)
        c.httpCookieAcceptPolicy = .never
        c.httpCookieStorage = TransferCookieStorage.persistent(at: dir + "/never.txt")
        let session = TransferSession(configuration: c)
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url("\(server.httpBase)/cookies/keep?sid=abc"))
        #expect(session.cookieStorage.cookies.isEmpty)
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"cookie\":\"\""))
        #expect(!FileManager.default.fileExists(atPath: dir + "/never.txt"))
    }

    @Test func ephemeralSessionKeepsCookiesInMemoryOnlyAndItsOwn() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rec = Recorder()
        let session = TransferSession(configuration: ephemeralConfig { $0.stateDirectory = dir }, delegate: rec)
        _ = try await session.data(from: url("\(server.httpBase)/cookies/keep?sid=abc"))
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"sid\":\"abc\""))
        let other = TransferSession(configuration: ephemeralConfig { $0.stateDirectory = dir })
        defer { other.invalidateAndCancel() }
        #expect(other.cookieStorage !== session.cookieStorage)
        #expect(try await sentCookies(other, "\(server.httpBase)/cookies").contains("\"cookie\":\"\""))
        session.finishTasksAndInvalidate()
        try await waitUntil("invalidated") { rec.state.withLock { $0.invalidated } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "an ephemeral session writes no file")
    }

    @Test func cookiesNeverCrossToAnotherHostNotEvenByARedirect() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        _ = try await session.data(from: url("\(server.httpBase)/cookies/set?sid=secret"))
        let other = "http://localhost:\(server.httpPort)/cookies"
        #expect(try await sentCookies(session, other).contains("\"cookie\":\"\""))
        let redirected = try await sentCookies(session, "\(server.httpBase)/redirect-to?url=\(other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        #expect(!redirected.contains("secret"), "\(redirected)")
        // And back at its own host, it goes.
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"sid\":\"secret\""))
    }

    @Test func onlyFromMainDocumentDomainRefusesAThirdPartysCookies() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig { $0.httpCookieAcceptPolicy = .onlyFromMainDocumentDomain })
        defer { session.invalidateAndCancel() }
        var third = TransferRequest(url: url("\(server.httpBase)/cookies/set?tracker=1"))
        third.mainDocumentURL = url("http://localhost/page")
        _ = try await session.data(for: third)
        #expect(session.cookieStorage.cookies.isEmpty)
        var own = TransferRequest(url: url("\(server.httpBase)/cookies/set?mine=1"))
        own.mainDocumentURL = url("http://127.0.0.1/page")
        _ = try await session.data(for: own)
        #expect(session.cookieStorage.cookies.map(\.name) == ["mine"])
    }

    @Test func theAPIListsSetsAndDeletesCookies() async throws {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig())
        defer { session.invalidateAndCancel() }
        let store = session.cookieStorage
        let cookie = TransferCookie(name: "api", value: "42", domain: "127.0.0.1", path: "/cookies")
        store.setCookie(cookie)
        #expect(store.cookies.map(\.name) == ["api"])
        #expect(store.cookies(for: url("\(server.httpBase)/cookies")).map(\.name) == ["api"])
        #expect(store.cookies(for: url("\(server.httpBase)/other")).isEmpty)
        #expect(store.cookies(for: url("http://localhost:\(server.httpPort)/cookies")).isEmpty)
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"api\":\"42\""))
        store.deleteCookie(cookie)
        #expect(store.cookies.isEmpty)
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"cookie\":\"\""))
    }

    @Test func httpShouldSetCookiesOffAndARequestOptingOut() async throws {
        let server = try await TestServer.get()
        let off = TransferSession(configuration: ephemeralConfig { $0.httpShouldSetCookies = false })
        defer { off.invalidateAndCancel() }
        off.cookieStorage.setCookie(TransferCookie(name: "api", value: "1", domain: "127.0.0.1"))
        _ = try await off.data(from: url("\(server.httpBase)/cookies/set?sid=1"))
        #expect(off.cookieStorage.cookies.map(\.name) == ["api"])
        #expect(try await sentCookies(off, "\(server.httpBase)/cookies").contains("\"cookie\":\"\""))

        let on = TransferSession(configuration: ephemeralConfig())
        defer { on.invalidateAndCancel() }
        var request = TransferRequest(url: url("\(server.httpBase)/cookies/set?sid=1"))
        request.httpShouldHandleCookies = false
        _ = try await on.data(for: request)
        #expect(on.cookieStorage.cookies.isEmpty)
    }

    @Test func aCorruptStoreFileIsKeptAsideAndTheRestRead() async throws {
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/cookies.txt"
        let good = "127.0.0.1\tFALSE\t/\tFALSE\t\(Int(Date().timeIntervalSince1970) + 3600)\tsid\tabc\n"
        try ("garbage line\n" + good).write(toFile: path, atomically: true, encoding: .utf8)
        let store = TransferCookieStorage.persistent(at: path)
        #expect(store.cookies.map(\.name) == ["sid"])
        #expect(store.problem?.contains("skipped 1 unreadable line") == true)
        #expect(try String(contentsOfFile: path + ".corrupt", encoding: .utf8).contains("garbage line"))
        store.setCookie(TransferCookie(name: "b", value: "2", domain: "127.0.0.1", expires: Date().timeIntervalSince1970 + 3600))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\tsid\tabc") && text.contains("\tb\t2"), "\(text)")
    }
}

extension CookieStoreTests {
    /// The system's list (Debian's `publicsuffix`, a dependency of libcurl's libpsl) is read.
    @Test func theSystemPublicSuffixListRefusesASupercookie() throws {
        let list = try #require(TransferCookieStorage.publicSuffixes)
        #expect(list.isPublicSuffix("co.uk") && list.isPublicSuffix("github.io") && !list.isPublicSuffix("example.co.uk"))
        let store = TransferCookieStorage()
        store.setCookies(fromSetCookieHeaders: ["sid=1; Domain=co.uk", "ok=1; Domain=example.co.uk"],
                         for: url("http://www.example.co.uk/"), mainDocumentURL: nil)
        #expect(store.cookies.map(\.name) == ["ok"])
    }
}

extension CookieStoreTests {
    func inode(_ path: String) throws -> UInt64 {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    /// Each change of a persistent cookie is written at once (a new file renamed into place);
    /// an expiry renewed within the same minute is not a change worth a write.
    @Test func writesFollowChangesNotRefreshes() throws {
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/cookies.txt"
        let store = TransferCookieStorage.persistent(at: path)
        let base = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 3600
        store.setCookie(TransferCookie(name: "a", value: "1", domain: "h.test", expires: base))
        let first = try inode(path)
        store.setCookie(TransferCookie(name: "a", value: "1", domain: "h.test", expires: base + 30))
        #expect(try inode(path) == first, "a refresh within the minute writes nothing")
        store.setCookie(TransferCookie(name: "a", value: "2", domain: "h.test", expires: base + 30))
        #expect(try inode(path) != first)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\ta\t2\n"))
        let second = try inode(path)
        store.setCookie(TransferCookie(name: "s", value: "1", domain: "h.test"))
        #expect(try inode(path) == second, "a session cookie is not written")
        store.deleteCookie(TransferCookie(name: "a", value: "", domain: "h.test"))
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("\ta\t"))
    }

    /// DECISIONS 109: a session's cookie files stay in its own layer: sent, written by
    /// `writeCookies` with what servers set during the session, never added to the shared
    /// persistent store (nor seen by another default session). `writeCookies` answers after
    /// the session is invalidated too (it never waits for the engine).
    @Test func cookieFilesStayInTheSessionAndWriteCookiesAnswersAfterInvalidation() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/given.txt"
        try "127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tgiven\tsecret1\n".write(toFile: file, atomically: true, encoding: .utf8)
        var c = defaultConfig(dir)
        c.cookieFiles = [file]
        let session = TransferSession(configuration: c)
        #expect(try await sentCookies(session, "\(server.httpBase)/cookies").contains("\"given\":\"secret1\""))
        _ = try await session.data(from: url("\(server.httpBase)/cookies/keep?srv=2"))
        #expect(!session.cookieStorage.cookies.contains { $0.name == "given" })
        let store = (try? String(contentsOfFile: dir + "/cookies.txt", encoding: .utf8)) ?? ""
        #expect(store.contains("\tsrv\t2") && !store.contains("secret1"), "\(store)")
        let other = TransferSession(configuration: defaultConfig(dir))
        defer { other.invalidateAndCancel() }
        #expect(!(try await sentCookies(other, "\(server.httpBase)/cookies")).contains("secret1"))

        session.invalidateAndCancel()
        let jar = dir + "/jar.txt"
        #expect(session.writeCookies(to: jar))
        let text = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(text.contains("\tgiven\tsecret1") && text.contains("\tsrv\t2"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: jar)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}
