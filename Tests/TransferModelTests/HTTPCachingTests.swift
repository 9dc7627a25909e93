import Foundation
import Testing
@testable import TransferModel

/// RFC 9111's rules as the cache uses them (DECISIONS 102): Cache-Control
/// parsing, freshness and age, storability, Vary, and the decision per request policy. Every
/// time is given (`now`), never read from a clock.
@Suite struct HTTPCachingTests {
    let t0 = 1_800_000_000.0
    func h(_ pairs: [(String, String)]) -> [HTTPHeader] { pairs.map { HTTPHeader($0.0, $0.1) } }
    static let date = "Fri, 15 Jan 2027 08:00:00 GMT"  // 1_800_000_000

    @Test(arguments: [
        ("max-age=60", 60.0 as Double?, false, false, false),
        ("no-cache, max-age=10", 10, true, false, false),
        ("private, no-store", nil, false, true, true),
        ("MAX-AGE=\"30\" , Public", 30, false, false, false),
        ("max-age=abc", nil, false, false, false),
        ("max-age=-5", nil, false, false, false),
    ])
    func cacheControlParsing(value: String, maxAge: Double?, noCache: Bool, noStore: Bool, isPrivate: Bool) {
        let cc = CacheControl(headers: h([("Cache-Control", value)]))
        #expect(cc.maxAge == maxAge)
        #expect(cc.noCache == noCache)
        #expect(cc.noStore == noStore)
        #expect(cc.isPrivate == isPrivate)
    }

    @Test func pragmaNoCacheOnlyWithoutCacheControl() {
        #expect(CacheControl(headers: h([("Pragma", "no-cache")])).noCache)
        #expect(!CacheControl(headers: h([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")])).noCache)
    }

    @Test func httpDatesInTheThreeForms() {
        #expect(HTTPDates.parse(Self.date) == t0)
        #expect(HTTPDates.parse("Friday, 15-Jan-27 08:00:00 GMT") == t0)
        #expect(HTTPDates.parse("Fri Jan 15 08:00:00 2027") == t0)
        #expect(HTTPDates.parse("0") == nil)
        #expect(HTTPDates.format(t0) == Self.date)
    }

    struct FreshCase: Sendable, CustomStringConvertible {
        var headers: [(String, String)]
        var lifetime: Double
        var ageAfter100: Double
        var description: String { headers.map { "\($0.0): \($0.1)" }.joined(separator: "; ") }
    }

    static let freshCases: [FreshCase] = [
        FreshCase(headers: [("Cache-Control", "max-age=600"), ("Date", date)], lifetime: 600, ageAfter100: 100),
        // max-age wins over Expires.
        FreshCase(headers: [("Cache-Control", "max-age=5"), ("Expires", "Fri, 15 Jan 2027 09:00:00 GMT"), ("Date", date)],
                  lifetime: 5, ageAfter100: 100),
        FreshCase(headers: [("Expires", "Fri, 15 Jan 2027 09:00:00 GMT"), ("Date", date)], lifetime: 3600, ageAfter100: 100),
        // An invalid Expires is in the past.
        FreshCase(headers: [("Expires", "0"), ("Date", date)], lifetime: 0, ageAfter100: 100),
        // Heuristic: a tenth of the time since Last-Modified (10 days → 1 day, the cap).
        FreshCase(headers: [("Last-Modified", "Tue, 05 Jan 2027 08:00:00 GMT"), ("Date", date)], lifetime: 86400, ageAfter100: 100),
        FreshCase(headers: [("Last-Modified", "Fri, 15 Jan 2027 07:00:00 GMT"), ("Date", date)], lifetime: 360, ageAfter100: 100),
        // Age from upstream adds up.
        FreshCase(headers: [("Cache-Control", "max-age=600"), ("Date", date), ("Age", "50")], lifetime: 600, ageAfter100: 150),
        FreshCase(headers: [], lifetime: 0, ageAfter100: 100),
    ]

    @Test(arguments: freshCases)
    func freshness(_ c: FreshCase) {
        let facts = CachedResponseFacts(statusCode: 200, headers: h(c.headers), requestTime: t0, responseTime: t0)
        #expect(facts.freshnessLifetime == c.lifetime)
        #expect(facts.currentAge(now: t0 + 100) == c.ageAfter100)
        #expect(facts.isFresh(now: t0 + 100) == (c.lifetime > c.ageAfter100))
    }

    @Test func aSlowResponseAgesByItsDelay() {
        // Sent at t0, received 4 s later, the server's Date at t0 + 1: corrected age is 4.
        let facts = CachedResponseFacts(statusCode: 200, headers: h([("Date", "Fri, 15 Jan 2027 08:00:01 GMT")]),
                                        requestTime: t0, responseTime: t0 + 4)
        #expect(facts.currentAge(now: t0 + 4) == 4)
    }

