import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import TransferModel

/// One request the server received, as recorded in ``ServerStats/requests``.
public struct RequestRecord: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target: path with query, e.g. `/bytes/10?seed=3`.
    public var path: String
    /// The request headers in arrival order (for h2, as translated to HTTP/1 form).
    public var headers: [(name: String, value: String)]
    /// The ``LoopbackServer`` connection counter value of the TCP connection that carried it.
    public var connectionID: Int
    /// `"http/1.1"` or `"h2"`.
    public var protocolName: String
    /// Request body bytes received (counted, never buffered).
    public var bodyBytesReceived: Int64
    /// For `/form`: what the streaming multipart parser made of the body (the JSON the route
    /// answers), so a test of a client that discards answers can still check it.
    public var formReport: String? = nil

    /// The first value of header `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A snapshot of the server's counters, read with ``LoopbackServer/stats``.
public struct ServerStats: Sendable {
    /// TCP connections accepted on both ports since start or the last ``LoopbackServer/resetStats()``.
    public var connectionsAccepted: Int = 0
    /// TCP connections open now.
    public var activeConnections: Int = 0
    /// The most TCP connections that were open at once.
    public var maxConcurrentConnections: Int = 0
    /// Response body bytes whose write completed to the socket (not merely queued).
    public var bytesWritten: Int64 = 0
    /// Times a response with bytes still to send found its connection unwritable: the client
    /// stopped reading and the socket buffers are full (back-pressure). An event tests wait
    /// for instead of sampling `bytesWritten` until it stops growing.
    public var backPressureStalls: Int = 0
    /// Every request received, in order of completion (or of connection loss).
    public var requests: [RequestRecord] = []
}

/// A range-capable resource registered with ``LoopbackServer/setFile(_:size:seed:)``.
struct FileEntry: Sendable {
    var size: Int
    var seed: UInt8
    var etag: String
    var lastModified: String
    var lastModifiedSeconds: Int
}

/// The state shared by all connections of one server, behind a mutex.
final class ServerCore: Sendable {
    struct State {
        var stats = ServerStats()
        var files: [String: FileEntry] = [:]
        var connections: [ObjectIdentifier: any Channel] = [:]
        var nextConnectionID = 0
        var fileVersion = 0
    }

    let state = Locked(State())
    let gates = GateTable()
    let segments = SegmentTable()

    func connectionOpened(_ channel: any Channel) -> Int {
        state.withLock { s in
            s.nextConnectionID += 1
            s.stats.connectionsAccepted += 1
            s.stats.activeConnections += 1
            s.stats.maxConcurrentConnections = max(s.stats.maxConcurrentConnections, s.stats.activeConnections)
            s.connections[ObjectIdentifier(channel)] = channel
            return s.nextConnectionID
        }
    }

    func connectionClosed(_ channel: any Channel) {
        state.withLock { s in
            if s.connections.removeValue(forKey: ObjectIdentifier(channel)) != nil {
                s.stats.activeConnections = max(0, s.stats.activeConnections - 1)
            }
        }
    }

    func addBytesWritten(_ n: Int) {
        state.withLock { $0.stats.bytesWritten += Int64(n) }
    }

    func countBackPressureStall() {
        state.withLock { $0.stats.backPressureStalls += 1 }
    }

    func record(_ request: RequestRecord) {
        state.withLock { $0.stats.requests.append(request) }
    }

    func file(_ name: String) -> FileEntry? {
        state.withLock { $0.files[name] }
    }

    func setFile(_ name: String, size: Int, seed: UInt8) {
        state.withLock { s in
            s.fileVersion += 1
            let now = Int(Date().timeIntervalSince1970)
            // Strictly later than the previous version so a date If-Range always sees a change.
            let seconds = max(now, (s.files[name]?.lastModifiedSeconds ?? 0) + 1)
            s.files[name] = FileEntry(
                size: size, seed: seed,
                etag: "\"\(name.utf8.count)-\(size)-\(seed)-v\(s.fileVersion)\"",
                lastModified: httpDate(seconds), lastModifiedSeconds: seconds)
        }
    }

