/// When a response body is too large to keep: past the caller's maximum (curl's
/// `--max-filesize`), or, for a body decoded from a content coding, a decompression bomb,
/// whose decoded size dwarfs the bytes that came over the wire. Pure.
public struct BodySizeLimit: Sendable, Equatable {
    /// The most body bytes kept, counted as stored (decoded when decoding); nil: no limit.
    public var maximum: Int64?
    /// Decoded bytes allowed per wire byte once past `allowance`; nil: no bomb guard.
    public var ratio: Int?

    /// Decoded output always allowed before the ratio is looked at: small bodies of one
    /// repeated byte (a blank image, a sparse table) compress far better than 500:1.
    public static let allowance: Int64 = 10 << 20
    /// Real content decodes at far less (JSON about 25:1, near-identical log lines about
    /// 170:1 with zlib -9). A gzip stream cannot exceed about 1,032:1, and a gzip -9 bomb of
    /// zeros comes to 1,028:1: a limit near that is crossed only once the bytes libcurl has
    /// read but not yet decoded are negligible against the output, far past the allowance;
    /// at 500:1 such a bomb stops within a few MiB of it. zstd and brotli bombs go far
    /// beyond either.
    public static let defaultRatio = 500

    public enum Verdict: Sendable, Equatable {
        case within
        case announcedOverMaximum(announced: Int64, maximum: Int64)
        case overMaximum(maximum: Int64)
        case bomb(decoded: Int64, wire: Int64, ratio: Int)
    }

    public init(maximum: Int64?, ratio: Int?) {
        self.maximum = maximum
        self.ratio = ratio
    }

    /// A response head's Content-Length (-1: none), with `alreadyStored` bytes of an
    /// earlier attempt in front of it.
    public func check(announced: Int64, alreadyStored: Int64 = 0) -> Verdict {
        guard let maximum, announced >= 0 else { return .within }
        let total = announced > Int64.max - alreadyStored ? Int64.max : announced + alreadyStored
        return total > maximum ? .announcedOverMaximum(announced: total, maximum: maximum) : .within
    }

    /// The body so far: `stored` bytes kept (counting the ones about to be), `wire` the
    /// encoded bytes received, `decoding` whether `stored` counts decoded bytes.
    public func check(stored: Int64, wire: Int64, decoding: Bool) -> Verdict {
        if let maximum, stored > maximum { return .overMaximum(maximum: maximum) }
        guard decoding, let ratio, ratio > 0, stored > Self.allowance else { return .within }
        let wireBytes = max(wire, 1)
        return stored / wireBytes >= Int64(ratio) ? .bomb(decoded: stored, wire: wire, ratio: ratio) : .within
    }
}

extension BodySizeLimit.Verdict {
    /// The sentence a task fails with; nil for `.within`.
    public var message: String? {
        switch self {
        case .within:
            return nil
        case .announcedOverMaximum(let announced, let maximum):
            return "the server announced \(announced) bytes, more than the maximum of \(maximum) (maximum file size exceeded); nothing was kept"
        case .overMaximum(let maximum):
            return "the body grew past the maximum of \(maximum) bytes (maximum file size exceeded); what came was not kept"
        case .bomb(let decoded, let wire, let ratio):
            return "the body decoded to \(decoded) bytes from \(wire) received, over \(ratio):1 (a decompression bomb?); stopped and not kept (an explicit maximum size, --max-filesize, lifts this guard)"
        }
    }
}
