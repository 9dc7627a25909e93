import Testing
@testable import TransferModel

/// WWW-Authenticate parsing (RFC 9110 §11.6.1): schemes and realms, several per value.
@Suite struct AuthChallengeTests {
    @Test(arguments: [
        (["Basic realm=\"test@realm\""], [AuthChallenge(scheme: "Basic", realm: "test@realm")]),
        (["Digest realm=\"a b\", qop=\"auth\", nonce=\"x,y\", algorithm=SHA-256"], [AuthChallenge(scheme: "Digest", realm: "a b")]),
        (["Basic realm=\"r1\", Digest realm=\"r2\", nonce=\"n\""],
         [AuthChallenge(scheme: "Basic", realm: "r1"), AuthChallenge(scheme: "Digest", realm: "r2")]),
        (["Bearer", "Basic realm=\"q\\\"uote\""], [AuthChallenge(scheme: "Bearer"), AuthChallenge(scheme: "Basic", realm: "q\"uote")]),
        (["Negotiate abc=="], [AuthChallenge(scheme: "Negotiate")]),
        ([""], []),
        (["realm=\"orphan\""], []),
    ] as [([String], [AuthChallenge])])
    func parses(_ values: [String], _ expected: [AuthChallenge]) {
        #expect(AuthChallenge.parse(values) == expected)
    }
}
