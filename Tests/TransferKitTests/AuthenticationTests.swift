import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// Answers every challenge with one credential and records what it was shown.
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

/// SPEC S12: the challenge step of the task life cycle against the loopback server's Basic,
/// Digest and proxy routes.
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
    func rightPasswordSucceedsAfterOneChallenge(scheme: String) async throws {
        let (result, seen) = try await run("/\(scheme)/alice/wonderland", ChallengeAnswerer(.useCredential, Self.right))
        let (data, response) = try result.get()
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).lowercased().contains("authorization"))
        #expect(seen.count == 1)
        let space = try #require(seen.first?.protectionSpace)
        #expect(space.authenticationMethod == (scheme == "basic" ? .httpBasic : .httpDigest))
        #expect(space.realm == AuthRoutes.realm && space.host == "127.0.0.1" && space.protocol == "http" && !space.isProxy)
        #expect(seen.first?.previousFailureCount == 0)
    }

    @Test(arguments: ["basic", "digest"])
    func wrongPasswordCountsFailuresThenEndsWithThe401(scheme: String) async throws {
        let (result, seen) = try await run("/\(scheme)/alice/wonderland", ChallengeAnswerer(.useCredential, Self.wrong))
        let (_, response) = try result.get()
        #expect(response.statusCode == 401)
        #expect(seen.map(\.previousFailureCount) == Array(0..<TransferEngine.maximumChallenges))
        #expect(seen.last?.proposedCredential == Self.wrong)
    }

    @Test func defaultHandlingUsesTheStoreOnceThenGivesThe401() async throws {
        let store = CredentialStore()
        let server = try await TestServer.get()
        let host = URL(string: server.httpBase)!
        store.set(Self.wrong, for: ProtectionSpace(host: "127.0.0.1", port: host.port!, protocol: "http", realm: AuthRoutes.realm,
                                                   authenticationMethod: .httpBasic))
        let (result, seen) = try await run("/basic/alice/wonderland", ChallengeAnswerer(.performDefaultHandling)) { $0.credentialStore = store }
        #expect(try result.get().1.statusCode == 401)
        // Sent before any challenge (preemptive Basic), refused once: no retry with the same.
        #expect(seen.map(\.previousFailureCount) == [1])
    }

    @Test func cancelFailsAndRejectDeliversThe401() async throws {
        let (cancelled, _) = try await run("/basic/alice/wonderland", ChallengeAnswerer(.cancelAuthenticationChallenge))
        #expect(throws: TransferError.self) { try cancelled.get() }
        if case .failure(let e) = cancelled { #expect(e.code == .cancelled) }
        let (rejected, seen) = try await run("/digest/alice/wonderland", ChallengeAnswerer(.rejectProtectionSpace))
        #expect(try rejected.get().1.statusCode == 401)
        #expect(String(decoding: try rejected.get().0, as: UTF8.self) == "unauthorized\n")
        #expect(seen.count == 1)
    }

    @Test func proxy407IsAChallengeOfTheProxy() async throws {
        let server = try await TestServer.get()
        let proxy = TransferCredential(user: AuthRoutes.proxyUser, password: AuthRoutes.proxyPassword, persistence: .none)
        let (result, seen) = try await run("/headers", ChallengeAnswerer(.useCredential, proxy)) { $0.proxy = server.httpBase }
        let (data, response) = try result.get()
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).lowercased().contains("proxy-authorization"))
        let space = try #require(seen.first?.protectionSpace)
        #expect(space.isProxy && space.realm == "proxy" && seen.count == 1)
    }

    @Test func permanentCredentialsGoToANetrcOnlyTheUserCanRead() throws {
        let dir = NSTemporaryDirectory() + "tk-netrc-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = CredentialStore(netrcPath: dir + "/netrc")
        let space = ProtectionSpace(host: "example.org", port: 443, protocol: "https", realm: nil, authenticationMethod: .httpBasic)
        store.set(TransferCredential(user: "u", password: "p w", persistence: .forSession), for: space)
        #expect(!FileManager.default.fileExists(atPath: dir + "/netrc"))
        store.set(TransferCredential(user: "u", password: "pw", persistence: .permanent), for: space)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/netrc")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = CredentialStore(netrcPath: dir + "/netrc")
        #expect(again.credential(for: space)?.password == "pw")
    }
}

/// Answers server-trust challenges and records the chains it was shown.
final class TrustAnswerer: TransferSessionDelegate, @unchecked Sendable {
    // @unchecked: `seen` is Locked; `disposition` is immutable.
    let disposition: AuthChallengeDisposition
    let seen = Locked<[AuthenticationChallenge]>([])
    init(_ disposition: AuthChallengeDisposition) { self.disposition = disposition }

    func session(_ session: TransferSession, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, TransferCredential?) -> Void) {
        seen.withLock { $0.append(challenge) }
        completionHandler(disposition, nil)
    }
}

/// SPEC S12: the session-level server-trust hook sees the chain of a server that did not
/// verify (the loopback server's self-signed identity, its CA not given) and decides.
@Suite struct ServerTrustTests {
    func session(_ delegate: TrustAnswerer) -> TransferSession {
        TransferSession(configuration: .ephemeral, delegate: delegate)
    }

    @Test func trustedByTheDelegateSucceedsAndIsRememberedForTheSession() async throws {
        let server = try await TestServer.get()
        let answerer = TrustAnswerer(.useCredential)
        let s = session(answerer)
        defer { s.invalidateAndCancel() }
        let (data, response) = try await s.data(from: url(server.httpsBase + "/bytes/64"))
        #expect(response.statusCode == 200 && data.count == 64)
        let (_, again) = try await s.data(from: url(server.httpsBase + "/bytes/32"))
        #expect(again.statusCode == 200)
        let seen = answerer.seen.withLock { $0 }
        #expect(seen.count == 1)
        let trust = try #require(seen.first?.serverTrust)
        #expect(seen.first?.protectionSpace.authenticationMethod == .serverTrust)
        #expect(trust.host == "localhost" && trust.certificates.count == 1)
        let body = { (pem: String) in pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined() }
        #expect(body(trust.certificates[0]) == body(LoopbackServer.caCertificatePEM))
    }

    @Test(arguments: [AuthChallengeDisposition.performDefaultHandling, .rejectProtectionSpace, .cancelAuthenticationChallenge])
    func anyOtherAnswerFailsTheTask(_ answer: AuthChallengeDisposition) async throws {
        let server = try await TestServer.get()
        let answerer = TrustAnswerer(answer)
        let s = session(answerer)
        defer { s.invalidateAndCancel() }
        do {
            _ = try await s.data(from: url(server.httpsBase + "/bytes/64"))
            Issue.record("an untrusted server was accepted")
        } catch {
            #expect(error.code == (answer == .cancelAuthenticationChallenge ? .cancelled : .serverCertificateUntrusted))
        }
        #expect(answerer.seen.withLock { $0.count } == 1)
    }
}
