import Testing
@testable import TransferModel

/// RFC 6266 / RFC 8187 by table (cases after the RFCs' examples and Julian Reschke's
/// test.greenbytes.de/tech/tc2231 suite), then the safety rules of the file name.
@Suite struct ContentDispositionTests {
    @Test(arguments: [
        // header value, type, decoded name
        ("attachment; filename=\"report 2026.csv\"", "attachment", "report 2026.csv"),
        ("attachment; filename=foo.html", "attachment", "foo.html"),
        ("ATTACHMENT; FILENAME=\"foo.html\"", "attachment", "foo.html"),
        ("inline; filename=\"foo.html\"", "inline", "foo.html"),
        ("attachment;filename=\"foo.html\"", "attachment", "foo.html"),
        ("attachment; filename = \"foo.html\" ", "attachment", "foo.html"),
        ("attachment; filename=\"f\\oo.html\"", "attachment", "foo.html"),
        ("attachment; filename=\"\\\"quoting\\\" tested.html\"", "attachment", "\"quoting\" tested.html"),
        ("attachment; filename=\"Here's a semicolon;.html\"", "attachment", "Here's a semicolon;.html"),
        ("attachment; foo=\"bar\"; filename=\"foo.html\"", "attachment", "foo.html"),
        ("attachment; foo=\"\\\"\\\\\";filename=\"foo.html\"", "attachment", "foo.html"),
        // RFC 8187 / RFC 6266 §5 examples
        ("attachment; filename*=UTF-8''%e2%82%ac%20rates", "attachment", "€ rates"),
        ("attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates", "attachment", "€ rates"),
        ("attachment; filename*=utf-8''%e2%82%ac%20rates; filename=\"EURO rates\"", "attachment", "€ rates"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates", "attachment", "£ rates"),
        ("attachment; filename*=UTF-8'de'Bericht%20%C3%BCber.pdf", "attachment", "Bericht über.pdf"),
        // filename* that does not decode is ignored; filename stands
        ("attachment; filename*=UTF-8''foo-%c3%a4%e2.html; filename=\"fallback.html\"", "attachment", "fallback.html"),
        ("attachment; filename*=x-unknown''foo; filename=\"fallback.html\"", "attachment", "fallback.html"),
        ("attachment; filename*=UTF-8''a%2", "attachment", nil),
        ("attachment; filename*=\"UTF-8''foo.html\"", "attachment", nil),
        ("attachment; filename*=UTF-8''a b", "attachment", nil),
        // the first of repeated parameters
        ("attachment; filename=\"a.html\"; filename=\"b.html\"", "attachment", "a.html"),
        // no name
        ("attachment", "attachment", nil),
        ("inline", "inline", nil),
        ("attachment; filename=", "attachment", nil),
        ("attachment; filename=\"unterminated", "attachment", nil),
    ] as [(String, String, String?)])
    func parses(_ value: String, _ type: String, _ name: String?) throws {
        let d = try #require(ContentDisposition(value))
        #expect(d.type == type)
        #expect(d.filename == name)
    }

    @Test(arguments: ["", "   ", "; filename=a.txt", "\"quoted\"; filename=a.txt"])
    func withoutATypeThereIsNone(_ value: String) {
        #expect(ContentDisposition(value) == nil)
    }

    @Test(arguments: [
        ("attachment; filename=\"report 2026.csv\"", "report 2026.csv"),
        // no path: only the last component, whatever the separator
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment; filename=\"/etc/cron.d/x\"", "x"),
        ("attachment; filename=\"..\\\\..\\\\windows\\\\evil.exe\"", "evil.exe"),
        ("attachment; filename*=UTF-8''..%2F..%2F.bashrc", "bashrc"),
        ("attachment; filename=\"dir/\"", nil),
        ("attachment; filename=\"..\"", nil),
        ("attachment; filename=\".\"", nil),
        // no hidden files, no control characters, no bidi overrides
        ("attachment; filename=\".profile\"", "profile"),
        ("attachment; filename*=UTF-8''a%0Ab.txt", "a_b.txt"),
        ("attachment; filename*=UTF-8''a%00b.txt", "a_b.txt"),
        ("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", "invoicefdp.exe"),
        ("attachment; filename*=UTF-8''%E2%80%AE", nil),
        ("attachment; filename=\"index.html\"", "index.html"),
        ("attachment", nil),
    ] as [(String, String?)])
    func safeNames(_ value: String, _ safe: String?) {
        #expect(ContentDisposition.safeFilename(fromHeader: value) == safe)
    }

    @Test func aLongNameIsCutTo200Bytes() {
        let name = String(repeating: "é", count: 300) + ".txt"
        let safe = ContentDisposition.safeFilename(fromHeader: "attachment; filename=\"\(name)\"")
        #expect((safe?.utf8.count ?? 0) <= 200)
        #expect(safe?.hasPrefix("éé") == true)
    }
}
