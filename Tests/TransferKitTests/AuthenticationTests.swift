import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// Answers every task-level challenge with one disposition and credential, and records what
/// it was shown.
final class ChallengeAnswerer: TransferTaskDelegate, @unchecked Sendable {
    // @unchecked: `seen` is Locked; the rest is immutable.
    let disposition: AuthChallengeDisposition
    let credential: TransferCredential?
    let seen = Locked<[AuthenticationChallenge]>([])

    init(_ disposition: AuthChallengeDisposition, _ credential: TransferCredential? = nil) {
        self.disposition = disposition
        self.credential = credential
    }

    func session(_ session: TransferSession, task: TransferTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        seen.withLock { $0.append(challenge) }
        completionHandler(disposition, credential)
    }
}

/// The challenge step of the task life cycle against the loopback server's Basic
/// and Digest routes (`/auth/SCHEME/USER/PASS`) and its proxy route.
@Suite struct AuthenticationTests {
    func run(_ path: String, _ answerer: ChallengeAnswerer, configure: (inout TransferConfiguration) -> Void = { _ in })
        async throws -> (Result<(Data, TransferResponse), TransferError>, [AuthenticationChallenge]) {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig(configure), delegate: answerer)
        defer { session.invalidateAndCancel() }
        let result: Result<(Data, TransferResponse), TransferError>
        do { result = .success(try await session.data(from: url(server.httpBase + path))) } catch { result = .failure(error) }
        return (result, answerer.seen.withLock { $0 })
    }

    static let right = TransferCredential(user: "alice", password: "wonderland", persistence: .forSession)
    static let wrong = TransferCredential(user: "alice", password: "nope", persistence: .forSession)

    @Test(arguments: ["basic", "digest"])
    func theRightPasswordSucceedsAfterOneChallenge(scheme: String) async throws {
        let (result, seen) = try await run("/auth/\(scheme)/alice/wonderland", ChallengeAnswerer(.useCredential, Self.right))
        let (data, response) = try result.get()
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "authenticated as alice\n")
        #expect(seen.count == 1)
        let space = try #require(seen.first?.protectionSpace)
        #expect(space.authenticationMethod == (scheme == "basic" ? .httpBasic : .httpDigest))
        #expect(space.realm == AuthRoutes.realm && space.host == "127.0.0.1" && space.protocol == "http" && !space.isProxy)
        #expect(seen.first?.previousFailureCount == 0 && seen.first?.proposedCredential == nil)
        #expect(seen.first?.failureResponse?.statusCode == 401)
    }

    /// A wrong password: each refusal counts, the delegate is asked 5 times, then the 401 (and
    /// its body) is the task's response: no loop, no error.
    @Test(arguments: ["basic", "digest"])
    func aWrongPasswordCountsFailuresThenEndsWithThe401(scheme: String) async throws {
        let (result, seen) = try await run("/auth/\(scheme)/alice/wonderland", ChallengeAnswerer(.useCredential, Self.wrong))
        let (data, response) = try result.get()
        #expect(response.statusCode == 401)
        #expect(String(decoding: data, as: UTF8.self) == "authentication required\n")
        #expect(seen.map(\.previousFailureCount) == Array(0..<SessionCredentials.maximumChallenges))
        #expect(seen.dropFirst().allSatisfy { $0.proposedCredential == Self.wrong })
    }

    /// `performDefaultHandling` takes the store's credential, sent before any challenge to its
    /// own origin; refused once, it is not tried again.
    @Test func defaultHandlingUsesTheStoreOnceThenGivesThe401() async throws {
        let store = CredentialStore()
        let server = try await TestServer.get()
        let port = try #require(URL(string: server.httpBase)?.port)
        store.set(Self.wrong, for: ProtectionSpace(host: "127.0.0.1", port: port, protocol: "http", realm: AuthRoutes.realm,
                                                   authenticationMethod: .httpBasic))
        let (result, seen) = try await run("/auth/basic/alice/wonderland", ChallengeAnswerer(.performDefaultHandling)) {
            $0.credentialStore = store
        }
        #expect(try result.get().1.statusCode == 401)
        #expect(seen.map(\.previousFailureCount) == [1])
    }

    /// A credential given with `.forSession` is kept in the session's store: the next task to
    /// that server sends it without a challenge.
    @Test func aForSessionCredentialServesTheNextTaskWithoutAChallenge() async throws {
        let server = try await TestServer.get()
        let answerer = ChallengeAnswerer(.useCredential, Self.right)
        let session = TransferSession(configuration: ephemeralConfig(), delegate: answerer)
        defer { session.invalidateAndCancel() }
        let first = try await session.data(from: url(server.httpBase + "/auth/basic/alice/wonderland"))
        let second = try await session.data(from: url(server.httpBase + "/auth/basic/alice/wonderland"))
        #expect(first.1.statusCode == 200 && second.1.statusCode == 200)
        #expect(answerer.seen.withLock { $0.count } == 1)
        // Another ephemeral session has a store of its own: it is asked again.
        let other = ChallengeAnswerer(.rejectProtectionSpace)
        let fresh = TransferSession(configuration: ephemeralConfig(), delegate: other)
        defer { fresh.invalidateAndCancel() }
        #expect(try await fresh.data(from: url(server.httpBase + "/auth/basic/alice/wonderland")).1.statusCode == 401)
        #expect(other.seen.withLock { $0.count } == 1)
    }

    @Test func cancelFailsTheTaskAndRejectDeliversThe401() async throws {
        let (cancelled, _) = try await run("/auth/basic/alice/wonderland", ChallengeAnswerer(.cancelAuthenticationChallenge))
        guard case .failure(let e) = cancelled else { Issue.record("a cancelled challenge succeeded"); return }
        #expect(e.code == .cancelled)
        let (rejected, seen) = try await run("/auth/digest/alice/wonderland", ChallengeAnswerer(.rejectProtectionSpace))
        #expect(try rejected.get().1.statusCode == 401)
        #expect(String(decoding: try rejected.get().0, as: UTF8.self) == "authentication required\n")
        #expect(seen.count == 1 && seen.first?.protectionSpace.authenticationMethod == .httpDigest)
    }

    /// A plain HTTP proxy's 407 is a challenge of the proxy's space; its credential goes to
    /// the proxy (Proxy-Authorization), never to the server.
    @Test func aProxy407IsAChallengeOfTheProxy() async throws {
        let server = try await TestServer.get()
        let proxy = TransferCredential(user: AuthRoutes.proxyUser, password: AuthRoutes.proxyPassword, persistence: .none)
        let marker = UUID().uuidString
        let (result, seen) = try await run("/headers?m=\(marker)", ChallengeAnswerer(.useCredential, proxy)) { $0.proxy = server.httpBase }
        let (data, response) = try result.get()
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).lowercased().contains("proxy-authorization"))
        let space = try #require(seen.first?.protectionSpace)
        #expect(space.isProxy && space.realm == AuthRoutes.proxyRealm && space.authenticationMethod == .httpBasic && seen.count == 1)
        let sent = server.stats.requests.filter { $0.path.contains(marker) }
        #expect(sent.map { $0.header("Proxy-Authorization") != nil } == [false, true])
        #expect(sent.allSatisfy { $0.header("Authorization") == nil })
    }

    /// A credential stored for one origin is sent there, and not to another host a redirect
    /// names (DECISIONS 90).
    @Test func aStoredCredentialDoesNotFollowARedirectToAnotherHost() async throws {
        let server = try await TestServer.get()
        let port = try #require(URL(string: server.httpBase)?.port)
        let store = CredentialStore()
        store.set(Self.right, for: ProtectionSpace(host: "127.0.0.1", port: port, protocol: "http", realm: nil,
                                                   authenticationMethod: .httpBasic))
        let marker = "m=\(UUID().uuidString)"
        let other = "http://localhost:\(port)/headers?\(marker)"
        let start = "/redirect-to?url=" + other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&" + marker
        let (result, _) = try await run(start, ChallengeAnswerer(.rejectProtectionSpace)) { $0.credentialStore = store }
        #expect(try result.get().1.statusCode == 200)
        let first = try #require(server.stats.requests.last { $0.path.hasPrefix("/redirect-to") && $0.path.contains(marker) })
        let hop = try #require(server.stats.requests.last { $0.path.hasPrefix("/headers") && $0.path.contains(marker) })
        #expect(first.header("Authorization")?.hasPrefix("Basic ") == true)
        #expect(hop.header("Authorization") == nil)
    }
}

