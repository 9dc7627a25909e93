import Foundation
import Testing
@testable import TransferModel

/// Pure rules, by tables: header lines, numbers, quoting, URL encoding, and which
/// redirect hops may carry credentials.
@Suite struct ValidationTests {
    @Test(arguments: [
        ("X-Fine", "a b\tc", nil),
        ("X-A", "1\r\nX-Evil: 2", HeaderValidation.Problem.valueHasLineBreakOrNUL(name: "X-A")),
        ("X-A", "1\n2", .valueHasLineBreakOrNUL(name: "X-A")),
        ("X-A", "1\r2", .valueHasLineBreakOrNUL(name: "X-A")),
        ("X-A", "1\u{0}2", .valueHasLineBreakOrNUL(name: "X-A")),
        ("", "v", .emptyName),
        ("Bad Name", "v", .nameNotToken("Bad Name")),
        ("X:Y", "v", .nameNotToken("X:Y")),
        ("X\r\nY", "v", .nameNotToken("X\\x0D\\x0AY")),
        ("!#$%&'*+-.^_`|~09azAZ", "v", nil),
    ] as [(String, String, HeaderValidation.Problem?)])
    func headerLines(_ name: String, _ value: String, _ problem: HeaderValidation.Problem?) {
        #expect(HeaderValidation.problem(HTTPHeader(name, value)) == problem)
    }

    @Test func numbers() {
        for bad in ["nan", "inf", "-inf", "-1", "0", "0.0001", "1e26", "18446744072", "", "1s", "0x1p99"] {
            #expect(NumericBounds.seconds(bad) == nil, "\(bad)")
        }
        #expect(NumericBounds.seconds("0.5") == 0.5 && NumericBounds.seconds("315360000") == 315_360_000)
        #expect(NumericBounds.wholeNumber(1e300, in: 1...1000) == nil && NumericBounds.wholeNumber(.nan, in: 1...10) == nil)
        #expect(NumericBounds.wholeNumber(7, in: 1...10) == 7 && NumericBounds.wholeNumber(7.5, in: 1...10) == nil)
        #expect(NumericBounds.clampedNanoseconds(.infinity) == .max && NumericBounds.clampedNanoseconds(.nan) == 0)
        #expect(NumericBounds.clampedNanoseconds(1e26) == .max && NumericBounds.clampedNanoseconds(-3) == 0)
        #expect(NumericBounds.saturatingAdd(.max - 1, 5) == .max)
        #expect(NumericBounds.clampedInt(.nan) == 0 && NumericBounds.clampedInt(-.infinity) == -1_000_000_000_000_000)
    }

    @Test func quotesAreShortRedactedAndEscaped() {
        #expect(SafeQuote.quote("http://u:hunter2@h/x?token=abc") == "http://***:***@h/x?token=REDACTED")
        #expect(SafeQuote.quote("a\u{1B}[31m\u{202E}b") == "a\\x1B[31m\\u{202E}b")
        #expect(SafeQuote.quote(String(repeating: "x", count: 100), limit: 10) == "xxxxxxxxxx…")
    }

    /// Text from servers and files, escaped before it reaches a terminal: C0 (a tab only where
    /// the caller keeps it), DEL, C1 and bidi overrides become visible escapes, so an ESC or
    /// OSC sequence arrives as plain characters; everything else is kept.
    @Test(arguments: [
        ("plain ascii/x?y=1", false, "plain ascii/x?y=1"),
        ("café ü 本 😀", false, "café ü 本 😀"),
        ("\u{1B}[2J\u{1B}]0;pwned\u{07}", false, "\\x1B[2J\\x1B]0;pwned\\x07"),
        ("a\tb", false, "a\\x09b"),
        ("a\tb", true, "a\tb"),
        ("a\r\nb\u{0}", true, "a\\x0D\\x0Ab\\x00"),
        ("del\u{7F}", false, "del\\x7F"),
        ("c1\u{9B}31m\u{85}", false, "c1\\x9B31m\\x85"),
        ("evil\u{202E}txt.exe", false, "evil\\u{202E}txt.exe"),
        ("", false, ""),
    ] as [(String, Bool, String)])
    func terminalTextIsEscaped(_ text: String, _ tabs: Bool, _ expected: String) {
        #expect(TerminalText.safe(text, keepingTabs: tabs) == expected)
        #expect(TerminalText.hasControlCharacters(text) == (text != TerminalText.safe(text)))
    }

