import Testing
@testable import TransferModel

/// `isProxyConnection` per transaction, by table.
@Suite struct ProxyConnectionTests {
    @Test(arguments: [
        (nil, "127.0.0.1", 8080, false),
        ("http://127.0.0.1:3128", "127.0.0.1", 3128, true),
        ("http://127.0.0.1:3128", "10.0.0.5", 443, false),           // went direct (no_proxy)
        ("http://127.0.0.1:3128", "10.0.0.5", 3128, false),          // another host on that port
        ("http://127.0.0.1:3128", nil, nil, false),                  // never connected
        ("http://user:pw@[::1]:3128/", "::1", 3128, true),
        ("proxy.example:8080", "192.0.2.1", 8080, true),             // a name: the port decides
        ("proxy.example", "192.0.2.1", 1080, true),
        ("http://proxy.example", "192.0.2.1", 80, true),
        ("https://proxy.example", "192.0.2.1", 80, false),
        ("", "127.0.0.1", 80, false),
    ] as [(String?, String?, Int?, Bool)])
    func perTransaction(_ proxy: String?, _ address: String?, _ port: Int?, _ expected: Bool) {
        #expect(ProxyConnection.isProxyConnection(proxy: proxy, remoteAddress: address, remotePort: port) == expected)
    }
}