/// Persistence across sessions: a `.permanent` answer in a default session reaches the state
/// directory only as its 0600 netrc, and a later default session with that state directory
/// (a later run: a fresh store reading the file) is served without being asked.
@Suite struct PermanentCredentialTests {
    @Test func aPermanentAnswerIsKeptOnlyInTheNetrcAndServesALaterRun() async throws {
        let server = try await TestServer.get()
        let dir = try privateDirectory("perm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = dir + "/state"
        let password = "perm-\(UUID().uuidString.prefix(8))"
        let target = url(server.httpBase + "/auth/basic/pat/\(password)")
        var configuration = TransferConfiguration.default
        configuration.stateDirectory = state
        let answerer = ChallengeAnswerer(.useCredential, TransferCredential(user: "pat", password: password, persistence: .permanent))
        let session = TransferSession(configuration: configuration, delegate: answerer)
        #expect(try await session.data(from: target).1.statusCode == 200)
        session.invalidateAndCancel()
        let netrc = state + "/netrc"
        #expect(try FileManager.default.attributesOfItem(atPath: netrc)[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: netrc, encoding: .utf8) == "machine 127.0.0.1 login pat password \(password)\n")
        // Nothing else in the state directory holds it.
        for name in try FileManager.default.subpathsOfDirectory(atPath: state) where name != "netrc" {
            let data = FileManager.default.contents(atPath: state + "/" + name) ?? Data()
            #expect(!String(decoding: data, as: UTF8.self).contains(password), "\(name)")
        }
        // A later run: its own store, read from the file.
        configuration.credentialStore = CredentialStore(netrcPath: netrc)
        let later = ChallengeAnswerer(.rejectProtectionSpace)
        let next = TransferSession(configuration: configuration, delegate: later)
        defer { next.invalidateAndCancel() }
        #expect(try await next.data(from: target).1.statusCode == 200)
        #expect(later.seen.withLock { $0.isEmpty })
    }
}

/// The credential store's permanent level: a netrc only the user can read (DECISIONS 89).
@Suite struct CredentialStoreTests {
    let space = ProtectionSpace(host: "example.org", port: 443, protocol: "https", realm: nil, authenticationMethod: .httpBasic)

