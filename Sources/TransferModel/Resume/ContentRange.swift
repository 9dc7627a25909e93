/// A parsed `Content-Range` header value (RFC 9110 §14.4), bytes unit only.
public enum ContentRange: Sendable, Equatable {
    /// `bytes first-last/total`; total nil for `*`.
    case range(first: Int64, last: Int64, total: Int64?)
    /// `bytes */total`, sent with 416.
    case unsatisfied(total: Int64)

    /// Nil for anything malformed: other units, signs, overflow, `last < first`, `last ≥ total`.
    public init?(_ value: String) {
        let v = value.trimmedSpacesTabs
        guard v.count > 6, v.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = v.dropFirst(6).trimmedSpacesTabs
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let total: Int64? = halves[1] == "*" ? nil : Self.number(halves[1])
        if halves[1] != "*" && total == nil { return nil }
        if halves[0] == "*" {
            guard let total else { return nil }
            self = .unsatisfied(total: total)
            return
        }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Self.number(ends[0]), let last = Self.number(ends[1]), first <= last,
              total.map({ last < $0 }) ?? true
        else { return nil }
        self = .range(first: first, last: last, total: total)
    }

    static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.count <= 18, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(s)
    }
}
