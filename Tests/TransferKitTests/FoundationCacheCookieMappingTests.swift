import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import TransferKit

/// Foundation's cookie and cache settings reach TransferKit's: URLRequest's
/// `cachePolicy` and `mainDocumentURL`, URLSessionConfiguration's `httpCookieAcceptPolicy` and
/// `requestCachePolicy`.
@Suite struct FoundationCacheCookieMappingTests {
    @Test func requestCachePolicyAndMainDocument() throws {
        var r = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        #expect(try TransferRequest(r).cachePolicy == nil, "the default leaves the session's policy")
        r.cachePolicy = .returnCacheDataDontLoad
        r.mainDocumentURL = URL(string: "http://127.0.0.1/page")
        let t = try TransferRequest(r)
        #expect(t.cachePolicy == .returnCacheDataDontLoad)
        #expect(t.mainDocumentURL?.absoluteString == "http://127.0.0.1/page")
        #expect(t.urlRequest.cachePolicy == .returnCacheDataDontLoad)
    }

    @Test func configurationCookieAndCachePolicies() {
        let c = URLSessionConfiguration.ephemeral
        c.httpCookieAcceptPolicy = .never
        c.requestCachePolicy = .returnCacheDataElseLoad
        let t = TransferURLSession.transferConfiguration(c)
        #expect(t.httpCookieAcceptPolicy == .never)
        #expect(t.requestCachePolicy == .returnCacheDataElseLoad)
    }
}