    @Test func permanentCredentialsGoToANetrcOnlyTheUserCanRead() throws {
        let dir = try privateDirectory("netrc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state/netrc"
        let store = CredentialStore(netrcPath: path)
        store.set(TransferCredential(user: "u", password: "kept in memory", persistence: .forSession), for: space)
        store.set(TransferCredential(user: "v", password: "once", persistence: .none), for: space)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(store.credential(for: space)?.password == "kept in memory")
        store.set(TransferCredential(user: "u", password: "p w\"x", persistence: .permanent), for: space)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let parent = try FileManager.default.attributesOfItem(atPath: dir + "/state")
        #expect(parent[.posixPermissions] as? Int == 0o700)
        // curl's netrc syntax, quoted where the password needs it; read back by a new store.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "machine example.org login u password \"p w\\\"x\"\n")
        #expect(CredentialStore(netrcPath: path).credential(for: space)?.password == "p w\"x")
        // netrc has no port: the entry serves any port of its host, as curl's.
        var other = space
        other.port = 8443
        #expect(CredentialStore(netrcPath: path).credential(for: other)?.user == "u")
        // Removing it removes it from the file too.
        let again = CredentialStore(netrcPath: path)
        again.remove(for: other)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "")
        #expect(CredentialStore(netrcPath: path).credential(for: space) == nil)
    }

    @Test func aNetrcOthersCanReadIsIgnored() throws {
        let dir = try privateDirectory("netrc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/netrc"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("machine example.org login u password p\n".utf8),
                                       attributes: [.posixPermissions: 0o644]))
        #expect(CredentialStore(netrcPath: path).credential(for: space) == nil)
        chmod(path, 0o600)
        #expect(CredentialStore(netrcPath: path).credential(for: space)?.user == "u")
    }