    /// Closes `connection` at once, skipping TLS close_notify; with `reset`, SO_LINGER 0 makes it an RST.
    static func abort(_ connection: any Channel, reset: Bool) {
        let close: @Sendable () -> Void = {
            if reset, let provider = connection as? SocketOptionProvider {
                _ = provider.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            }
            if let tls = try? connection.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
                tls.close(promise: nil)
            } else {
                connection.close(promise: nil)
            }
        }
        if connection.eventLoop.inEventLoop { close() } else { connection.eventLoop.execute(close) }
    }
}

/// Formats seconds since 1970 as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
func httpDate(_ seconds: Int) -> String { HTTPDate.format(secondsSince1970: Int64(seconds)) }

/// A real HTTP server on loopback for tests, benchmarks and the demo.
///
/// It listens on two ephemeral ports: ``httpPort`` speaks plain HTTP/1.1, ``httpsPort`` speaks TLS
/// with ALPN choosing `h2` or `http/1.1`. Both serve the same routes (see `docs/loopback-server.md`).
/// Every response carries `X-Connection-ID` (a per-TCP-connection counter) and `X-Protocol`.
/// Bodies are streamed in 64 KiB chunks, each written only when the previous write completed or
/// the channel is writable, so a client that stops reading stalls the server (real back-pressure).
public final class LoopbackServer: Sendable {
    /// The plain HTTP/1.1 port.
    public let httpPort: Int
    /// The TLS port (HTTP/1.1 or HTTP/2 by ALPN).
    public let httpsPort: Int
    private let host: String
    private let ipv6: Bool
    private let core: ServerCore
    private let listeners: [any Channel]
    /// The server's own event loops (`start(threads:)`), shut down with it; nil on `sharedLoops`.
    private let group: MultiThreadedEventLoopGroup?
    private let isShutDown = Locked(false)
    /// The test-controlled gates (`Gates.swift`).
    var gates: GateTable { core.gates }

    /// `http://HOST:PORT`, e.g. `http://127.0.0.1:40123` (IPv6 hosts are bracketed).
    public var httpBase: String { "http://\(urlHost):\(httpPort)" }
    /// `https://localhost:PORT` (the certificate names localhost, 127.0.0.1 and ::1).
    /// For an IPv6 server it is `https://[::1]:PORT`.
    public var httpsBase: String { ipv6 ? "https://[::1]:\(httpsPort)" : "https://localhost:\(httpsPort)" }
    private var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    /// The server's self-signed certificate in PEM form; trust it as a CA (curl `--cacert`, CAINFO).
    public static let caCertificatePEM: String = EmbeddedIdentity.certificatePEM

    private static let sslContext: Result<NIOSSLContext, any Error> = Result { try makeSSLContext(requiringClientCertificate: false) }
    /// The client-certificate port's: the handshake fails unless the client presents a
    /// certificate signed by the embedded identity (the identity itself will do).
    private static let clientCertificateSSLContext: Result<NIOSSLContext, any Error> = Result {
        try makeSSLContext(requiringClientCertificate: true)
    }

