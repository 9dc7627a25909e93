import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Finished transfers' easy handles serve the next ones (`SpareHandles`): every
/// later request over HTTP/1.1 and HTTP/2 is set up and answered as on a new handle, and a
/// large body after small ones arrives whole. (A reused HTTP/2 handle once failed every
/// request with `curl_easy_setopt(BUFFERSIZE)`.)
@Suite(.serialized) struct SpareHandleTests {
    @Test(arguments: ["http", "https"])
    func laterRequestsOnSpareHandlesSucceed(scheme: String) async throws {
        let server = try await TestServer.get()
        let base = scheme == "https" ? server.httpsBase : server.httpBase
        let session = TransferSession(configuration: ephemeralConfig())
        for i in 1...12 {
            let (data, response) = try await session.data(from: url("\(base)/bytes/\(100 * i)"))
            #expect(response.statusCode == 200)
            #expect(data == expectedBody(100 * i))
            #expect(response.networkProtocolName == (scheme == "https" ? "h2" : "http/1.1"))
        }
        let (big, _) = try await session.data(from: url("\(base)/bytes/3000000"))
        #expect(sha256(big) == sha256(expectedBody(3_000_000)))
        session.finishTasksAndInvalidate()
    }

    /// Many at once, as a URL list runs them: HTTP/2 streams multiplexed on a few connections.
    @Test(arguments: ["http", "https"])
    func concurrentRequestsOnSpareHandlesSucceed(scheme: String) async throws {
        let server = try await TestServer.get()
        let base = scheme == "https" ? server.httpsBase : server.httpBase
        let session = TransferSession(configuration: ephemeralConfig { $0.httpMaximumConnectionsPerHost = 6 })
        let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for i in 1...200 {
                group.addTask { (i, try await session.data(from: url("\(base)/bytes/\(i)")).0) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 200)
        #expect(bodies.allSatisfy { $0.value == expectedBody($0.key) })
        // After the burst, a large body on whatever handle the pool gives arrives whole.
        let (big, _) = try await session.data(from: url("\(base)/bytes/3000000"))
        #expect(sha256(big) == sha256(expectedBody(3_000_000)))
        session.finishTasksAndInvalidate()
    }

    @Test func aSpareIsTakenBeforeANewHandleIsMade() throws {
        let spares = SpareHandles()
        let handle = try #require(spares.take())
        spares.put(handle)
        let again = try #require(spares.take())
        #expect(again === handle)
        #expect(again.errorText.isEmpty)
        let fresh = try #require(spares.take())
        #expect(fresh !== handle)
    }

    /// Hundreds finish between two batches of new tasks: every one of their handles is kept
    /// and serves a later transfer, none is made anew.
    @Test func aBurstOfFinishedHandlesIsKeptWhole() throws {
        let spares = SpareHandles()
        let burst = try (0..<300).map { _ in try #require(spares.take()) }
        for h in burst { spares.put(h) }
        let taken = try (0..<300).map { _ in try #require(spares.take()) }
        #expect(Set(taken.map(ObjectIdentifier.init)) == Set(burst.map(ObjectIdentifier.init)))
    }
}
