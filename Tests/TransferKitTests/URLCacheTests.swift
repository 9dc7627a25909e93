import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// The HTTP cache (DECISIONS 102-104) against the loopback server's `/cache`
/// route. Whether a request reached the server is read from the server's own request log
/// (`stats.requests`, filtered by a marker unique to each test), never inferred from timing;
/// freshness uses max-age=3600 (fresh) or max-age=0 (stale), never a wait.
@Suite struct URLCacheTests {
    struct Result: Sendable {
        var body: Data
        var response: TransferResponse?
        var error: TransferError?
        var metrics: TaskMetrics
    }

    func fetch(_ session: TransferSession, _ request: TransferRequest) async throws -> Result {
        let box = Box<(Data?, TransferResponse?, TransferError?)>()
        let task = session.dataTask(with: request) { d, r, e in box.set((d, r, e)) }
        task.resume()
        let (d, r, e) = try await box.wait()
        return Result(body: d ?? Data(), response: r, error: e, metrics: task.metrics)
    }

    func fetch(_ session: TransferSession, _ u: String, policy: RequestCachePolicy? = nil,
               headers: [HTTPHeader] = []) async throws -> Result {
        var r = TransferRequest(url: url(u), headers: headers)
        r.cachePolicy = policy
        return try await fetch(session, r)
    }

    func count(_ server: LoopbackServer, _ marker: String) -> Int {
        server.stats.requests.filter { $0.path.contains(marker) }.count
    }

    func memorySession() -> TransferSession {
        TransferSession(configuration: ephemeralConfig { $0.urlCache = TransferURLCache.forKind(.ephemeral) })
    }

    func marker() -> String { "m" + UUID().uuidString.prefix(8).lowercased() }

