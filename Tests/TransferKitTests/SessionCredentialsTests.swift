import Foundation
import Testing
@testable import TransferKit

/// Which credential a hop sends, and the space a challenge names: pure functions, no
/// libcurl, no server.
@Suite struct SessionCredentialsTests {
    static let alice = TransferCredential(user: "alice", password: "a")
    static let bob = TransferCredential(user: "bob", password: "b")
    static let carol = TransferCredential(user: "carol", password: "c")
    static let origin = URL(string: "https://a.example/start")!

    func choose(answered: TransferCredential? = nil, space: ProtectionSpace? = nil, configured: TransferCredential? = nil,
                hop: URL = origin, allowed: Bool = true,
                stored: [String: TransferCredential] = [:]) -> SessionCredentials.HopCredential? {
        SessionCredentials.hopCredential(answered: answered, answeredSpace: space, configured: configured,
                                         configuredScheme: .any, hop: hop, origin: Self.origin, credentialsAllowed: allowed,
                                         stored: { stored[$0.host ?? ""] })
    }

    static func space(_ host: String, port: Int = 443, digest: Bool = false, proxy: Bool = false) -> ProtectionSpace {
        ProtectionSpace(host: host, port: port, protocol: proxy ? "http" : "https", realm: "r",
                        authenticationMethod: digest ? .httpDigest : .httpBasic, isProxy: proxy)
    }

    @Test func theAnswerToThisOriginsChallengeComesFirstWithItsScheme() {
        let chosen = choose(answered: Self.alice, space: Self.space("a.example", digest: true), configured: Self.bob,
                            stored: ["a.example": Self.carol])
        #expect(chosen == .init(credential: Self.alice, scheme: .digest))
    }

    @Test func anAnswerForAnotherOriginOrAProxyIsNotSentToTheHop() {
        #expect(choose(answered: Self.alice, space: Self.space("b.example"), configured: Self.bob)?.credential == Self.bob)
        #expect(choose(answered: Self.alice, space: Self.space("a.example", port: 8443))?.credential == nil)
        #expect(choose(answered: Self.alice, space: Self.space("a.example", proxy: true))?.credential == nil)
    }

    @Test func theConfiguredCredentialGoesOnlyWhereCredentialsMay() {
        #expect(choose(configured: Self.bob) == .init(credential: Self.bob, scheme: .any))
        #expect(choose(configured: Self.bob, allowed: false) == nil)
    }

    @Test func theStoreGivesTheHopsOwnOriginsThenTheTasksOriginsWhereAllowed() {
        let other = URL(string: "https://b.example/next")!
        #expect(choose(hop: other, stored: ["b.example": Self.carol, "a.example": Self.alice])?.credential == Self.carol)
        #expect(choose(hop: other, stored: ["a.example": Self.alice])?.credential == Self.alice)
        #expect(choose(hop: other, allowed: false, stored: ["a.example": Self.alice]) == nil)
    }

    @Test func theStoreIsAskedOnlyWhenItDecides() {
        var asked: [String] = []
        let chosen = SessionCredentials.hopCredential(answered: nil, answeredSpace: nil, configured: Self.bob,
                                                      configuredScheme: .basic, hop: Self.origin, origin: Self.origin,
                                                      credentialsAllowed: true,
                                                      stored: { asked.append($0.host ?? ""); return nil })
        #expect(chosen?.credential == Self.bob)
        #expect(asked.isEmpty)
    }

    @Test func aProxysAnswerGoesOnlyToTheProxy() {
        #expect(SessionCredentials.proxyCredential(answered: Self.alice, answeredSpace: Self.space("proxy", proxy: true))
                == .init(credential: Self.alice, scheme: .basic))
        #expect(SessionCredentials.proxyCredential(answered: Self.alice, answeredSpace: Self.space("a.example")) == nil)
        #expect(SessionCredentials.proxyCredential(answered: nil, answeredSpace: nil) == nil)
    }

    @Test func aChallengeNamesItsSpaceDigestPreferred() {
        let hop = URL(string: "http://a.example:8080/x")!
        let headers = [HTTPHeader("WWW-Authenticate", "Basic realm=\"b\""), HTTPHeader("www-authenticate", "Digest realm=\"d\", nonce=\"n\"")]
        let space = SessionCredentials.challengeSpace(statusCode: 401, headers: headers, hop: hop, proxy: nil)
        #expect(space == ProtectionSpace(host: "a.example", port: 8080, protocol: "http", realm: "d", authenticationMethod: .httpDigest))
        let basic = SessionCredentials.challengeSpace(statusCode: 401, headers: [headers[0]], hop: hop, proxy: nil)
        #expect(basic?.authenticationMethod == .httpBasic && basic?.realm == "b")
    }

    @Test func aChallengeOfferingNeitherBasicNorDigestIsJustTheResponse() {
        let headers = [HTTPHeader("WWW-Authenticate", "Bearer realm=\"x\"")]
        #expect(SessionCredentials.challengeSpace(statusCode: 401, headers: headers, hop: Self.origin, proxy: nil) == nil)
    }

    @Test func aProxysChallengeIsTheConfiguredProxysSpace() {
        let headers = [HTTPHeader("Proxy-Authenticate", "Basic realm=\"p\"")]
        let space = SessionCredentials.challengeSpace(statusCode: 407, headers: headers, hop: Self.origin,
                                                      proxy: "http://proxy.example:3128")
        #expect(space == ProtectionSpace(host: "proxy.example", port: 3128, protocol: "http", realm: "p",
                                         authenticationMethod: .httpBasic, isProxy: true))
        #expect(SessionCredentials.challengeSpace(statusCode: 407, headers: headers, hop: Self.origin, proxy: nil) == nil)
        // A 407's header is Proxy-Authenticate: a WWW-Authenticate on it names nothing.
        let www = [HTTPHeader("WWW-Authenticate", "Basic realm=\"p\"")]
        #expect(SessionCredentials.challengeSpace(statusCode: 407, headers: www, hop: Self.origin,
                                                  proxy: "http://proxy.example:3128") == nil)
    }

    @Test func portsDefaultByScheme() {
        #expect(SessionCredentials.port(of: URL(string: "https://a.example/")!) == 443)
        #expect(SessionCredentials.port(of: URL(string: "http://a.example/")!) == 80)
        #expect(SessionCredentials.port(of: URL(string: "HTTPS://a.example:9/")!) == 9)
    }
}
