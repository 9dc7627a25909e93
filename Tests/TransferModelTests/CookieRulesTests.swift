import Foundation
import Testing
@testable import TransferModel

/// RFC 6265's rules and the Netscape cookies.txt format (DECISIONS 100).
@Suite struct CookieRulesTests {
    let now = 1_800_000_000.0
    func u(_ s: String) -> URL { URL(string: s)! }

    struct ParseCase: Sendable, CustomStringConvertible {
        var header: String, from: String
        /// nil: refused.
        var domain: String?, hostOnly = true, path = "/", secure = false, httpOnly = false
        var expires: Double? = nil
        var description: String { header }
    }

    static let parseCases: [ParseCase] = [
        ParseCase(header: "sid=abc", from: "http://example.com/", domain: "example.com"),
        ParseCase(header: "sid=abc; Path=/a", from: "http://example.com/x", domain: "example.com", path: "/a"),
        // Default path: the request path up to its last '/'.
        ParseCase(header: "sid=abc", from: "http://example.com/a/b/c", domain: "example.com", path: "/a/b"),
        ParseCase(header: "sid=abc; Path=relative", from: "http://example.com/a/b", domain: "example.com", path: "/a"),
        ParseCase(header: "sid=abc; Domain=.Example.COM", from: "http://www.example.com/", domain: "example.com", hostOnly: false),
        ParseCase(header: "sid=abc; Domain=example.com", from: "http://example.com/", domain: "example.com", hostOnly: false),
        // A domain the host is not within, a bare top-level name, an IP's parent: refused.
        ParseCase(header: "sid=abc; Domain=other.com", from: "http://example.com/", domain: nil),
        ParseCase(header: "sid=abc; Domain=com", from: "http://example.com/", domain: nil),
        ParseCase(header: "sid=abc; Domain=0.0.1", from: "http://127.0.0.1/", domain: nil),
        ParseCase(header: "sid=abc; Domain=ample.com", from: "http://example.com/", domain: nil),
        // Secure only from https.
        ParseCase(header: "sid=abc; Secure", from: "http://example.com/", domain: nil),
        ParseCase(header: "sid=abc; Secure; HttpOnly", from: "https://example.com/", domain: "example.com", secure: true, httpOnly: true),
        ParseCase(header: "sid=abc; Max-Age=60", from: "http://example.com/", domain: "example.com", expires: 1_800_000_060),
        // Max-Age wins over Expires.
        ParseCase(header: "sid=abc; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=10", from: "http://example.com/",
                  domain: "example.com", expires: 1_800_000_010),
        ParseCase(header: "sid=abc; Expires=Wed, 21 Oct 2015 07:28:00 GMT", from: "http://example.com/", domain: "example.com",
                  expires: 1_445_412_480),
        ParseCase(header: "sid=abc; expires=Thursday, 01-Jan-70 00:00:10 GMT", from: "http://example.com/", domain: "example.com",
                  expires: 10),
        ParseCase(header: "sid=\"quoted\"", from: "http://example.com/", domain: "example.com"),
        ParseCase(header: "novalue", from: "http://example.com/", domain: nil),
        ParseCase(header: "=abc", from: "http://example.com/", domain: nil),
        ParseCase(header: "sid=a\tb", from: "http://example.com/", domain: nil),
        ParseCase(header: "sid=" + String(repeating: "x", count: 5000), from: "http://example.com/", domain: nil),
    ]

    @Test(arguments: parseCases)
    func setCookieParsing(_ c: ParseCase) {
        let parsed = CookieRules.parse(setCookie: c.header, from: u(c.from), now: now)
        guard let domain = c.domain else {
            #expect(parsed == nil)
            return
        }
        guard let parsed else {
            Issue.record("refused: \(c.header)")
            return
        }
        #expect(parsed.domain == domain)
        #expect(parsed.isHostOnly == c.hostOnly)
        #expect(parsed.path == c.path)
        #expect(parsed.isSecure == c.secure)
        #expect(parsed.isHTTPOnly == c.httpOnly)
        #expect(parsed.expires == c.expires)
    }

