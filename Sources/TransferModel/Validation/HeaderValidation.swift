/// Which header lines may be sent. A name must be an RFC 9110 token; a value must
/// not hold CR, LF or NUL, which would end the line early and smuggle a second header or a
/// second request past every check made on the first. One rule for every source: the command
/// line, job files, `TransferRequest` and `TransferConfiguration`. Pure.
public enum HeaderValidation {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case emptyName
        /// The name as shown to the user: short and control-escaped.
        case nameNotToken(String)
        case valueHasLineBreakOrNUL(name: String)

        public var description: String {
            switch self {
            case .emptyName: return "a header name is empty"
            case .nameNotToken(let n): return "header name '\(n)' is not a token (letters, digits and !#$%&'*+-.^_`|~ only)"
            case .valueHasLineBreakOrNUL(let n): return "the value of header '\(n)' contains CR, LF or NUL"
            }
        }
    }

    /// The first problem of `header`, or nil when it may be sent.
    public static func problem(_ header: HTTPHeader) -> Problem? {
        if header.name.isEmpty { return .emptyName }
        if !isToken(header.name) { return .nameNotToken(SafeQuote.quote(header.name, limit: 40)) }
        if breaksLine(header.value) { return .valueHasLineBreakOrNUL(name: header.name) }
        return nil
    }

    /// Whether `value` holds CR, LF or NUL. Also for text a server gave that the engine sends
    /// back in a header of its own (a validator in If-Range or If-None-Match).
    public static func breaksLine(_ value: some StringProtocol) -> Bool {
        value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// A server's validator (ETag, Last-Modified) as it may be sent back in a header of our
    /// own: nil when there is none, or when it would break the line. The cache, resumability,
    /// resume data and If-Range all ask here.
    public static func sendable(_ value: String?) -> String? {
        value.flatMap { breaksLine($0) ? nil : $0 }
    }

    public static func firstProblem(_ headers: [HTTPHeader]) -> Problem? {
        for h in headers { if let p = problem(h) { return p } }
        return nil
    }

    /// RFC 9110 §5.6.2: `token = 1*tchar`. Bytes, not Characters: "\r\n" is one Character,
    /// so a Character test for "\r" misses it.
    public static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy(isTChar)
    }

    static func isTChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