    @Test func aFreshResponseIsServedWithoutARequest() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?max-age=3600&etag=v1&size=5000&seed=7&id=\(m)"
        let first = try await fetch(session, u)
        #expect(first.body == expectedBody(5000, seed: 7))
        #expect(first.metrics.transactionMetrics.last?.fetchTypeName == "network")
        let second = try await fetch(session, u)
        #expect(second.error == nil)
        #expect(second.body == first.body)
        #expect(second.response?.statusCode == 200)
        #expect(second.metrics.transactionMetrics.last?.resourceFetchType == .localCache)
        #expect(second.metrics.transactionMetrics.last?.fetchTypeName == "local-cache")
        #expect(count(server, m) == 1, "no request reached the server")
    }

    @Test func aStaleResponseIsRevalidatedWithOneConditionalRequest() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?max-age=0&etag=v2&size=3000&seed=3&id=\(m)"
        let first = try await fetch(session, u)
        let second = try await fetch(session, u)
        #expect(second.error == nil)
        #expect(second.body == first.body && second.body == expectedBody(3000, seed: 3))
        #expect(second.response?.statusCode == 200)
        #expect(second.response?.value(forHTTPHeaderField: "X-Revalidated") == "1", "headers updated from the 304")
        let hop = try #require(second.metrics.transactionMetrics.last)
        #expect(hop.fetchTypeName == "revalidated")
        #expect(hop.statusCode == 304)
        let requests = server.stats.requests.filter { $0.path.contains(m) }
        #expect(requests.count == 2)
        #expect(requests.last?.headers.first { $0.name.lowercased() == "if-none-match" }?.value == "\"v2\"")
        #expect(requests.first?.headers.contains { $0.name.lowercased() == "if-none-match" } == false)
    }

    @Test func lastModifiedAloneRevalidatesWithIfModifiedSince() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let lm = "Wed, 21 Oct 2015 07:28:00 GMT".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let u = "\(server.httpBase)/cache?max-age=0&lm=\(lm)&size=100&id=\(m)"
        let first = try await fetch(session, u)
        let second = try await fetch(session, u)
        #expect(second.body == first.body)
        let last = try #require(server.stats.requests.last { $0.path.contains(m) })
        #expect(last.header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(second.metrics.transactionMetrics.last?.fetchTypeName == "revalidated")
    }

    @Test func noStoreIsNeverStored() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?cc=no-store&etag=x&id=\(m)"
        _ = try await fetch(session, u)
        let second = try await fetch(session, u)
        #expect(second.metrics.transactionMetrics.last?.fetchTypeName == "network")
        #expect(count(server, m) == 2)
        #expect(second.metrics.transactionMetrics.last.map { $0.requestHeaders.first(named: "If-None-Match") == nil } == true)
    }

    @Test func noCacheIsAlwaysRevalidated() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?cc=no-cache%2C%20max-age%3D3600&etag=nc&id=\(m)"
        _ = try await fetch(session, u)
        let second = try await fetch(session, u)
        #expect(second.metrics.transactionMetrics.last?.fetchTypeName == "revalidated")
        #expect(count(server, m) == 2)
    }

    @Test func varyIsHonoured() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?max-age=3600&vary=X-Variant&id=\(m)"
        let a = try await fetch(session, u, headers: [HTTPHeader("X-Variant", "a")])
        #expect(String(decoding: a.body, as: UTF8.self) == "variant X-Variant=a")
        let again = try await fetch(session, u, headers: [HTTPHeader("X-Variant", "a")])
        #expect(again.metrics.transactionMetrics.last?.fetchTypeName == "local-cache")
        #expect(count(server, m) == 1)
        let b = try await fetch(session, u, headers: [HTTPHeader("X-Variant", "b")])
        #expect(String(decoding: b.body, as: UTF8.self) == "variant X-Variant=b")
        #expect(b.metrics.transactionMetrics.last?.fetchTypeName == "network")
        #expect(count(server, m) == 2)
    }

    @Test func eachRequestPolicy() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let fresh = "\(server.httpBase)/cache?max-age=3600&id=\(m)-fresh"
        _ = try await fetch(session, fresh)
        // reloadIgnoringLocalCacheData: to the server although fresh.
        let reload = try await fetch(session, fresh, policy: .reloadIgnoringLocalCacheData)
        #expect(reload.metrics.transactionMetrics.last?.fetchTypeName == "network")
        #expect(count(server, m + "-fresh") == 2)

        // returnCacheDataElseLoad: a stale response without validators is used as it is.
        let stale = "\(server.httpBase)/cache?max-age=0&size=10&id=\(m)-stale"
        let first = try await fetch(session, stale)
        let elseLoad = try await fetch(session, stale, policy: .returnCacheDataElseLoad)
        #expect(elseLoad.body == first.body)
        #expect(elseLoad.metrics.transactionMetrics.last?.fetchTypeName == "local-cache")
        #expect(count(server, m + "-stale") == 1)
        // ... and with nothing stored, it loads.
        let missing = "\(server.httpBase)/cache?max-age=3600&id=\(m)-else"
        #expect(try await fetch(session, missing, policy: .returnCacheDataElseLoad).error == nil)
        #expect(count(server, m + "-else") == 1)

        // returnCacheDataDontLoad: nothing stored is an error, and nothing is sent.
        let nothing = "\(server.httpBase)/cache?max-age=3600&id=\(m)-none"
        let failed = try await fetch(session, nothing, policy: .returnCacheDataDontLoad)
        #expect(failed.error?.code == .resourceUnavailable)
        #expect(count(server, m + "-none") == 0)
        let offline = try await fetch(session, stale, policy: .returnCacheDataDontLoad)
        #expect(offline.body == first.body)
        #expect(count(server, m + "-stale") == 1)

        // useProtocolCachePolicy on the stale one without validators: the network.
        _ = try await fetch(session, stale, policy: .useProtocolCachePolicy)
        #expect(count(server, m + "-stale") == 2)
    }

    @Test func credentialedResponsesAreStoredOnlyWhenTheyAllowIt() async throws {
        let server = try await TestServer.get()
        let session = memorySession()
        defer { session.invalidateAndCancel() }
        let m = marker()
        let auth = [HTTPHeader("Authorization", "Bearer sekrit")]
        let plain = "\(server.httpBase)/cache?max-age=3600&id=\(m)-private"
        _ = try await fetch(session, plain, headers: auth)
        _ = try await fetch(session, plain, headers: auth)
        #expect(count(server, m + "-private") == 2, "RFC 9111 3.5: not stored")
        let open = "\(server.httpBase)/cache?cc=public%2C%20max-age%3D3600&id=\(m)-public"
        _ = try await fetch(session, open, headers: auth)
        _ = try await fetch(session, open, headers: auth)
        #expect(count(server, m + "-public") == 1)
    }

    @Test func theDiskCacheServesANewProcessAndADownloadFileIsIdentical() async throws {
        let server = try await TestServer.get()
        let dir = NSTemporaryDirectory() + "urlcache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let m = marker()
        let u = "\(server.httpBase)/cache?max-age=3600&etag=d&size=20000&seed=9&id=\(m)"
        let first = TransferSession(configuration: ephemeralConfig {
            $0.urlCache = TransferURLCache(memoryCapacity: 1 << 20, diskCapacity: 4 << 20, directory: dir)
        })
        defer { first.invalidateAndCancel() }
        _ = try await fetch(first, u)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".cache") }
        #expect(files.count == 1)
        let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/" + files[0])[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        // A cache made afresh over the same directory (as the next run's) has it.
        let second = TransferSession(configuration: ephemeralConfig {
            $0.urlCache = TransferURLCache(memoryCapacity: 0, diskCapacity: 4 << 20, directory: dir)
        })
        defer { second.invalidateAndCancel() }
        let box = Box<(URL?, TransferError?, Data?)>()
        let task = second.downloadTask(with: TransferRequest(url: url(u))) { location, _, error in
            box.set((location, error, location.flatMap { try? Data(contentsOf: $0) }))
        }
        task.resume()
        let (_, error, data) = try await box.wait()
        #expect(error == nil)
        #expect(data == expectedBody(20000, seed: 9))
        #expect(task.metrics.transactionMetrics.last?.fetchTypeName == "local-cache")
        #expect(count(server, m) == 1)
    }

    @Test func aCorruptCacheFileIsDroppedNotFatal() async throws {
        let server = try await TestServer.get()
        let dir = NSTemporaryDirectory() + "urlcache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let m = marker()
        let u = "\(server.httpBase)/cache?max-age=3600&id=\(m)"
        let cache = TransferURLCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: dir)
        let session = TransferSession(configuration: ephemeralConfig { $0.urlCache = cache })
        defer { session.invalidateAndCancel() }
        _ = try await fetch(session, u)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasSuffix(".cache") })
        try Data("{\"url\":".utf8).write(to: URL(fileURLWithPath: dir + "/" + file))
        let fresh = TransferURLCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: dir)
        let again = TransferSession(configuration: ephemeralConfig { $0.urlCache = fresh })
        defer { again.invalidateAndCancel() }
        let r = try await fetch(again, u)
        #expect(r.error == nil)
        #expect(count(server, m) == 2)
    }

    @Test func willCacheResponseCanRefuse() async throws {
        let server = try await TestServer.get()
        final class Refuser: TransferDataDelegate, @unchecked Sendable {
            let done = Box<Bool>()
            let asked = Locked(0)
            func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                         completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) { completionHandler(.allow) }
            func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {}
            func session(_ session: TransferSession, dataTask: TransferDataTask, didBecome downloadTask: TransferDownloadTask) {}
            func session(_ session: TransferSession, dataTask: TransferDataTask, willCacheResponse proposed: CachedResponse,
                         completionHandler: @escaping @Sendable (CachedResponse?) -> Void) {
                asked.withLock { $0 += 1 }
                completionHandler(nil)
            }
            func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) { done.set(true) }
        }
        let delegate = Refuser()
        let session = TransferSession(configuration: ephemeralConfig { $0.urlCache = TransferURLCache.forKind(.ephemeral) },
                                      delegate: delegate)
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = url("\(server.httpBase)/cache?max-age=3600&id=\(m)")
        session.dataTask(with: u).resume()
        _ = try await delegate.done.wait()
        #expect(delegate.asked.withLock { $0 } == 1)
        #expect(session.configuration.urlCache?.cachedResponse(for: TransferRequest(url: u)) == nil)
    }
}

