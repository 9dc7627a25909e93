import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import Testing
import TransferKit

/// An httpbin-style matrix through the URLSession face, each row with the
/// behaviour Apple's URLSession shows for it.
@Suite struct HTTPBinMatrixTests {
    func session() -> TransferURLSession { TransferURLSession(transferConfiguration: ephemeralConfig()) }

    func echo(_ data: Data) throws -> (method: String, bodyLength: Int, headers: [String: String]) {
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pairs = (json["headers"] as? [[String]] ?? []).map { ($0[0].lowercased(), $0[1]) }
        return (json["method"] as? String ?? "", json["bodyLength"] as? Int ?? -1,
                Dictionary(pairs, uniquingKeysWith: { a, _ in a }))
    }

    /// Apple: 301/302 turn POST into GET and drop the body, 303 turns it into GET, 307/308 keep
    /// the method and the body.
    @Test(arguments: [(301, "GET", 0), (302, "GET", 0), (303, "GET", 0), (307, "POST", 5), (308, "POST", 5)])
    func redirectOfAPost(status: Int, method: String, bodyLength: Int) async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "\(server.httpBase)/redirect-method?status=\(status)")!)
        request.httpMethod = "POST"
        request.httpBody = Data("hello".utf8)
        let (data, response) = try await s.data(for: request)
        let e = try echo(data)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(response.url?.path == "/echo")
        #expect(e.method == method)
        #expect(e.bodyLength == bodyLength)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectChainsEndAtTheLastHop(status: Int) async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        let (data, response) = try await s.data(from: URL(string: "\(server.httpBase)/redirect/3?status=\(status)")!)
        #expect(String(decoding: data, as: UTF8.self) == "done")
        #expect(response.url?.path == "/redirect/0")
    }

    /// 4xx and 5xx are responses, never errors.
    @Test(arguments: [200, 201, 204, 400, 404, 418, 500, 503])
    func statusCodesAreResponses(code: Int) async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        let (data, response) = try await s.data(from: URL(string: "\(server.httpBase)/status/\(code)")!)
        #expect((response as? HTTPURLResponse)?.statusCode == code)
        #expect(data.isEmpty == (code == 204))
    }

    @Test(arguments: ["gzip", "deflate", "brotli", "zstd"])
    func codingsAreDecoded(route: String) async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        let (data, response) = try await s.data(from: URL(string: "\(server.httpBase)/\(route)?size=4096&seed=4")!)
        #expect(data == expectedBody(4096, seed: 4))
        #expect(response.expectedContentLength == -1)
    }

    @Test func streamsDripAndDelay() async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        let (chunked, r1) = try await s.data(from: URL(string: "\(server.httpBase)/bytes/100000?chunked=1")!)
        #expect(chunked == expectedBody(100_000))
        #expect(r1.expectedContentLength == -1, "no Content-Length on a chunked body")
        let (closed, _) = try await s.data(from: URL(string: "\(server.httpBase)/bytes/50000?close=1")!)
        #expect(closed == expectedBody(50_000))
        let (bytes, _) = try await s.bytes(from: URL(string: "\(server.httpBase)/drip?size=2000&rate=40000&chunk=100")!)
        var count = 0
        for try await _ in bytes { count += 1 }
        #expect(count == 2000)
        let (delayed, r2) = try await s.data(from: URL(string: "\(server.httpBase)/delay?ms=50&size=10")!)
        #expect(delayed == expectedBody(10))
        #expect(r2.expectedContentLength == 10)
    }

    @Test func cookiesFollowARedirect() async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        _ = try await s.data(from: URL(string: "\(server.httpBase)/cookies/set?flavour=oat")!)
        let target = "/cookies".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (data, response) = try await s.data(from: URL(string: "\(server.httpBase)/redirect-to?url=\(target)")!)
        #expect(response.url?.path == "/cookies")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((json["cookies"] as? [String: String]) == ["flavour": "oat"])
    }

    @Test(arguments: [
        ("attachment; filename=\"report 2026.csv\"", "report 2026.csv"),
        ("inline; filename*=UTF-8''%E2%82%AC%20rates.txt", "€ rates.txt"),
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment", "disposition"),
    ])
    func contentDispositionNames(header: String, suggested: String) async throws {
        let server = try await TestServer.get()
        let s = session()
        defer { s.finishTasksAndInvalidate() }
        let value = header.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (_, response) = try await s.data(from: URL(string: "\(server.httpBase)/disposition?value=\(value)")!)
        #expect(response.suggestedFilename == suggested)
    }
}

@Suite struct PerRequestCookieTests {
    @Test func httpShouldHandleCookiesFalseSendsAndStoresNone() async throws {
        let server = try await TestServer.get()
        let s = TransferURLSession(transferConfiguration: ephemeralConfig())
        defer { s.finishTasksAndInvalidate() }
        func cookies() async throws -> [String: String]? {
            var request = URLRequest(url: URL(string: "\(server.httpBase)/cookies")!)
            request.httpShouldHandleCookies = false
            let (without, _) = try await s.data(for: request)
            let json = try #require(try JSONSerialization.jsonObject(with: without) as? [String: Any])
            return json["cookies"] as? [String: String]
        }
        // Not stored when the request handles no cookies.
        var quiet = URLRequest(url: URL(string: "\(server.httpBase)/cookies/set?ignored=1")!)
        quiet.httpShouldHandleCookies = false
        _ = try await s.data(for: quiet)
        _ = try await s.data(from: URL(string: "\(server.httpBase)/cookies/set?kept=2")!)
        let (with, _) = try await s.data(from: URL(string: "\(server.httpBase)/cookies")!)
        let json = try #require(try JSONSerialization.jsonObject(with: with) as? [String: Any])
        #expect((json["cookies"] as? [String: String]) == ["kept": "2"])
        // Not sent either.
        #expect(try await cookies() == [:])
    }
}