    private static func makeSSLContext(requiringClientCertificate: Bool) throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(EmbeddedIdentity.certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(EmbeddedIdentity.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        if requiringClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([certificate])
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// The TLS port that requires a client certificate (the same routes).
    public var clientCertificatePort: Int { listeners.count > 2 ? listeners[2].localAddress?.port ?? 0 : 0 }
    /// `https://localhost:PORT` of ``clientCertificatePort``.
    public var clientCertificateBase: String { ipv6 ? "https://[::1]:\(clientCertificatePort)" : "https://localhost:\(clientCertificatePort)" }

    /// Writes a client identity the client-certificate port accepts: a certificate and its
    /// private key (PEM; the key file 0600).
    public func writeClientIdentity(certificate: String, key: String) throws {
        try Self.writeIdentity(certificate: certificate, key: key)
    }

    /// Writes the embedded identity (its certificate, its own CA, and its private key, 0600):
    /// for other test servers that need one the tests' clients already trust (the FTPS server).
    public static func writeIdentity(certificate: String, key: String) throws {
        try EmbeddedIdentity.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        guard FileManager.default.createFile(atPath: key, contents: Data(EmbeddedIdentity.privateKeyPEM.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    private init(host: String, ipv6: Bool, core: ServerCore, listeners: [any Channel], group: MultiThreadedEventLoopGroup?) {
        self.group = group
        self.host = host
        self.ipv6 = ipv6
        self.core = core
        self.listeners = listeners
        self.httpPort = listeners[0].localAddress?.port ?? 0
        self.httpsPort = listeners[1].localAddress?.port ?? 0
    }

    /// Starts a server bound to port 0 (plain), port 0 (TLS) and port 0 (TLS requiring a client
    /// certificate) on `host`.
    /// - Parameters:
    ///   - host: the address to bind; `127.0.0.1` by default.
    ///   - ipv6: when `true` and `host` is the default, binds `::1` instead.
    /// `httpPort`: the plain port to listen on, 0 for any free one (a test that first needs
    /// the port refused, then served, picks it).
    /// `threads`: event loops of its own (shut down with it), for a server many tests share or
    /// one that works long on its loop (a 256 MiB upload or form under TSan took minutes), so
    /// neither holds up other servers' connections; nil: the eight process-wide `sharedLoops`,
    /// as most tests' short-lived servers (a loop per server made so many descriptors that
    /// Foundation's `Process.run`, listing /proc/self/fd, overran its buffer under ASan).
    public static func start(host: String = "127.0.0.1", ipv6: Bool = false, httpPort: Int = 0, threads: Int? = nil) async throws -> LoopbackServer {
        let bindHost = (ipv6 && host == "127.0.0.1") ? "::1" : host
        let core = ServerCore()
        let serverContext = try Self.sslContext.get()
        let clientCertificateContext = try Self.clientCertificateSSLContext.get()
        let ownGroup = threads.map { MultiThreadedEventLoopGroup(numberOfThreads: max(1, $0)) }
        let group = ownGroup ?? Self.sharedLoops

        func bootstrap(tls: Bool, requiringClientCertificate: Bool = false) -> ServerBootstrap {
            let sslContext = requiringClientCertificate ? clientCertificateContext : serverContext
            return ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    let id = core.connectionOpened(channel)
                    channel.closeFuture.whenComplete { _ in core.connectionClosed(channel) }
                    if !tls {
                        var encoder = HTTPResponseEncoder.Configuration()
                        encoder.automaticallySetFramingHeaders = false
                        return channel.pipeline.configureHTTPServerPipeline(withEncoderConfiguration: encoder).flatMapThrowing {
                            try channel.pipeline.syncOperations.addHandler(
                                RequestHandler(core: core, connectionID: id, protocolName: "http/1.1", connection: channel))
                        }
                    }
                    do {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                    return channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { connection in
                            return connection.configureHTTP2Pipeline(
                                mode: .server,
                                connectionConfiguration: Self.h2Connection,
                                streamConfiguration: Self.h2Streams
                            ) { stream in
                                stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandlers(
                                        HTTP2FramePayloadToHTTP1ServerCodec(),
                                        RequestHandler(core: core, connectionID: id, protocolName: "h2", connection: connection))
                                }
                            }.map { _ in () }
                        },
                        http1ChannelConfigurator: { connection in
                            var encoder = HTTPResponseEncoder.Configuration()
                            encoder.automaticallySetFramingHeaders = false
                            return connection.pipeline.configureHTTPServerPipeline(withEncoderConfiguration: encoder)
                                .flatMapThrowing {
                                    try connection.pipeline.syncOperations.addHandler(
                                        RequestHandler(core: core, connectionID: id, protocolName: "http/1.1", connection: connection))
                                }
                        })
                }
        }

        let plain: any Channel
        do { plain = try await bootstrap(tls: false).bind(host: bindHost, port: httpPort).get() } catch {
            try? await ownGroup?.shutdownGracefully()
            throw error
        }
        do {
            let secure = try await bootstrap(tls: true).bind(host: bindHost, port: 0).get()
            do {
                let mutual = try await bootstrap(tls: true, requiringClientCertificate: true).bind(host: bindHost, port: 0).get()
                return LoopbackServer(host: bindHost, ipv6: bindHost.contains(":"), core: core, listeners: [plain, secure, mutual], group: ownGroup)
            } catch {
                try? await secure.close().get()
                throw error
            }
        } catch {
            try? await plain.close().get()
            try? await ownGroup?.shutdownGracefully()
            throw error
        }
    }

    /// Stops listening and closes every open connection. Safe to call more than once.
    public func shutdown() async throws {
        let first = isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        for listener in listeners { try? await listener.close().get() }
        let open = core.state.withLock { Array($0.connections.values) }
        for connection in open {
            ServerCore.abort(connection, reset: false)
        }
        for connection in open { try? await connection.closeFuture.get() }
        try? await group?.shutdownGracefully()
    }

    /// Writes ``caCertificatePEM`` to `path` (for clients that need a CA file).
    public func writeCACertificate(to path: String) throws {
        try Self.caCertificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A snapshot of the counters and the request log.
    public var stats: ServerStats {
        core.state.withLock { $0.stats }
    }

    /// Zeroes the counters and clears the request log; `activeConnections` keeps the true count.
    public func resetStats() {
        core.state.withLock { s in
            let active = s.stats.activeConnections
            s.stats = ServerStats()
            s.stats.activeConnections = active
            s.stats.maxConcurrentConnections = active
        }
    }

    /// What the server holds of the segmented upload `PUT /segments/NAME` (nil: none arrived).
    public func segmentUpload(_ name: String) -> SegmentUploadReport? { core.segments.report(name) }

    /// Registers (or replaces) the resource served at `/files/NAME`: `size` bytes of
    /// ``body(size:seed:)`` with a fresh strong ETag and Last-Modified.
    public func setFile(_ name: String, size: Int, seed: UInt8 = 0) {
        core.setFile(name, size: size, seed: seed)
    }

    /// Gives `/files/NAME` new content (same size, `newSeed`) and a new ETag and Last-Modified,
    /// so an `If-Range` from before the change no longer matches. Unknown names are ignored.
    public func changeFile(_ name: String, newSeed: UInt8) {
        guard let entry = core.file(name) else { return }
        core.setFile(name, size: entry.size, seed: newSeed)
    }
}

public extension LoopbackServer {
    /// The loops of servers started without `threads`: eight, made once and never shut down.
    /// NIO's singleton has one per core (two on the CI machine), so one server busy on a loop
    /// (a 256 MiB form parsed under the thread sanitizer) stalled half of every other test's
    /// servers; with eight, a busy loop holds up an eighth, and the known heavy tests start
    /// servers with loops of their own. Not one per server: that many descriptors overran
    /// Foundation's `Process.run` under ASan.
    static let sharedLoops = MultiThreadedEventLoopGroup(numberOfThreads: 8)

    /// The deterministic body of `size` bytes for `seed` that `/bytes/N` and `/files/NAME` serve.
    /// Byte `i` is a 65,521-periodic pseudo-random pattern of `seed`; see the type docs.
    static func body(size: Int, seed: UInt8 = 0) -> [UInt8] {
        bodyBytes(offset: 0, count: size, seed: seed)
    }

    /// Bytes `[offset, offset+count)` of the deterministic body for `seed`.
    static func bodyBytes(offset: Int, count: Int, seed: UInt8 = 0) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            BodyPattern.fill(UnsafeMutableRawBufferPointer(buffer), offset: offset, seed: seed)
            initialized = count
        }
    }
}