    @Test(arguments: [
        ("GET", [("X", "1")], 200, [("Cache-Control", "max-age=60")], true),
        ("POST", [], 200, [("Cache-Control", "max-age=60")], false),
        ("GET", [], 206, [("Cache-Control", "max-age=60")], false),
        ("GET", [("Range", "bytes=0-1")], 200, [("Cache-Control", "max-age=60")], false),
        ("GET", [], 200, [("Cache-Control", "no-store")], false),
        ("GET", [("Cache-Control", "no-store")], 200, [("Cache-Control", "max-age=60")], false),
        ("GET", [], 200, [("Cache-Control", "private, max-age=60")], true),
        ("GET", [], 200, [("Vary", "*")], false),
        ("GET", [("Authorization", "Basic x")], 200, [("Cache-Control", "max-age=60")], false),
        ("GET", [("Authorization", "Basic x")], 200, [("Cache-Control", "public, max-age=60")], true),
        ("GET", [("Authorization", "Basic x")], 200, [("Cache-Control", "must-revalidate")], true),
    ] as [(String, [(String, String)], Int, [(String, String)], Bool)])
    func storability(method: String, request: [(String, String)], status: Int, response: [(String, String)], storable: Bool) {
        #expect(CacheRules.isStorable(method: method, requestHeaders: h(request), statusCode: status,
                                      responseHeaders: h(response)) == storable)
    }

    @Test func varyMatching() {
        let names = CacheRules.varyNames(h([("Vary", "Accept-Language, x-variant"), ("Vary", "Accept")]))
        #expect(names == ["accept", "accept-language", "x-variant"])
        let stored = CacheRules.varyValues(names!, of: h([("X-Variant", "a"), ("Accept-Language", "fr")]))
        #expect(CacheRules.varyMatches(stored: stored, names: names!, request: h([("accept-language", "fr"), ("X-VARIANT", "a")])))
        #expect(!CacheRules.varyMatches(stored: stored, names: names!, request: h([("Accept-Language", "de"), ("X-Variant", "a")])))
        #expect(!CacheRules.varyMatches(stored: stored, names: names!, request: h([("Accept-Language", "fr"), ("X-Variant", "a"), ("Accept", "*/*")])))
        #expect(CacheRules.varyNames(h([("Vary", "Accept, *")])) == nil)
    }

    @Test func revalidationHeadersAndTheUpdateFromA304() {
        let facts = CachedResponseFacts(statusCode: 200, headers: h([("ETag", "\"v1\""), ("Last-Modified", Self.date),
                                                                      ("Content-Length", "10"), ("X-Old", "1")]),
                                        requestTime: t0, responseTime: t0)
        #expect(facts.conditionalHeaders == h([("If-None-Match", "\"v1\""), ("If-Modified-Since", Self.date)]))
        let updated = facts.updated(with: h([("ETag", "\"v1\""), ("X-Old", "2"), ("Content-Length", "0")]))
        #expect(updated.first(named: "X-Old") == "2")
        #expect(updated.first(named: "Content-Length") == "10", "framing headers stay the stored response's")
    }

    /// A stored validator that would break a header line is no validator: it is never sent back.
    @Test func aValidatorWithALineBreakIsNotSentBack() {
        let facts = CachedResponseFacts(statusCode: 200, headers: h([("ETag", "\"v1\"\r\nX-Inj: 1"), ("Last-Modified", Self.date)]),
                                        requestTime: t0, responseTime: t0)
        #expect(facts.conditionalHeaders == h([("If-Modified-Since", Self.date)]))
        let neither = CachedResponseFacts(statusCode: 200, headers: h([("ETag", "\"v1\"\u{0}")]), requestTime: t0, responseTime: t0)
        #expect(!neither.hasValidator)
    }

    @Test func decisionPerPolicy() {
        let fresh = CachedResponseFacts(statusCode: 200, headers: h([("Cache-Control", "max-age=600"), ("ETag", "\"e\"")]),
                                        requestTime: t0, responseTime: t0)
        let staleWithValidator = CachedResponseFacts(statusCode: 200, headers: h([("Cache-Control", "max-age=0"), ("ETag", "\"e\"")]),
                                                     requestTime: t0, responseTime: t0)
        let staleBare = CachedResponseFacts(statusCode: 200, headers: [], requestTime: t0, responseTime: t0)
        let now = t0 + 10
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: fresh, requestHeaders: [], now: now) == .useStored)
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: fresh, requestHeaders: [], now: t0 + 601)
                == .revalidate(h([("If-None-Match", "\"e\"")])))
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: fresh, requestHeaders: h([("Cache-Control", "no-cache")]), now: now)
                == .revalidate(h([("If-None-Match", "\"e\"")])))
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: staleWithValidator, requestHeaders: [], now: now)
                == .revalidate(h([("If-None-Match", "\"e\"")])))
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: staleBare, requestHeaders: [], now: now) == .network)
        #expect(CacheRules.decide(policy: .useProtocolCachePolicy, stored: nil, requestHeaders: [], now: now) == .network)
        #expect(CacheRules.decide(policy: .reloadIgnoringLocalCacheData, stored: fresh, requestHeaders: [], now: now) == .network)
        #expect(CacheRules.decide(policy: .returnCacheDataElseLoad, stored: staleBare, requestHeaders: [], now: now) == .useStored)
        #expect(CacheRules.decide(policy: .returnCacheDataElseLoad, stored: nil, requestHeaders: [], now: now) == .network)
        #expect(CacheRules.decide(policy: .returnCacheDataDontLoad, stored: staleBare, requestHeaders: [], now: now) == .useStored)
        #expect(CacheRules.decide(policy: .returnCacheDataDontLoad, stored: nil, requestHeaders: [], now: now) == .fail)
    }
}
