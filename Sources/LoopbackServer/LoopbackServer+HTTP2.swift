import NIOCore
import NIOHTTP2

extension LoopbackServer {
    /// The h2 side's settings: up to 256 streams at once, 8 MiB windows.
    ///
    /// swift-nio-http2's defences against misbehaving peers are set far above its defaults
    /// (200 stream errors per connection, 200 resets and 200 stream errors per 30 s): 10,000
    /// per millisecond, never reached. (Not `Int.max`: each rate limit reserves room for its
    /// count, 8 bytes an event, up front.) libcurl
    /// 7.88 sends frames for streams the server has already closed, which NIO counts as
    /// stream errors: with the defaults, the 200th such stream on one connection got a GOAWAY
    /// (ENHANCE_YOUR_CALM), and curl and TransferKit alike failed the streams in flight
    /// ("Error in the HTTP2 framing layer"). nginx, the benchmarks' h2 server, does not do
    /// this; a loopback test server has no attacker to defend against.
    static let h2Connection: NIOHTTP2Handler.ConnectionConfiguration = {
        var c = NIOHTTP2Handler.ConnectionConfiguration()
        c.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 256),
            HTTP2Setting(parameter: .initialWindowSize, value: h2Window),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        c.targetWindowSize = h2Window
        c.maximumConnectionGlitches = Int(Int32.max)
        return c
    }()

    static let h2Streams: NIOHTTP2Handler.StreamConfiguration = {
        var s = NIOHTTP2Handler.StreamConfiguration()
        s.targetWindowSize = h2Window
        s.streamResetFrameRateLimit.maximumCount = 10_000
        s.streamResetFrameRateLimit.windowLength = .milliseconds(1)
        s.streamErrorRateLimit.maximumCount = 10_000
        s.streamErrorRateLimit.windowLength = .milliseconds(1)
        return s
    }()

    static let h2Window = 8 << 20
}
