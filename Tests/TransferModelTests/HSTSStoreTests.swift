import Foundation
import Testing
@testable import TransferModel

/// The HSTS rules and curl's hsts.txt format (DECISIONS 67).
@Suite struct HSTSStoreTests {
    let now = 1_800_000_000.0

    @Test(arguments: [
        ("max-age=3600", 3600.0, false),
        ("max-age=\"60\"; includeSubDomains", 60, true),
        ("  MAX-AGE = 10 ;INCLUDESUBDOMAINS; preload", 10, true),
        ("includeSubDomains; max-age=0", 0, true),
    ])
    func validHeaders(header: String, maxAge: Double, subdomains: Bool) throws {
        let parsed = try #require(HSTSStore.parse(header))
        #expect(parsed.0 == maxAge)
        #expect(parsed.1 == subdomains)
    }

    @Test(arguments: ["", "includeSubDomains", "max-age=", "max-age=abc", "max-age=-5", "max-age=1; max-age=2",
                      "max-age=1; includeSubDomains; includeSubDomains", "max-age=\"5", "max-age=1.5", "max-age=٣"])
    func invalidHeadersChangeNothing(header: String) {
        var s = HSTSStore()
        let changed1 = s.record(header: header, host: "example.com", now: now)
        #expect(!changed1)
        #expect(s.isEmpty)
    }

    @Test func learnsUpgradesAndForgets() throws {
        var s = HSTSStore()
        let changed2 = s.record(header: "max-age=100; includeSubDomains", host: "Example.COM.", now: now)
        #expect(changed2)
        #expect(s.requiresHTTPS(host: "example.com", now: now))
        #expect(s.requiresHTTPS(host: "a.b.example.com", now: now))
        #expect(!s.requiresHTTPS(host: "notexample.com", now: now))
        #expect(!s.requiresHTTPS(host: "example.com", now: now + 100), "expired")
        let up = try #require(s.upgraded(URL(string: "http://example.com/x?y=1")!, now: now))
        #expect(up.absoluteString == "https://example.com/x?y=1")
        #expect(s.upgraded(URL(string: "http://example.com:80/x")!, now: now)?.absoluteString == "https://example.com/x")
        #expect(s.upgraded(URL(string: "http://example.com:8080/x")!, now: now)?.absoluteString == "https://example.com:8080/x")
        #expect(s.upgraded(URL(string: "https://example.com/x")!, now: now) == nil)
        let changed3 = s.record(header: "max-age=0", host: "example.com", now: now)
        #expect(changed3)
        #expect(!s.requiresHTTPS(host: "example.com", now: now))
    }

    @Test func subdomainsOnlyWithIncludeSubDomains() {
        var s = HSTSStore()
        s.record(header: "max-age=100", host: "example.com", now: now)
        #expect(s.requiresHTTPS(host: "example.com", now: now))
        #expect(!s.requiresHTTPS(host: "www.example.com", now: now))
    }

    @Test(arguments: ["127.0.0.1", "::1", "[::1]", "10.0.0.255"])
    func ipLiteralsNeverGetHSTS(host: String) {
        var s = HSTSStore()
        let changed4 = s.record(header: "max-age=100", host: host, now: now)
        #expect(!changed4)
        #expect(!s.requiresHTTPS(host: host, now: now))
    }

    @Test func fileRoundTripInCurlsFormat() {
        var s = HSTSStore()
        s.record(header: "max-age=3600; includeSubDomains", host: "a.example", now: now)
        s.record(header: "max-age=99999999999999999999999", host: "b.example", now: now)
        s.record(header: "max-age=60", host: "localhost", now: now)
        let text = s.fileText(now: now)
        #expect(text.contains(".a.example \"20270115 09:00:00\"\n"))
        #expect(text.contains("b.example \"unlimited\"\n"))
        #expect(text.contains("localhost \"20270115 08:01:00\"\n"))
        var back = HSTSStore()
        back.merge(fileText: text, now: now)
        #expect(back == s)
        #expect(s.fileText(now: now + 61).contains("localhost") == false, "expired entries are not written")
    }

    @Test func malformedFileLinesAreSkipped() {
        var s = HSTSStore()
        s.merge(fileText: """
            # comment
            good.example "20300101 00:00:00"
            noquote.example 20300101 00:00:00
            baddate.example "2030-01-01 00:00:00"
            badmonth.example "20301301 00:00:00"
            expired.example "20000101 00:00:00"
            127.0.0.1 "unlimited"
            "quoted" "unlimited"

            \u{0}\u{7}garbage
            .sub.example "unlimited"
            """, now: now)
        #expect(s.entries.keys.sorted() == ["good.example", "sub.example"])
        #expect(s.entries["sub.example"]?.includeSubdomains == true)
    }

    @Test func mergeKeepsTheLaterExpiryAndOwnEntriesWin() {
        var a = HSTSStore()
        a.merge(fileText: "x.example \"20300101 00:00:00\"\nx.example \"20310101 00:00:00\"\n", now: now)
        #expect(HSTSStore.formatExpiry(a.entries["x.example"]!.expires) == "20310101 00:00:00")
        var mine = HSTSStore()
        mine.record(header: "max-age=10", host: "x.example", now: now)
        mine.adoptMissing(from: a)
        #expect(mine.entries["x.example"]?.expires == now + 10)
        var other = HSTSStore()
        other.merge(fileText: "y.example \"unlimited\"", now: now)
        mine.adoptMissing(from: other)
        #expect(mine.entries.count == 2)
    }

    @Test func aForgottenHostIsNotBroughtBackByAnOlderFile() {
        var onDisk = HSTSStore()
        onDisk.merge(fileText: "gone.example \"unlimited\"\nkept.example \"unlimited\"", now: now)
        var mine = onDisk
        let changed = mine.record(header: "max-age=0", host: "gone.example", now: now)
        #expect(changed)
        mine.adoptMissing(from: onDisk)
        #expect(mine.entries.keys.sorted() == ["kept.example"])
        let relearnt = mine.record(header: "max-age=10", host: "gone.example", now: now)
        #expect(relearnt && !mine.forgotten.contains("gone.example"))
    }

    @Test func theStoreIsBounded() {
        var s = HSTSStore()
        for i in 0..<(HSTSStore.maximumEntries + 50) {
            s.record(header: "max-age=\(1000 + i)", host: "h\(i).example", now: now)
        }
        #expect(s.entries.count == HSTSStore.maximumEntries)
        #expect(s.entries["h0.example"] == nil, "the soonest to expire went first")
    }
}
