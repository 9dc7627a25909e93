import Digest
import Foundation
import NIOCore
import NIOHTTP1
import TransferModel

/// What to send for one request: head, then a small literal body or a streamed pattern body.
struct ResponsePlan {
    enum Framing { case length(Int), chunked, close }
    enum Cut { case stall, reset }

    var status: HTTPResponseStatus
    var headers = HTTPHeaders()
    var framing: Framing = .length(0)
    /// A small literal body (sent in one write).
    var literal: [UInt8] = []
    /// A streamed pattern body: `patternCount` bytes from `patternOffset` of seed `patternSeed`.
    var patternSeed: UInt8 = 0
    var patternOffset = 0
    var patternCount = 0
    var delayMS = 0
    /// Pacing in bytes per second (nil: as fast as the client reads).
    var rate: Int? = nil
    var chunk = 64 * 1024
    /// Send only this many body bytes, then `cut`.
    var cutAfter: Int? = nil
    var cut: Cut = .stall
    /// Hold the head until this gate opens (`headGate=G`).
    var headGate: String? = nil
    /// Body gates in order: send bytes up to `offset`, then hold until gate `name` opens
    /// (`gate=G1,G2&holdAfter=K1,K2`, offsets counted from the start of the body).
    var bodyGates: [(name: String, offset: Int)] = []

    init(status: HTTPResponseStatus) { self.status = status }

    static func text(_ status: HTTPResponseStatus, _ text: String, type: String = "text/plain") -> ResponsePlan {
        var plan = ResponsePlan(status: status)
        plan.literal = Array(text.utf8)
        plan.framing = .length(plan.literal.count)
        plan.headers.add(name: "Content-Type", value: type)
        return plan
    }

    static func pattern(_ status: HTTPResponseStatus, count: Int, offset: Int = 0, seed: UInt8 = 0) -> ResponsePlan {
        var plan = ResponsePlan(status: status)
        plan.patternCount = count
        plan.patternOffset = offset
        plan.patternSeed = seed
        plan.framing = .length(count)
        plan.headers.add(name: "Content-Type", value: "application/octet-stream")
        return plan
    }
}