    static let psl = PublicSuffixList(text: "// comment\ncom\nuk\nco.uk\n*.ck\n!www.ck\nblogspot.com\n")

    @Test(arguments: [
        ("a=1; Domain=co.uk", "http://example.co.uk/", nil as String?, true),
        ("a=1; Domain=example.co.uk", "http://www.example.co.uk/", "example.co.uk", false),
        ("a=1; Domain=anything.ck", "http://x.anything.ck/", nil, true),
        ("a=1; Domain=www.ck", "http://a.www.ck/", "www.ck", false),
        ("a=1; Domain=blogspot.com", "http://me.blogspot.com/", nil, true),
        // The host itself is a public suffix: kept, host-only.
        ("a=1; Domain=blogspot.com", "http://blogspot.com/", "blogspot.com", true),
    ])
    func publicSuffixesAreRefusedAsDomains(header: String, from: String, domain: String?, hostOnly: Bool) {
        let c = CookieRules.parse(setCookie: header, from: u(from), now: now, publicSuffixes: Self.psl)
        #expect(c?.domain == domain)
        if let c { #expect(c.isHostOnly == hostOnly) }
    }

    @Test func pslRules() {
        #expect(Self.psl.isPublicSuffix("com") && Self.psl.isPublicSuffix("co.uk") && Self.psl.isPublicSuffix("foo.ck"))
        #expect(Self.psl.isPublicSuffix("localhost"), "a single label always is")
        #expect(!Self.psl.isPublicSuffix("www.ck") && !Self.psl.isPublicSuffix("example.com"))
    }

    @Test func quotedValueLosesItsQuotes() throws {
        let c = try #require(CookieRules.parse(setCookie: "a=\"b c\"", from: u("http://h.test/"), now: now))
        #expect(c.value == "b c")
    }

    @Test(arguments: [
        // cookie (domain, host-only, path, secure), URL, sent?
        ("example.com", true, "/", false, "http://example.com/x", true),
        ("example.com", true, "/", false, "http://www.example.com/x", false),
        ("example.com", false, "/", false, "http://www.example.com/x", true),
        ("example.com", false, "/", false, "http://badexample.com/", false),
        ("example.com", false, "/", false, "http://example.org/", false),
        ("127.0.0.1", true, "/", false, "http://127.0.0.1:8080/", true),
        ("127.0.0.1", true, "/", false, "http://localhost:8080/", false),
        ("0.0.1", false, "/", false, "http://127.0.0.1/", false),
        ("example.com", true, "/docs", false, "http://example.com/docs", true),
        ("example.com", true, "/docs", false, "http://example.com/docs/web", true),
        ("example.com", true, "/docs", false, "http://example.com/docsets", false),
        ("example.com", true, "/docs/", false, "http://example.com/docs", false),
        ("example.com", true, "/", true, "http://example.com/", false),
        ("example.com", true, "/", true, "https://example.com/", true),
    ])
    func matching(domain: String, hostOnly: Bool, path: String, secure: Bool, url: String, sent: Bool) {
        let c = TransferCookie(name: "n", value: "v", domain: domain, path: path, isHostOnly: hostOnly, isSecure: secure)
        #expect(c.matches(u(url)) == sent)
    }

    @Test func jarReplacesExpiresAndOrdersByPathLength() throws {
        var jar = CookieJar()
        let from = u("http://example.com/a/b")
        for h in ["a=1; Path=/", "b=2; Path=/a", "a=3; Path=/"] {
            jar.set(try #require(CookieRules.parse(setCookie: h, from: from, now: now)), now: now)
        }
        #expect(jar.cookies.count == 2)
        #expect(jar.cookieHeader(for: u("http://example.com/a/x"), now: now) == "b=2; a=3")
        #expect(jar.cookieHeader(for: u("http://example.com/"), now: now) == "a=3")
        #expect(jar.cookieHeader(for: u("http://other.com/a/x"), now: now) == nil)
        // A past expiry deletes the namesake.
        #expect(jar.set(try #require(CookieRules.parse(setCookie: "a=x; Path=/; Max-Age=0", from: from, now: now)), now: now))
        #expect(jar.cookieHeader(for: u("http://example.com/a/x"), now: now) == "b=2")
        // Setting the same cookie again changes nothing.
        #expect(!jar.set(try #require(CookieRules.parse(setCookie: "b=2; Path=/a", from: from, now: now + 5)), now: now + 5))
    }

    @Test func netscapeRoundTripAsCurlWritesIt() {
        var jar = CookieJar()
        jar.set(TransferCookie(name: "sid", value: "abc", domain: "127.0.0.1", path: "/", isHostOnly: true, expires: now + 60, created: now), now: now)
        jar.set(TransferCookie(name: "pref", value: "x y", domain: "example.com", path: "/app", isHostOnly: false,
                               isSecure: true, isHTTPOnly: true, expires: now + 60, created: now), now: now)
        jar.set(TransferCookie(name: "tmp", value: "1", domain: "example.com", created: now), now: now)
        let persistent = jar.netscapeText(now: now, includeSession: false)
        #expect(persistent.hasPrefix("# Netscape HTTP Cookie File"))
        #expect(persistent.contains("127.0.0.1\tFALSE\t/\tFALSE\t1800000060\tsid\tabc\n"))
        #expect(persistent.contains("#HttpOnly_.example.com\tTRUE\t/app\tTRUE\t1800000060\tpref\tx y\n"))
        #expect(!persistent.contains("tmp"), "session cookies stay in memory")
        let all = jar.netscapeText(now: now, includeSession: true)
        #expect(all.contains("example.com\tFALSE\t/\tFALSE\t0\ttmp\t1\n"))
        var back = CookieJar()
        #expect(back.merge(fileText: all, now: now) == 0)
        #expect(back.cookies == jar.cookies)
    }

    @Test func corruptLinesAreSkippedAndCounted() {
        var jar = CookieJar()
        let text = "# Netscape HTTP Cookie File\n\nnot a cookie line\nexample.com\tMAYBE\t/\tFALSE\t0\ta\tb\n"
            + "example.com\tFALSE\t/\tFALSE\tsoon\ta\tb\nexample.com\tFALSE\t/\tFALSE\t0\tok\t1\n"
            + "example.com\tFALSE\t/\tFALSE\t1000\told\t1\n"
        #expect(jar.merge(fileText: text, now: now) == 3)
        #expect(jar.all.map(\.name) == ["ok"], "an expired line is dropped, not counted")
    }

    @Test func setCookieLinesNeedTheirDomain() {
        var jar = CookieJar()
        let text = "Set-Cookie: a=1; Domain=example.com; Path=/\nSet-Cookie: b=2; Path=/\n"
        #expect(jar.merge(fileText: text, now: now) == 1)
        #expect(jar.all.map(\.name) == ["a"])
        #expect(jar.cookieHeader(for: u("http://www.example.com/"), now: now) == "a=1")
    }

    @Test func mergeKeepsAnotherWritersCookiesButNotDeletedOnes() {
        var mine = CookieJar(), theirs = CookieJar()
        let a = TransferCookie(name: "a", value: "1", domain: "h.test", expires: now + 100, created: now)
        let b = TransferCookie(name: "b", value: "2", domain: "h.test", expires: now + 100, created: now)
        mine.set(a, now: now)
        mine.delete(a.key)
        theirs.set(a, now: now)
        theirs.set(b, now: now)
        mine.adoptMissing(from: theirs)
        #expect(mine.all.map(\.name) == ["b"])
    }

    @Test func storeCapIsBounded() {
        var jar = CookieJar()
        for i in 0..<(CookieJar.maximumCookies + 10) {
            jar.set(TransferCookie(name: "c", value: "v", domain: "h\(i).test", created: now + Double(i)), now: now)
        }
        #expect(jar.cookies.count == CookieJar.maximumCookies)
        #expect(jar.cookies[TransferCookie.Key(name: "c", domain: "h0.test", path: "/")] == nil)
        #expect(jar.cookies[TransferCookie.Key(name: "c", domain: "h10.test", path: "/")] != nil)
    }

    /// One domain's flood evicts that domain's oldest cookies, never another site's.
    @Test func oneDomainKeepsAtMostItsShareAndLeavesTheOthersAlone() {
        var jar = CookieJar()
        let other = TransferCookie(name: "session", value: "keep", domain: "other.test", created: now - 10)
        jar.set(other, now: now)
        for i in 0..<3000 {
            jar.set(TransferCookie(name: "c\(i)", value: "v", domain: "flood.test", created: now + Double(i)), now: now)
        }
        #expect(jar.cookies.values.filter { $0.domain == "flood.test" }.count == CookieJar.maximumCookiesPerDomain)
        #expect(jar.cookies[other.key] == other)
        #expect(jar.cookies[TransferCookie.Key(name: "c2999", domain: "flood.test", path: "/")] != nil)
        #expect(jar.cookies[TransferCookie.Key(name: "c0", domain: "flood.test", path: "/")] == nil)
    }

    /// Another process's cookies merged in keep the caps too; deleting frees a domain's place.
    @Test func aMergeKeepsTheCapsAndDeletingFreesAPlace() {
        var mine = CookieJar(), theirs = CookieJar()
        for i in 0..<100 {
            mine.set(TransferCookie(name: "m\(i)", value: "v", domain: "flood.test", created: now + Double(i)), now: now)
            theirs.set(TransferCookie(name: "t\(i)", value: "v", domain: "flood.test", created: now + 200 + Double(i)), now: now)
        }
        mine.adoptMissing(from: theirs)
        let flood = mine.cookies.values.filter { $0.domain == "flood.test" }
        #expect(flood.count == CookieJar.maximumCookiesPerDomain)
        #expect(flood.contains { $0.name == "t99" } && !flood.contains { $0.name == "m0" })
        mine.delete(TransferCookie.Key(name: "t99", domain: "flood.test", path: "/"))
        mine.set(TransferCookie(name: "new", value: "v", domain: "flood.test", created: now + 1000), now: now)
        #expect(mine.cookies.values.filter { $0.domain == "flood.test" }.count == CookieJar.maximumCookiesPerDomain)
        #expect(mine.cookies[TransferCookie.Key(name: "m20", domain: "flood.test", path: "/")] != nil, "no eviction was needed")
    }

    /// The header stops at curl's bounds: 150 cookies, 8190 bytes; a cookie too large for what
    /// is left is skipped and a smaller one after it still goes.
    @Test func theCookieHeaderStaysWithinItsBounds() throws {
        let url = try #require(URL(string: "http://h.test/"))
        var many = CookieJar()
        for i in 0..<170 {
            many.set(TransferCookie(name: "c\(i)", value: "v", domain: "h.test", created: now + Double(i)), now: now)
        }
        let header = try #require(many.cookieHeader(for: url, now: now))
        #expect(header.components(separatedBy: "; ").count == CookieJar.maximumCookiesSent)
        #expect(header.hasPrefix("c0=v; c1=v"))

        var large = CookieJar()
        let big = String(repeating: "x", count: 4000)
        for i in 0..<3 {
            large.set(TransferCookie(name: "b\(i)", value: big, domain: "h.test", created: now + Double(i)), now: now)
        }
        large.set(TransferCookie(name: "small", value: "1", domain: "h.test", created: now + 10), now: now)
        let bounded = try #require(large.cookieHeader(for: url, now: now))
        #expect(bounded.utf8.count <= CookieJar.maximumCookieHeaderBytes)
        #expect(bounded.components(separatedBy: "; ").map { $0.prefix(while: { $0 != "=" }) } == ["b0", "b1", "small"])
    }
}