    @Test(arguments: [
        ("http://h/a%20b/ü.txt", "http://h/a%20b/%C3%BC.txt"),
        ("http://h/caf%C3%A9", "http://h/caf%C3%A9"),
        ("http://h/x y?q=%41ä#f", "http://h/x%20y?q=%41%C3%A4#f"),
        ("http://h/100%", "http://h/100%25"),
        ("http://h/%zz", "http://h/%25zz"),
        // Brackets outside the host are encoded, and the escapes beside them kept.
        ("http://h/q?ids[]=1&name=a%26b", "http://h/q?ids%5B%5D=1&name=a%26b"),
        ("http://h/a%20b]c", "http://h/a%20b%5Dc"),
        ("http://[::1]:8080/x[1]", "http://[::1]:8080/x%5B1%5D"),
        ("http://u:p@[::1]/", "http://u:p@[::1]/"),
        // Host names in other scripts take their IDNA form (as curl's libidn2 gives them);
        // the path and query are percent-encoded; a name IDNA refuses is left to fail.
        ("http://bücher.example/ü", "http://xn--bcher-kva.example/%C3%BC"),
        ("https://u:p@BÜCHER.example:8443/?q=ü", "https://u:p@xn--bcher-kva.example:8443/?q=%C3%BC"),
        ("http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/"),
        ("ftp://ü.example", "ftp://xn--tda.example"),
        // Only the host: a URL in the query is the query's, percent-encoded.
        ("http://h/login?next=https://bücher.example/", "http://h/login?next=https://b%C3%BCcher.example/"),
    ])
    func urlsAreEncodedOnce(_ text: String, _ expected: String) {
        #expect(URLText.encodeOnce(text) == expected)
        #expect(URLText.url(text)?.absoluteString == expected)
    }

    @Test(arguments: [
        ("https://a.test/x", "https://a.test/y", false, true),
        ("https://a.test/x", "https://b.test/y", false, false),
        ("https://a.test/x", "https://b.test/y", true, true),
        ("https://a.test/x", "http://a.test/y", false, false),
        ("https://a.test/x", "http://a.test/y", true, false),
        ("https://a.test/x", "http://b.test/y", true, false),
        ("http://a.test/x", "http://a.test:8080/y", false, false),
        ("http://a.test/x", "https://a.test/y", false, false),
        ("http://a.test/x", "https://b.test/y", true, true),
        ("http://a.test:80/x", "http://A.TEST/y", false, true),
    ])
    func credentialsOnRedirect(_ origin: String, _ hop: String, _ trusted: Bool, _ allowed: Bool) {
        #expect(RedirectPolicy.credentialsAllowed(origin: URL(string: origin)!, hop: URL(string: hop)!, trusted: trusted) == allowed)
    }

    @Test func redirectDropsCredentialsAndEncodesLocationOnce() {
        let request = RedirectPolicy.Request(method: "GET", url: URL(string: "https://a.test/x")!,
                                             headers: [HTTPHeader("Authorization", "Bearer t"), HTTPHeader("Cookie", "c=1"),
                                                       HTTPHeader("Accept", "*/*")], hasBody: false)
        guard case .follow(let next) = RedirectPolicy.evaluate(request, status: 302, location: "http://a.test/caf%C3%A9-ü") else {
            Issue.record("not followed"); return
        }
        #expect(next.headers == [HTTPHeader("Accept", "*/*")])
        #expect(next.url.absoluteString == "http://a.test/caf%C3%A9-%C3%BC")
        guard case .follow(let trusted) = RedirectPolicy.evaluate(request, status: 302, location: "https://b.test/",
                                                                   trustedCredentials: true) else {
            Issue.record("not followed"); return
        }
        #expect(trusted.headers.count == 3)
        // Brackets in a relative or scheme-relative Location: encoded in the path, kept in a
        // host; the escapes beside them are kept.
        for (location, expected) in [("/x[1]?a=%26", "https://a.test/x%5B1%5D?a=%26"), ("//[::1]:8443/y]", "https://[::1]:8443/y%5D"),
                                     ("/login?next=https://bücher.example/", "https://a.test/login?next=https://b%C3%BCcher.example/"),
                                     ("//bücher.example/ü", "https://xn--bcher-kva.example/%C3%BC")] {
            guard case .follow(let hop) = RedirectPolicy.evaluate(request, status: 302, location: location) else {
                Issue.record("\(location) not followed"); continue
            }
            #expect(hop.url.absoluteString == expected)
        }
    }

    @Test func resumeDataKeepsNoCredentialsAndGetsThemBack() {
        let url = "https://u:hunter2@h.test/f?token=abc&x=1"
        let data = ResumeData(url: url, entityTag: "\"e\"", lastModified: nil, bytesReceived: 1, partialFilePath: "/s/p",
                              createdAt: Date(timeIntervalSince1970: 0), sessionKindName: "default", originalTaskIdentifier: 1)
        let stored = data.withoutCredentials()
        #expect(!stored.url.contains("hunter2") && !stored.url.contains("abc"))
        #expect(String(decoding: stored.encoded(), as: UTF8.self).contains("hunter2") == false)
        #expect(stored.restoringCredentials(from: url)?.url == url)
        #expect(stored.restoringCredentials(from: "https://u:other@h.test/f?token=zzz&x=2") == nil)
        let plain = ResumeData(url: "https://h.test/other", entityTag: "\"e\"", lastModified: nil, bytesReceived: 1,
                               partialFilePath: "/s/p", createdAt: Date(timeIntervalSince1970: 0), sessionKindName: "default",
                               originalTaskIdentifier: 1)
        #expect(plain.withoutCredentials().restoringCredentials(from: url)?.url == "https://h.test/other")
    }
}