    @Test(arguments: [
        ("machine a login u password p\nmachine b login v password q", [Netrc.Entry(machine: "a", login: "u", password: "p"),
                                                                       Netrc.Entry(machine: "b", login: "v", password: "q")]),
        ("machine a\n  login u\n  password \"two words\"\ndefault login x password y", [Netrc.Entry(machine: "a", login: "u", password: "two words")]),
        ("", []),
    ] as [(String, [Netrc.Entry])])
    func netrcParsing(_ text: String, _ expected: [Netrc.Entry]) {
        #expect(Netrc.parse(text) == expected)
    }
}

/// Answers server-trust challenges, records the chains it was shown and the tasks' metrics.
final class TrustAnswerer: TransferTaskDelegate, @unchecked Sendable {
    // @unchecked: `seen` and `metrics` are Locked; `disposition` is immutable.
    let disposition: AuthChallengeDisposition
    let seen = Locked<[AuthenticationChallenge]>([])
    let metrics = Locked<[TaskMetrics]>([])
    init(_ disposition: AuthChallengeDisposition) { self.disposition = disposition }

    func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        seen.withLock { $0.append(challenge) }
        completionHandler(disposition, nil)
    }

    func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {
        self.metrics.withLock { $0.append(metrics) }
    }
}

/// The session-level server-trust hook sees the chain of a server that did not
/// verify (the loopback server's self-signed identity, its CA not given) and decides.
@Suite struct ServerTrustTests {
    @Test func trustedByTheDelegateSucceedsIsRememberedAndRecordedAsNotVerified() async throws {
        let server = try await TestServer.get()
        let answerer = TrustAnswerer(.useCredential)
        let s = TransferSession(configuration: .ephemeral, delegate: answerer)
        defer { s.invalidateAndCancel() }
        let (data, response) = try await s.data(from: url(server.httpsBase + "/bytes/64"))
        #expect(response.statusCode == 200 && data.count == 64)
        let (_, again) = try await s.data(from: url(server.httpsBase + "/bytes/32"))
        #expect(again.statusCode == 200)
        let seen = answerer.seen.withLock { $0 }
        #expect(seen.count == 1)
        let trust = try #require(seen.first?.serverTrust)
        #expect(seen.first?.protectionSpace.authenticationMethod == .serverTrust)
        #expect(trust.host == "localhost" && trust.certificates.count == 1 && trust.reason.contains("certificate"))
        let body = { (pem: String) in pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined() }
        #expect(body(trust.certificates[0]) == body(LoopbackServer.caCertificatePEM))
        // The first task: the refused hop and the trusted retry (the probe leaves no record),
        // the retry marked as not verified; the second task goes straight to the exception.
        try await waitUntil("both tasks' metrics") { answerer.metrics.withLock { $0.count } == 2 }
        let hops = answerer.metrics.withLock { $0.map { $0.transactionMetrics.map(\.isTLSVerified) } }
        #expect(hops == [[true, false], [false]], "\(hops)")
    }

    @Test(arguments: [AuthChallengeDisposition.performDefaultHandling, .rejectProtectionSpace, .cancelAuthenticationChallenge])
    func anyOtherAnswerFailsTheTask(_ answer: AuthChallengeDisposition) async throws {
        let server = try await TestServer.get()
        let answerer = TrustAnswerer(answer)
        let s = TransferSession(configuration: .ephemeral, delegate: answerer)
        defer { s.invalidateAndCancel() }
        do {
            _ = try await s.data(from: url(server.httpsBase + "/bytes/64"))
            Issue.record("an untrusted server was accepted")
        } catch {
            #expect(error.code == (answer == .cancelAuthenticationChallenge ? .cancelled : .serverCertificateUntrusted))
        }
        #expect(answerer.seen.withLock { $0.count } == 1)
    }

    /// A configured pin is the caller's rule: no challenge, no exception.
    @Test func configuredPinsAreNeverReplacedByTheDelegate() async throws {
        let server = try await TestServer.get()
        let answerer = TrustAnswerer(.useCredential)
        var configuration = TransferConfiguration.ephemeral
        configuration.pinnedPublicKeys = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let s = TransferSession(configuration: configuration, delegate: answerer)
        defer { s.invalidateAndCancel() }
        await #expect(throws: TransferError.self) { _ = try await s.data(from: url(server.httpsBase + "/bytes/64")) }
        #expect(answerer.seen.withLock { $0.count } == 0)
    }
}
