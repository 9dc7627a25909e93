import Testing
@testable import TransferModel

struct URLCase: CustomTestStringConvertible, Sendable {
    var input: String
    var expected: String
    var testDescription: String { input.debugDescription }
}

@Suite struct RedactionTests {
    static let urls: [URLCase] = [
        URLCase(input: "https://example.test/a?b=1", expected: "https://example.test/a?b=1"),
        URLCase(input: "https://user:pass@example.test/a", expected: "https://***:***@example.test/a"),
        URLCase(input: "ftp://user@example.test/", expected: "ftp://***@example.test/"),
        URLCase(input: "https://u:p%40ss@example.test:8443/", expected: "https://***:***@example.test:8443/"),
        URLCase(input: "https://u:p@ss@host/", expected: "https://***:***@host/"),
        URLCase(input: "https://u:p#ss@host/x", expected: "https://***:***@host/x"),
        URLCase(input: "https://u:p?ss@host/x", expected: "https://***:***@host/x"),
        URLCase(input: "user:secret@host/x", expected: "***:***@host/x"),
        URLCase(input: "https://h/p?token=abc&x=1", expected: "https://h/p?token=REDACTED&x=1"),
        URLCase(input: "https://h/p?ACCESS_TOKEN=abc", expected: "https://h/p?ACCESS_TOKEN=REDACTED"),
        URLCase(input: "https://h/p?api_key=1&apikey=2&apiKey=3&x-api-key=4", expected:
            "https://h/p?api_key=REDACTED&apikey=REDACTED&apiKey=REDACTED&x-api-key=REDACTED"),
        URLCase(input: "https://h/p?password=a&passwd=b&pwd=c&secret=d&client_secret=e", expected:
            "https://h/p?password=REDACTED&passwd=REDACTED&pwd=REDACTED&secret=REDACTED&client_secret=REDACTED"),
        URLCase(input: "https://h/p?sig=a&X-Amz-Signature=b&X-Amz-Credential=c&X-Amz-Security-Token=d&X-Amz-Date=1",
                expected: "https://h/p?sig=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&X-Amz-Security-Token=REDACTED&X-Amz-Date=1"),
        URLCase(input: "https://h/p?AWSAccessKeyId=a&session=b&auth=c&jsessionid=d", expected:
            "https://h/p?AWSAccessKeyId=REDACTED&session=REDACTED&auth=REDACTED&jsessionid=REDACTED"),
        URLCase(input: "https://h/p?acc%65ss_token=abc", expected: "https://h/p?acc%65ss_token=REDACTED"),
        URLCase(input: "https://h/p?monkey=1&keyboard=2&page=3", expected: "https://h/p?monkey=1&keyboard=2&page=3"),
        URLCase(input: "https://h/cb#access_token=abc&state=1", expected: "https://h/cb#access_token=REDACTED&state=1"),
        URLCase(input: "https://h/p?token=a=b&&=x&token", expected: "https://h/p?token=REDACTED&&=x&token"),
        URLCase(input: "https://exämple.test/päth?tökén=1&token=ü", expected: "https://exämple.test/päth?tökén=1&token=REDACTED"),
        URLCase(input: "https://ü:ß@häst/", expected: "https://***:***@häst/"),
        URLCase(input: "", expected: ""),
        URLCase(input: "@", expected: "***@"),
        URLCase(input: "://@?#", expected: "://***@?#"),
        URLCase(input: "http://[::1]:80/?key=%zz", expected: "http://[::1]:80/?key=REDACTED"),
        URLCase(input: "not a url at all", expected: "not a url at all"),
        URLCase(input: "https://h/p?%=1&%%%=2", expected: "https://h/p?%=1&%%%=2"),
    ]

    @Test(arguments: urls)
    func redactsURL(_ c: URLCase) {
        #expect(Redaction.redactURL(c.input) == c.expected)
    }

    @Test(arguments: [
        ("Authorization", "Bearer abc.def", "Bearer REDACTED"),
        ("authorization", "Basic dXNlcjpwYXNz", "Basic REDACTED"),
        ("Authorization", "abc", "REDACTED"),
        ("Authorization", "Weird-Scheme! abc", "REDACTED"),
        ("Proxy-Authorization", "Basic eA==", "Basic REDACTED"),
        ("Cookie", "a=1; b=2", "REDACTED"),
        ("Set-Cookie", "sid=1; HttpOnly", "REDACTED"),
        ("X-Api-Key", "k", "REDACTED"),
        ("X-Auth-Token", "k", "REDACTED"),
        ("X-Session-Id", "k", "REDACTED"),
        ("Content-Type", "text/plain", "text/plain"),
        ("Keep-Alive", "timeout=5", "timeout=5"),
        ("Location", "https://u:p@h/next?token=t", "https://***:***@h/next?token=REDACTED"),
        ("Referer", "https://h/?sig=s", "https://h/?sig=REDACTED"),
    ])
    func masksHeaders(_ name: String, _ value: String, _ expected: String) {
        #expect(Redaction.redactHeaderValue(name: name, value: value) == expected)
    }

    @Test func redactsURLsInsideFreeText() {
        let text = "Failed to connect to https://bob:hunter2@h.test/x?token=abc: refused (see http://h/?key=k)"
        let out = Redaction.redactText(text)
        #expect(out == "Failed to connect to https://***:***@h.test/x?token=REDACTED: refused (see http://h/?key=REDACTED)")
        #expect(!out.contains("hunter2") && !out.contains("abc"))
    }

    @Test func secretWordsSplitCamelCaseAndSeparators() {
        #expect(SecretNames.splitWords("X-Amz-Security-Token") == ["x", "amz", "security", "token"])
        #expect(SecretNames.splitWords("AWSAccessKeyId") == ["awsaccess", "key", "id"])
        #expect(SecretNames.splitWords("apiKey") == ["api", "key"])
    }

    /// Property: for any string, redaction terminates, and a secret planted in a password or a
    /// token parameter never survives.
    @Test func neverLeaksPlantedSecretsInRandomURLs() {
        var rng = SeededRNG(seed: 42)
        let alphabet = Array("ab:/@?#&=%.-_~ é€😀[]\u{0}\r\n")
        for _ in 0..<2000 {
            let noise = String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let url = "https://user:PLANTED1@host/\(noise)?token=PLANTED2&\(noise)"
            let out = Redaction.redactURL(url)
            #expect(!out.contains("PLANTED1"), "\(url.debugDescription) → \(out.debugDescription)")
            _ = Redaction.redactURL(noise)
            _ = Redaction.redactText(noise)
        }
    }
}
