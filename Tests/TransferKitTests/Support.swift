import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import TransferKit

/// One loopback server for the whole test process (started on first use), with four event
/// loops: the many tests sharing it must not wait behind one test's large body (a POST timed out
/// after 30 s in a TSan run while another test's upload was hashed on the shared loop).
enum TestServer {
    private static let started = Locked<Task<LoopbackServer, any Error>?>(nil)

    static func get() async throws -> LoopbackServer {
        let task = started.withLock { t -> Task<LoopbackServer, any Error> in
            if let t { return t }
            let n = Task { try await LoopbackServer.start(threads: 4) }
            t = n
            return n
        }
        return try await task.value
    }

    static let caFile: String = {
        let path = NSTemporaryDirectory() + "transferkit-tests-ca-\(getpid()).pem"
        try? LoopbackServer.caCertificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()
}

func url(_ s: String) -> URL { URL(string: s)! }

func ephemeralConfig(_ change: (inout TransferConfiguration) -> Void = { _ in }) -> TransferConfiguration {
    var c = TransferConfiguration.ephemeral
    c.additionalTrustedCAFile = TestServer.caFile
    // Tests hold requests at server gates: a machine that stalls for a minute (a loaded CI
    // VM) must not turn a held request into the 60 s idle timeout. Tests of timeouts set
    // their own.
    c.timeoutIntervalForRequest = 600
    change(&c)
    return c
}

/// A delegate that records every callback by name, in order, and signals completion.
final class Recorder: TransferDataDelegate, TransferDownloadDelegate, @unchecked Sendable {
    // @unchecked: all mutable state is behind `state`.
    struct State {
        var events: [String] = []
        var data = Data()
        var downloaded: Data?
        var metrics: TaskMetrics?
        var error: TransferError?
        var completed = false
        var invalidated = false
        var writes: Int64 = 0
        var resumedAt: [Int64] = []
    }
    let state = Locked(State())
    var disposition: ResponseDisposition = .allow
    var redirectDecision: (@Sendable (TransferRequest) -> TransferRequest?)?

    var events: [String] { state.withLock { $0.events } }
    var data: Data { state.withLock { $0.data } }
    var error: TransferError? { state.withLock { $0.error } }

    private func log(_ e: String) { state.withLock { $0.events.append(e) } }

    func session(_ session: TransferSession, didBecomeInvalidWithError error: TransferError?) {
        state.withLock { $0.events.append("didBecomeInvalid"); $0.invalidated = true }
    }
    func session(_ session: TransferSession, task: TransferTask, willPerformHTTPRedirection response: TransferResponse,
                 newRequest: TransferRequest, completionHandler: @escaping @Sendable (TransferRequest?) -> Void) {
        log("redirect \(response.statusCode)")
        completionHandler(redirectDecision.map { $0(newRequest) } ?? newRequest)
    }
    func session(_ session: TransferSession, task: TransferTask, didSendBodyData bytesSent: Int64,
                 totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        state.withLock { if $0.events.last != "didSendBodyData" { $0.events.append("didSendBodyData") } }
    }
    func session(_ session: TransferSession, task: TransferTask, didFinishCollecting metrics: TaskMetrics) {
        state.withLock { $0.events.append("metrics"); $0.metrics = metrics }
    }
    func session(_ session: TransferSession, task: TransferTask, didCompleteWithError error: TransferError?) {
        state.withLock { $0.events.append("complete"); $0.error = error; $0.completed = true }
    }
    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive response: TransferResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        log("response \(response.statusCode)")
        completionHandler(disposition)
    }
    func session(_ session: TransferSession, dataTask: TransferDataTask, didBecome downloadTask: TransferDownloadTask) {
        log("didBecomeDownloadTask")
    }
    func session(_ session: TransferSession, dataTask: TransferDataTask, didReceive data: Data) {
        state.withLock { if $0.events.last != "data" { $0.events.append("data") }; $0.data.append(data) }
    }
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didFinishDownloadingTo location: URL) {
        let d = FileManager.default.contents(atPath: location.path)
        state.withLock { $0.events.append("didFinishDownloading"); $0.downloaded = d }
    }
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        state.withLock { if $0.events.last != "didWriteData" { $0.events.append("didWriteData") }; $0.writes = totalBytesWritten }
    }
    func session(_ session: TransferSession, downloadTask: TransferDownloadTask, didResumeAtOffset fileOffset: Int64,
                 expectedTotalBytes: Int64) {
        state.withLock { $0.events.append("didResumeAtOffset \(fileOffset)"); $0.resumedAt.append(fileOffset) }
    }

    /// Waits until the task completed (`waitFor`: polled, with the one `eventDeadline`).
    func waitForCompletion() async throws {
        try await waitUntil { self.state.withLock { $0.completed } }
    }
}

struct Timeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Waits for a fact (TestSupport's `waitFor`, under the name these tests have always used).
func waitUntil(_ what: String = "condition", _ cond: @Sendable () -> Bool) async throws {
    try await waitFor(what, cond)
}

/// Completion-handler result box.
final class Box<T: Sendable>: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    var get: T? { lock.lock(); defer { lock.unlock() }; return value }
    func wait() async throws -> T {
        try await waitUntil { self.get != nil }
        return get!
    }
}

func sha256(_ d: Data) -> String { SHA256.hex(d) }
func expectedBody(_ size: Int, seed: UInt8 = 0) -> Data { Data(LoopbackServer.body(size: size, seed: seed)) }

/// Resident memory of this process in bytes.
func residentBytes() -> Int64 {
    guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in s.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ").dropFirst().first.flatMap { Int64($0) } ?? 0
        return kb * 1024
    }
    return 0
}

/// A loopback port nothing listens on: connecting is refused. The socket stays bound (with
/// SO_REUSEADDR, never listening) until `release`, so no other test's server is given the port
/// in between (a port only found free and closed again was: a refused connection met another
/// test's server instead); a server with SO_REUSEADDR may still bind and listen on it.
func reservedRefusedPort() throws -> (port: Int, release: () -> Void) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard bound else { close(fd); throw Timeout(what: "a bound loopback port") }
    return (Int(UInt16(bigEndian: addr.sin_port)), { close(fd) })
}
