import Foundation
import Testing
@testable import TransferKit

/// The headers a hop sends as far as the cache is concerned (pure; no cache, no server).
@Suite struct CacheParticipationTests {
    static let alice = TransferCredential(user: "alice", password: "secret")

    func headers(_ request: [HTTPHeader] = [], additional: [HTTPHeader] = [], credential: TransferCredential? = nil,
                 netrc: Bool = false) -> [HTTPHeader] {
        CacheParticipation.requestHeaders(request, additional: additional, credential: credential, usesNetrc: netrc,
                                          host: "a.example")
    }

    @Test func theSessionsHeadersJoinTheRequestsWithoutReplacingThem() {
        let out = headers([HTTPHeader("Accept", "text/plain")],
                          additional: [HTTPHeader("accept", "*/*"), HTTPHeader("X-Session", "1")])
        #expect(out.map(\.name) == ["Accept", "X-Session"])
        #expect(out.first(named: "Accept") == "text/plain")
    }

    @Test func credentialsLibcurlAddsStandAsADigestNeverThePassword() {
        let out = headers(credential: Self.alice)
        let value = out.first(named: "Authorization") ?? ""
        #expect(value.hasPrefix("(credentials ") && !value.contains("secret"))
        #expect(value == headers(credential: Self.alice).first(named: "Authorization"))
        #expect(value != headers(credential: TransferCredential(user: "bob", password: "secret")).first(named: "Authorization"))
    }

    @Test func netrcStandsForTheHostsEntry() {
        #expect(headers(netrc: true).first(named: "Authorization") == "(netrc a.example)")
        #expect(headers().first(named: "Authorization") == nil)
    }

    @Test func theRequestsOwnAuthorizationIsKept() {
        let out = headers([HTTPHeader("Authorization", "Bearer t")], credential: Self.alice, netrc: true)
        #expect(out.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer t"])
    }
}