extension URLCacheTests {
    @Test func varyOnAuthorizationKeepsNoCredentialOnDisk() async throws {
        let server = try await TestServer.get()
        let dir = NSTemporaryDirectory() + "urlcache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = TransferSession(configuration: ephemeralConfig {
            $0.urlCache = TransferURLCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: dir)
        })
        defer { session.invalidateAndCancel() }
        let m = marker()
        let u = "\(server.httpBase)/cache?cc=public%2C%20max-age%3D3600&vary=Authorization&id=\(m)"
        let alice = [HTTPHeader("Authorization", "Bearer alice-sekrit")]
        _ = try await fetch(session, u, headers: alice)
        let again = try await fetch(session, u, headers: alice)
        #expect(again.metrics.transactionMetrics.last?.fetchTypeName == "local-cache")
        let bob = try await fetch(session, u, headers: [HTTPHeader("Authorization", "Bearer bob")])
        #expect(bob.metrics.transactionMetrics.last?.fetchTypeName == "network")
        #expect(count(server, m) == 2)
        // The head line of each entry (the body is the route's echo of the header, by design).
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let head = String(decoding: bytes.prefix(while: { $0 != 0x0a }), as: UTF8.self)
            #expect(head.contains("sha256:"), "\(head)")
            #expect(!head.contains("sekrit") && !head.contains("Bearer"), "\(head)")
        }
    }
}

