import Foundation
import LoopbackServer
import TestSupport
import TransferModel
import Testing

/// Runs /usr/bin/curl with `arguments` (off the cooperative pool); returns stdout bytes,
/// stderr text and the exit status.
private func curl(_ arguments: [String]) async throws -> (out: [UInt8], err: String, status: Int32) {
    try await offPool { try curlBlocking(arguments) }
}

private func curlBlocking(_ arguments: [String]) throws -> (out: [UInt8], err: String, status: Int32) {
    // Only a guard against a hang: a 32 MiB upload hashed by a sanitizer-built server, beside
    // other suites, took over 20 s once. Tests that want a timeout pass their own --max-time.
    let outPath = NSTemporaryDirectory() + "lbs-\(UUID().uuidString).out"
    let errPath = outPath + ".err"
    defer { unlink(outPath); unlink(errPath) }
    let status = try ChildProcess.spawn(["/usr/bin/curl", "-s", "-S", "--max-time", "300"] + arguments,
                                        standardOutput: .path(outPath), standardError: .path(errPath)).waitBlocking()
    let out = FileManager.default.contents(atPath: outPath) ?? Data()
    let err = FileManager.default.contents(atPath: errPath) ?? Data()
    return ([UInt8](out), String(decoding: err, as: UTF8.self), status)
}

/// Runs curl on `path` until `count` body bytes have arrived (the server then holds the
/// response), stops it, and returns what it had. Waits for the bytes, not for a time. Spawned
/// and reaped with TestSupport's `ChildProcess`: Foundation's `Process` was seen to take
/// minutes to notice a terminated child here.
private func stalledDownload(_ server: LoopbackServer, _ path: String, expecting count: Int) async throws -> [UInt8] {
    let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("lbs-\(UUID().uuidString).out").path
    defer { unlink(outPath) }
    // -N: curl writes each block as it arrives (stdout to a file is otherwise held to exit).
    let curl = try ChildProcess.spawn(["/usr/bin/curl", "-s", "-N", "--max-time", "300", server.httpBase + path],
                                      standardOutput: .path(outPath))
    defer {
        kill(curl.pid, SIGKILL)
        _ = curl.waitBlocking()
    }
    try await waitFor("\(count) bytes at curl") {
        ((try? FileManager.default.attributesOfItem(atPath: outPath)[.size] as? Int) ?? 0) >= count
    }
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: outPath)))
}

/// Header lines written by `curl -D -` ahead of the body are split off here.
private func split(_ bytes: [UInt8]) -> (headers: String, body: [UInt8]) {
    let marker: [UInt8] = Array("\r\n\r\n".utf8)
    var searchFrom = 0
    var lastEnd = 0
    // Skip every head (redirects, 100-continue) by taking the last "\r\n\r\n" that starts a head block.
    while let range = firstRange(of: marker, in: bytes, from: searchFrom) {
        lastEnd = range
        let next = range + 4
        if next + 5 <= bytes.count, Array(bytes[next..<next + 5]) == Array("HTTP/".utf8) {
            searchFrom = next
            continue
        }
        break
    }
    let end = lastEnd + 4
    return (String(decoding: bytes[0..<min(end, bytes.count)], as: UTF8.self), Array(bytes[min(end, bytes.count)...]))
}

private func firstRange(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    var i = from
    while i <= haystack.count - needle.count {
        if haystack[i] == needle[0], Array(haystack[i..<i + needle.count]) == needle { return i }
        i += 1
    }
    return nil
}

