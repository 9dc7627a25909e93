import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves `GET /metrics` for `--prometheus [HOST:]PORT` on its own event-loop thread, so a
/// scrape never waits on the monitor or the transfer threads. Default host 127.0.0.1: a
/// user who wants scrapes from other machines says `0.0.0.0:PORT`.
public final class MetricsServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    /// The bound address (with the port the kernel picked for port 0).
    public let address: String

    public static func start(host: String, port: Int, metrics: FleetMetrics) throws -> MetricsServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline().flatMap {
                        channel.pipeline.addHandler(MetricsHandler(metrics: metrics))
                    }
                }
                .bind(host: host, port: port).wait()
            return MetricsServer(group: group, channel: channel)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
        let bound = channel.localAddress
        let host = bound?.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "?"
        address = "\(host):\(bound?.port ?? 0)"
    }

    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// One request, one answer: the registry's text for /metrics, 404 otherwise.
final class MetricsHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let metrics: FleetMetrics

    init(metrics: FleetMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let found = path == "/metrics" && (head.method == .GET || head.method == .HEAD)
        let body = found ? metrics.text() : "not found: transfertop serves /metrics\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        // One answer per connection: a scraper that keeps connections open (or never closes
        // them) must not use up descriptors the transfers need.
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: found ? .ok : .notFound, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