/// Serves one HTTP/1.1 connection or one h2 stream (behind `HTTP2FramePayloadToHTTP1ServerCodec`).
///
/// Runs only on its channel's event loop. Body writes are paced by write completion and
/// writability: at most `maxInFlight` chunks are outstanding and none is written while the channel
/// is not writable.
final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let maxInFlight = 4
    /// Body bytes one `pump` writes before it lets the loop's other channels run. A client that
    /// drains as fast as the body is made completes every write inside `flush`, so without a
    /// budget one download kept its event loop for the whole body: curl fetching 64 MiB over
    /// TLS from the server built with the thread sanitizer (BoringSSL instrumented too) held
    /// the loop for minutes, and every other server on that loop stalled (their clients' 60 s
    /// idle time-outs fired in fresh-clone CI runs). Four chunks a turn.
    private static let bytesPerTurn = 256 << 10

    private let core: ServerCore
    private let connectionID: Int
    private let protocolName: String
    /// The TCP connection (the parent channel for an h2 stream).
    private let connection: any Channel

    /// Closes the connection this request came on (all of it, for h2): what a held response's
    /// gate does for `closeHeldConnections`.
    private var closeConnection: @Sendable () -> EventLoopFuture<Void> {
        let connection = connection
        return {
            let promise = connection.eventLoop.makePromise(of: Void.self)
            connection.close(promise: promise)
            return promise.futureResult
        }
    }
    private var isH2: Bool { protocolName == "h2" }

    // Request state.
    private var head: HTTPRequestHead?
    private var bodyCount: Int64 = 0
    private var hasher: SHA256.Hasher?
    /// The `/form` route's streaming multipart parser.
    private var form: FormReceiver?
    /// A `PUT /segments/NAME` segment being received (SegmentReceiver.swift).
    private var segment: SegmentReceiver?
    private var recorded = false

    // Response state.
    private var active = true
    private var closeAfterResponse = false
    private var plan: ResponsePlan?
    private var remaining = 0
    private var offset = 0
    private var inFlight = 0
    private var tokenReady = true
    private var finished = false
    private var pumping = false
    private var pumpAgain = false
    /// A `pump` is queued on the loop after one used its `bytesPerTurn`.
    private var pumpQueued = false
    private var timer: Scheduled<Void>?
    /// Body bytes still to send before the body gate (nil: no hold pending).
    private var holdLeft: Int?
    private var holdArrived = false
    /// The body gate held at (or next to be reached), an index into `plan.bodyGates`.
    private var gateIndex = 0

    init(core: ServerCore, connectionID: Int, protocolName: String, connection: any Channel) {
        self.core = core
        self.connectionID = connectionID
        self.protocolName = protocolName
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            bodyCount = 0
            recorded = false
            let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
            hasher = path == "/echo" ? SHA256.Hasher() : nil
            form = path == "/form"
                ? FormReceiver(boundary: FormReceiver.boundary(fromContentType: head.headers.first(name: "Content-Type")),
                               hashing: !head.uri.contains("hash=0"))
                : nil
            segment = Self.segmentName(path, head.method).map {
                SegmentReceiver(name: $0, head: head, query: Router.query(of: head.uri), table: core.segments)
            }
        case .body(let buffer):
            bodyCount += Int64(buffer.readableBytes)
            if hasher != nil {
                buffer.withUnsafeReadableBytes { self.hasher!.update($0) }
            }
            if form != nil {
                buffer.withUnsafeReadableBytes { self.form!.feed($0) }
            }
            if let segment, !buffer.withUnsafeReadableBytes({ segment.feed($0) }) {
                self.segment = nil
                segment.abandon()
                head = nil
                ServerCore.abort(connection, reset: true)
            }
        case .end:
            guard let head else { return }
            recordRequest()
            var plan = Router.route(head: head, bodyCount: bodyCount, hasher: &hasher, core: core,
                                    connectionID: connectionID, protocolName: protocolName)
            if form != nil {
                plan = .text(.ok, form!.json(bodyLength: bodyCount), type: "application/json")
                form = nil
            }
            if let segment {
                plan = segment.finish()
                self.segment = nil
            }
            if head.method == .HEAD { plan.literal = []; plan.patternCount = 0; plan.cutAfter = nil }
            self.head = nil
            if let gate = plan.headGate {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                core.gates.arrive(gate, on: context.eventLoop, close: closeConnection) { [plan] in
                    let (handler, context) = bound.value
                    handler.startAfterDelay(context: context, plan: plan, keepAlive: head.isKeepAlive)
                }
            } else {
                startAfterDelay(context: context, plan: plan, keepAlive: head.isKeepAlive)
            }
        }
    }

    private func startAfterDelay(context: ChannelHandlerContext, plan: ResponsePlan, keepAlive: Bool) {
        if plan.delayMS > 0 {
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(plan.delayMS))) {
                self.startResponse(context: context, plan: plan, keepAlive: keepAlive)
            }
        } else {
            startResponse(context: context, plan: plan, keepAlive: keepAlive)
        }
    }

    private func recordRequest() {
        guard let head, !recorded else { return }
        recorded = true
        core.record(RequestRecord(
            method: head.method.rawValue, path: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            connectionID: connectionID, protocolName: protocolName, bodyBytesReceived: bodyCount,
            formReport: form?.json(bodyLength: bodyCount)))
    }

    /// `PUT /segments/NAME`: the upload's name.
    static func segmentName(_ path: String, _ method: HTTPMethod) -> String? {
        let parts = path.split(separator: "/")
        guard method == .PUT, parts.count == 2, parts[0] == "segments" else { return nil }
        return String(parts[1])
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        segment?.abandon()
        segment = nil
        timer?.cancel()
        recordRequest()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        active = false
        timer?.cancel()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable, plan != nil, !finished, remaining > 0 { core.countBackPressureStall() }
        pump(context: context)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func startResponse(context: ChannelHandlerContext, plan: ResponsePlan, keepAlive: Bool) {
        guard active else { return }
        var headers = plan.headers
        headers.replaceOrAdd(name: "X-Connection-ID", value: String(connectionID))
        headers.replaceOrAdd(name: "X-Protocol", value: protocolName)
        closeAfterResponse = !isH2 && !keepAlive
        switch plan.framing {
        case .length(let n):
            headers.replaceOrAdd(name: "Content-Length", value: String(n))
        case .chunked:
            if !isH2 { headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked") }
        case .close:
            if !isH2 { closeAfterResponse = true }
        }
        if closeAfterResponse { headers.replaceOrAdd(name: "Connection", value: "close") }
        let version: HTTPVersion = isH2 ? .http2 : .http1_1
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: plan.status, headers: headers))),
                      promise: nil)
        if !plan.literal.isEmpty {
            let count = plan.literal.count
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.assumeIsolated().whenSuccess { self.core.addBytesWritten(count) }
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: plan.literal)))),
                          promise: promise)
        }
        self.plan = plan
        remaining = plan.cutAfter.map { min($0, plan.patternCount) } ?? plan.patternCount
        offset = plan.patternOffset
        inFlight = 0
        tokenReady = true
        finished = false
        gateIndex = 0
        holdLeft = plan.bodyGates.first?.offset
        holdArrived = false
        context.flush()
        pump(context: context)
    }

    private func pump(context: ChannelHandlerContext) {
        guard active, let plan, !finished else { return }
        if pumping { pumpAgain = true; return }
        pumping = true
        defer { pumping = false }
        var written = 0
        repeat {
            pumpAgain = false
            var wrote = false
            while remaining > 0, holdLeft != 0, inFlight < Self.maxInFlight, tokenReady, context.channel.isWritable, active,
                  written < Self.bytesPerTurn {
                let n = min(plan.chunk, remaining, holdLeft ?? .max)
                written += n
                if holdLeft != nil { holdLeft! -= n }
                var buffer = context.channel.allocator.buffer(capacity: n)
                let start = offset
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: n) { pointer in
                    BodyPattern.fill(UnsafeMutableRawBufferPointer(rebasing: pointer[0..<n]), offset: start, seed: plan.patternSeed)
                    return n
                }
                offset += n
                remaining -= n
                inFlight += 1
                let promise = context.eventLoop.makePromise(of: Void.self)
                promise.futureResult.assumeIsolated().whenComplete { result in
                    self.inFlight -= 1
                    if case .success = result { self.core.addBytesWritten(n) }
                    self.pump(context: context)
                }
                if let rate = plan.rate {
                    tokenReady = false
                    let nanos = Int64(Double(n) / Double(max(rate, 1)) * 1e9)
                    timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanos)) {
                        self.tokenReady = true
                        self.pump(context: context)
                    }
                }
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
                wrote = true
            }
            if wrote { context.flush() }
            if remaining == 0 { finishIfDone(context: context, plan: plan) }
            else if holdLeft == 0, inFlight == 0, !holdArrived { arriveAtBodyGate(context: context, plan: plan) }
            if written >= Self.bytesPerTurn, remaining > 0, !pumpQueued {
                // The rest after the loop's other channels had their turn.
                pumpQueued = true
                context.eventLoop.assumeIsolated().execute {
                    self.pumpQueued = false
                    self.pump(context: context)
                }
                break
            }
        } while pumpAgain && active && !finished
    }

    /// The bytes before the current body gate were written (their writes completed): count an
    /// arrival, and when the gate opens go on to the next gate or the end.
    private func arriveAtBodyGate(context: ChannelHandlerContext, plan: ResponsePlan) {
        guard gateIndex < plan.bodyGates.count else { return }
        holdArrived = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        core.gates.arrive(plan.bodyGates[gateIndex].name, on: context.eventLoop, close: closeConnection) {
            let (handler, context) = bound.value
            handler.passBodyGate(plan)
            handler.pump(context: context)
        }
    }

    private func passBodyGate(_ plan: ResponsePlan) {
        let passed = plan.bodyGates[gateIndex].offset
        gateIndex += 1
        holdArrived = false
        holdLeft = gateIndex < plan.bodyGates.count ? max(0, plan.bodyGates[gateIndex].offset - passed) : nil
    }

    private func finishIfDone(context: ChannelHandlerContext, plan: ResponsePlan) {
        guard !finished else { return }
        if plan.cutAfter != nil, plan.cutAfter! < plan.patternCount {
            switch plan.cut {
            case .stall:
                finished = true  // send nothing more; the client decides when to close
            case .reset:
                guard inFlight == 0 else { return }  // let the K bytes reach the socket first
                finished = true
                ServerCore.abort(connection, reset: true)
            }
            return
        }
        finished = true
        let close = closeAfterResponse
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { _ in
            if close { context.close(promise: nil) }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