/// `threads`: event loops of the server's own, for a test whose server works long on its loop
/// (64 MiB through TLS under the thread sanitizer took minutes), so other tests' servers never wait.
private func withServer(threads: Int? = nil, _ body: (LoopbackServer, String) async throws -> Void) async throws {
    let server = try await LoopbackServer.start(threads: threads)
    let caPath = FileManager.default.temporaryDirectory.appendingPathComponent("lbs-ca-\(UUID().uuidString).pem").path
    try server.writeCACertificate(to: caPath)
    defer { try? FileManager.default.removeItem(atPath: caPath) }
    do {
        try await body(server, caPath)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
    try await server.shutdown()  // idempotent
}

@Suite("LoopbackServer")
struct LoopbackServerTests {
    @Test func bodyPatternIsDeterministicAndShiftSensitive() {
        let a = LoopbackServer.body(size: 200_000)
        #expect(a == LoopbackServer.body(size: 200_000))
        #expect(Array(a[1000..<2000]) == LoopbackServer.bodyBytes(offset: 1000, count: 1000))
        #expect(Array(a[0..<1000]) != Array(a[1..<1001]))
        #expect(LoopbackServer.body(size: 1000, seed: 1) != Array(a[0..<1000]))
        // Offsets spanning the period boundary stay consistent.
        #expect(Array(a[65_000..<67_000]) == LoopbackServer.bodyBytes(offset: 65_000, count: 2000))
    }

    @Test func sizedChunkedAndCloseDelimitedBodies() async throws {
        try await withServer { server, _ in
            let expected = LoopbackServer.body(size: 100_000, seed: 7)
            let sized = try await curl(["-D", "-", "\(server.httpBase)/bytes/100000?seed=7"])
            let (sizedHead, sizedBody) = split(sized.out)
            #expect(sizedHead.lowercased().contains("content-length: 100000"))
            #expect(sizedHead.lowercased().contains("x-connection-id: "))
            #expect(sizedHead.lowercased().contains("x-protocol: http/1.1"))
            #expect(sizedBody == expected)

            let chunked = try await curl(["-D", "-", "\(server.httpBase)/bytes/100000?seed=7&chunked=1"])
            let (chunkedHead, chunkedBody) = split(chunked.out)
            #expect(chunkedHead.lowercased().contains("transfer-encoding: chunked"))
            #expect(!chunkedHead.lowercased().contains("content-length"))
            #expect(chunkedBody == expected)

            let closed = try await curl(["-D", "-", "\(server.httpBase)/bytes/100000?seed=7&close=1"])
            let (closedHead, closedBody) = split(closed.out)
            #expect(!closedHead.lowercased().contains("content-length"))
            #expect(!closedHead.lowercased().contains("transfer-encoding"))
            #expect(closedBody == expected)
        }
    }

    @Test func http2OverTLSAndHTTP1OverTLS() async throws {
        try await withServer { server, ca in
            let h2 = try await curl(["-D", "-", "--http2", "--cacert", ca, "\(server.httpsBase)/bytes/300000?seed=2"])
            #expect(h2.status == 0, "\(h2.err)")
            let (head, body) = split(h2.out)
            #expect(head.hasPrefix("HTTP/2 200"))
            #expect(head.lowercased().contains("x-protocol: h2"))
            #expect(body == LoopbackServer.body(size: 300_000, seed: 2))

            let h1 = try await curl(["-D", "-", "--http1.1", "--cacert", ca, "\(server.httpsBase)/bytes/1000"])
            #expect(h1.status == 0, "\(h1.err)")
            #expect(split(h1.out).headers.hasPrefix("HTTP/1.1 200"))
            #expect(split(h1.out).body == LoopbackServer.body(size: 1000))
            #expect(server.stats.requests.map(\.protocolName) == ["h2", "http/1.1"])
        }
    }

    /// Hundreds of streams on one h2 connection all succeed: libcurl's frames for streams the
    /// server has closed are not taken for an attack (swift-nio-http2's defaults answered the
    /// 200th with GOAWAY, failing the streams then in flight).
    @Test func manyStreamsOnOneH2Connection() async throws {
        try await withServer { server, ca in
            server.resetStats()
            let count = 400
            let config = NSTemporaryDirectory() + "lbs-\(UUID().uuidString).curl"
            defer { unlink(config) }
            try (1...count).map { "url = \"\(server.httpsBase)/bytes/1024?seed=\($0)\"\noutput = \"/dev/null\"\n" }.joined()
                .write(toFile: config, atomically: true, encoding: .utf8)
            let r = try await curl(["--http2", "--cacert", ca, "--parallel", "--parallel-max", "6", "-w", "%{http_code}\\n", "-K", config])
            #expect(r.status == 0, "\(r.err)")
            let codes = String(decoding: r.out, as: UTF8.self).split(separator: "\n")
            #expect(codes.count == count && codes.allSatisfy { $0 == "200" }, "\(Set(codes)) \(r.err)")
            let requests = server.stats.requests
            #expect(requests.count == count)
            #expect(Set(requests.map(\.connectionID)).count == 1, "one connection, multiplexed")
        }
    }

    @Test func rangesIfRangeAnd416() async throws {
        try await withServer { server, _ in
            server.setFile("f.bin", size: 10_000, seed: 3)
            let url = "\(server.httpBase)/files/f.bin"
            let full = try await curl(["-D", "-", url])
            let (fullHead, fullBody) = split(full.out)
            #expect(fullHead.hasPrefix("HTTP/1.1 200"))
            #expect(fullBody == LoopbackServer.body(size: 10_000, seed: 3))
            let etag = fullHead.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }
                .map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? ""
            #expect(etag.hasPrefix("\""))

            let partial = try await curl(["-D", "-", "-H", "Range: bytes=4000-", "-H", "If-Range: \(etag)", url])
            let (partialHead, partialBody) = split(partial.out)
            #expect(partialHead.hasPrefix("HTTP/1.1 206"))
            #expect(partialHead.contains("Content-Range: bytes 4000-9999/10000"))
            #expect(partialBody == LoopbackServer.bodyBytes(offset: 4000, count: 6000, seed: 3))

            let middle = try await curl(["-H", "Range: bytes=10-19", url])
            #expect(middle.out == LoopbackServer.bodyBytes(offset: 10, count: 10, seed: 3))

            server.changeFile("f.bin", newSeed: 4)
            let stale = try await curl(["-D", "-", "-H", "Range: bytes=4000-", "-H", "If-Range: \(etag)", url])
            let (staleHead, staleBody) = split(stale.out)
            #expect(staleHead.hasPrefix("HTTP/1.1 200"))
            #expect(staleBody == LoopbackServer.body(size: 10_000, seed: 4))

            let beyond = try await curl(["-D", "-", "-H", "Range: bytes=10000-", url])
            #expect(split(beyond.out).headers.hasPrefix("HTTP/1.1 416"))
            #expect(split(beyond.out).headers.contains("Content-Range: bytes */10000"))

            let lying = try await curl(["-D", "-", "-H", "Range: bytes=4000-", "\(url)?badRange=1"])
            #expect(split(lying.out).headers.contains("Content-Range: bytes 0-5999/10000"))
            let missing = try await curl(["-D", "-", "\(server.httpBase)/files/nope"])
            #expect(split(missing.out).headers.hasPrefix("HTTP/1.1 404"))
        }
    }

    @Test func echoCountsAndHashesUpload() async throws {
        try await withServer { server, _ in
            let dir = FileManager.default.temporaryDirectory
            let file = dir.appendingPathComponent("lbs-up-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            // "abc" has the well-known SHA-256 ba7816bf...
            try Data("abc".utf8).write(to: file)
            let small = try await curl(["--data-binary", "@\(file.path)", "\(server.httpBase)/echo?x=1"])
            let json = try JSONSerialization.jsonObject(with: Data(small.out)) as? [String: Any]
            #expect(json?["method"] as? String == "POST")
            #expect(json?["path"] as? String == "/echo?x=1")
            #expect(json?["bodyLength"] as? Int == 3)
            #expect(json?["bodySHA256"] as? String == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")

            try Data(LoopbackServer.body(size: 3_000_000, seed: 9)).write(to: file)
            let big = try await curl(["-T", file.path, "\(server.httpBase)/echo"])
            let bigJSON = try JSONSerialization.jsonObject(with: Data(big.out)) as? [String: Any]
            #expect(bigJSON?["method"] as? String == "PUT")
            #expect(bigJSON?["bodyLength"] as? Int == 3_000_000)
            let path = file.path
            let text = try await ToolRun.run("/usr/bin/sha256sum", [path], withStandardError: false).output
            #expect(bigJSON?["bodySHA256"] as? String == text.split(separator: " ").first.map(String.init))
            #expect(server.stats.requests.last?.bodyBytesReceived == 3_000_000)
        }
    }

    /// `headGate`: no head leaves before the test opens the gate; then the response is whole.
    @Test func headGateHoldsTheResponseUntilOpened() async throws {
        try await withServer { server, _ in
            let gate = UUID().uuidString
            let done = Locked(false)
            let call = Task {
                let r = try await curl(["\(server.httpBase)/bytes/10?headGate=\(gate)"])
                done.withLock { $0 = true }
                return r
            }
            try await server.waitForGate(gate)
            #expect(server.stats.bytesWritten == 0)
            #expect(!done.withLock { $0 })
            server.openGate(gate)
            let result = try await call.value
            #expect(result.out == LoopbackServer.body(size: 10))
            // An open gate stays open: a later request passes (and is counted).
            #expect(try await curl(["\(server.httpBase)/bytes/5?headGate=\(gate)"]).out.count == 5)
            #expect(server.gateArrivals(gate) == 2)
        }
    }

    /// `gate` + `holdAfter`: exactly K body bytes are written, then nothing until the gate opens.
    @Test func bodyGateHoldsAfterKBytes() async throws {
        try await withServer { server, _ in
            let gate = UUID().uuidString
            let call = Task { try await curl(["\(server.httpBase)/bytes/300000?seed=4&gate=\(gate)&holdAfter=70000"]) }
            try await server.waitForGate(gate)
            #expect(server.stats.bytesWritten == 70000)
            server.openGate(gate)
            let result = try await call.value
            #expect(result.out == LoopbackServer.body(size: 300000, seed: 4))
            // Counted when a write completes, which may be just after curl has read it all.
            try await waitFor("the last writes to complete") { server.stats.bytesWritten == 300000 }
        }
    }

    /// Two body gates: held at each offset in turn until its gate opens.
    @Test func bodyGatesHoldInTurn() async throws {
        try await withServer { server, _ in
            let (g1, g2) = (UUID().uuidString, UUID().uuidString)
            let call = Task { try await curl(["\(server.httpBase)/bytes/300000?seed=6&gate=\(g1),\(g2)&holdAfter=70000,200000"]) }
            try await server.waitForGate(g1)
            #expect(server.stats.bytesWritten == 70000)
            server.openGate(g1)
            try await server.waitForGate(g2)
            #expect(server.stats.bytesWritten == 200000)
            server.openGate(g2)
            #expect(try await call.value.out == LoopbackServer.body(size: 300000, seed: 6))
        }
    }

    @Test func delayWaitsAtLeastTheRequestedTime() async throws {
        try await withServer { server, _ in
            let start = ContinuousClock.now
            let result = try await curl(["\(server.httpBase)/delay?ms=300&size=10"])
            let elapsed = ContinuousClock.now - start
            #expect(result.out.count == 10)
            #expect(elapsed >= .milliseconds(300))
        }
    }

    @Test func statsCountConnectionsAndBytes() async throws {
        try await withServer { server, _ in
            server.resetStats()
            _ = try await curl(["\(server.httpBase)/bytes/5000", "\(server.httpBase)/bytes/7000"])  // one kept-alive connection
            _ = try await curl(["\(server.httpBase)/conn"])
            // The close of the last connection is observed a moment after curl exits.
            try await waitFor("connections closed") { server.stats.activeConnections == 0 }
            let stats = server.stats
            #expect(stats.connectionsAccepted == 2)
            #expect(stats.requests.count == 3)
            #expect(stats.requests[0].connectionID == stats.requests[1].connectionID)
            #expect(stats.requests[2].connectionID != stats.requests[0].connectionID)
            #expect(stats.bytesWritten == 5000 + 7000 + Int64(String(stats.requests[2].connectionID).utf8.count))
            #expect(stats.activeConnections == 0)
            #expect(stats.maxConcurrentConnections >= 1)
        }
    }

    @Test func routesRedirectCookiesStatusResetStall() async throws {
        try await withServer { server, _ in
            let redirect = try await curl(["-L", "-D", "-", "\(server.httpBase)/redirect/3?status=307"])
            #expect(String(decoding: split(redirect.out).body, as: UTF8.self) == "done")
            #expect(String(decoding: redirect.out, as: UTF8.self).contains("HTTP/1.1 307"))

            let cookies = try await curl(["-c", "-", "\(server.httpBase)/cookies/set?a=1&b=two"])
            #expect(String(decoding: cookies.out, as: UTF8.self).contains("\ta\t1"))
            let sent = try await curl(["-H", "Cookie: a=1; b=two", "\(server.httpBase)/cookies"])
            #expect(String(decoding: sent.out, as: UTF8.self).contains("\"b\":\"two\""))

            let status = try await curl(["-o", "/dev/null", "-w", "%{http_code}", "\(server.httpBase)/status/503"])
            #expect(String(decoding: status.out, as: UTF8.self) == "503")

            let reset = try await curl(["\(server.httpBase)/reset?size=100000&after=1000"])
            #expect(reset.status != 0)
            #expect(reset.out == LoopbackServer.body(size: 1000))

            // No timeout decides it (5 s of curl's --max-time passed with nothing under ASan on a
            // loaded machine): curl runs until its first 500 bytes have arrived; by then the
            // server has written all it will (the route stops at 500) and holds the connection.
            let before = server.stats.bytesWritten
            let stall = try await stalledDownload(server, "/stall?size=100000&after=500", expecting: 500)
            #expect(stall == LoopbackServer.body(size: 500))
            try await waitFor("the server's count of the 500 bytes") { server.stats.bytesWritten - before >= 500 }
            #expect(server.stats.bytesWritten - before == 500)
        }
    }

    @Test func backPressureStopsBytesWritten() async throws {
        try await withServer(threads: 1) { server, _ in
            // curl reads at 64 KiB/s for 1 s: the server must stall instead of queueing 64 MiB.
            _ = try await curl(["--limit-rate", "64K", "--max-time", "1", "-o", "/dev/null",
                          "\(server.httpBase)/bytes/67108864"])
            let written = server.stats.bytesWritten
            print("LoopbackServer back-pressure: \(written) bytes written while curl read at 64 KiB/s for 1 s")
            #expect(written < 24 << 20)
        }
    }

    @Test func throughput64MiB() async throws {
        try await withServer(threads: 1) { server, ca in
            for (label, url, extra) in [
                ("http/1.1", "\(server.httpBase)/bytes/67108864", [String]()),
                ("h2", "\(server.httpsBase)/bytes/67108864", ["--http2", "--cacert", ca]),
            ] {
                let start = ContinuousClock.now
                let result = try await curl(extra + ["-o", "/dev/null", "-w", "%{size_download} %{http_version}", url])
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let text = String(decoding: result.out, as: UTF8.self)
                print("LoopbackServer 64 MiB over \(label): \(String(format: "%.2f", seconds)) s, "
                      + "\(String(format: "%.0f", 64 / seconds)) MiB/s (\(text))")
                #expect(text.hasPrefix("67108864"))  // speed is printed, never asserted
            }
        }
    }

    @Test func uploadThroughput() async throws {
        try await withServer { server, _ in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("lbs-big-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(LoopbackServer.body(size: 32 << 20, seed: 5)).write(to: file)
            let start = ContinuousClock.now
            let result = try await curl(["-T", file.path, "\(server.httpBase)/echo"])
            let elapsed = ContinuousClock.now - start
            print("LoopbackServer 32 MiB upload to /echo (SHA-256): \(elapsed)")
            #expect(String(decoding: result.out, as: UTF8.self).contains("\"bodyLength\":33554432"),
                    "curl exit \(result.status): \(result.err)")
        }
    }
}
