/// Whether one transaction went through the configured proxy (URLSession's per-transaction
/// `isProxyConnection`). libcurl 7.88 has no CURLINFO_USED_PROXY (8.7), so the
/// transaction's peer is compared with the proxy: a hop that never connected, or one that went
/// direct (libcurl honours `no_proxy` from the environment), is not a proxy connection.
public enum ProxyConnection {
    public static func isProxyConnection(proxy: String?, remoteAddress: String?, remotePort: Int?) -> Bool {
        guard let proxy, !proxy.isEmpty, let remoteAddress, let remotePort else { return false }
        guard let (host, port) = endpoint(proxy) else { return false }
        guard port == remotePort else { return false }
        // A proxy named by an address must be that address; a name cannot be checked without
        // resolving it again, so the port alone decides.
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return isAddressLiteral(bare) ? bare == remoteAddress : true
    }

    /// Host and port of a proxy URL such as `http://127.0.0.1:3128` or `proxy.example:8080`;
    /// libcurl's default port is 1080 (80 for `http://` without a port, 443 for `https://`).
    static func endpoint(_ proxy: String) -> (String, Int)? {
        var rest = Substring(proxy)
        var defaultPort = 1080
        if let scheme = rest.range(of: "://") {
            let name = rest[..<scheme.lowerBound].lowercased()
            defaultPort = name == "https" ? 443 : name == "http" ? 80 : 1080
            rest = rest[scheme.upperBound...]
        }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        guard !rest.isEmpty else { return nil }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let host = String(rest[...close])
            let after = rest[rest.index(after: close)...]
            guard after.hasPrefix(":") else { return (host, defaultPort) }
            return Int(after.dropFirst()).map { (host, $0) }
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 { return Int(parts[1]).map { (String(parts[0]), $0) } }
        return parts.count == 1 ? (String(rest), defaultPort) : nil
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.allSatisfy { $0 == "." || $0.isNumber })
    }
}