extension URLCacheTests {
    func entry(_ u: String, size: Int) -> CachedResponse {
        CachedResponse(url: u, statusCode: 200, headers: [HTTPHeader("Cache-Control", "max-age=60")], requestTime: 0,
                       responseTime: 0, varyNames: [], varyValues: [:], body: Data(repeating: 7, count: size))
    }

    @Test func capacitiesEvictTheLeastRecentlyUsed() throws {
        let dir = NSTemporaryDirectory() + "urlcache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = TransferURLCache(memoryCapacity: 9000, diskCapacity: 10_000, directory: dir)
        let urls = (0..<4).map { "http://h.test/\($0)" }
        for u in urls.prefix(3) { cache.storeCachedResponse(entry(u, size: 2400), for: TransferRequest(url: url(u))) }
        // Touch the first, then a fourth entry pushes out the least recently used (the second).
        #expect(cache.cachedResponse(for: TransferRequest(url: url(urls[0]))) != nil)
        cache.storeCachedResponse(entry(urls[3], size: 2400), for: TransferRequest(url: url(urls[3])))
        #expect(cache.currentMemoryUsage <= 9000)
        #expect(cache.currentDiskUsage <= 10_000)
        let fresh = TransferURLCache(memoryCapacity: 0, diskCapacity: 10_000, directory: dir)
        #expect(fresh.currentDiskUsage == cache.currentDiskUsage)
        #expect(fresh.cachedResponse(for: TransferRequest(url: url(urls[1]))) == nil, "the least recently used left the disk")
        #expect(fresh.cachedResponse(for: TransferRequest(url: url(urls[0]))) != nil)
        #expect(fresh.cachedResponse(for: TransferRequest(url: url(urls[3]))) != nil)
        #expect(cache.cachedResponse(for: TransferRequest(url: url(urls[1]))) == nil, "and memory")
        // Larger than a quarter of the larger capacity: not stored at all.
        cache.storeCachedResponse(entry("http://h.test/big", size: 3000), for: TransferRequest(url: url("http://h.test/big")))
        #expect(cache.cachedResponse(for: TransferRequest(url: url("http://h.test/big"))) == nil)
        cache.removeAllCachedResponses()
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".cache") }.isEmpty)
    }
}
