import Foundation
import TestSupport

/// A one-connection HTTP/1.1 server on 127.0.0.1 that answers any request with bytes given by
/// the test, as they are. For responses LoopbackServer's NIO encoder will not send (a header
/// value with control characters: NIO closes the connection instead).
final class RawResponseServer: Sendable {
    let port: Int
    private let listener: Int32

    init(response: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard fd >= 0, bound == 0, listen(fd, 4) == 0 else { throw TestFailure("raw server: \(String(cString: strerror(errno)))") }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        listener = fd
        let thread = Thread { Self.serve(fd, response) }
        thread.name = "tests.raw-response-server"
        thread.start()
    }

    /// Reads one request head, writes the response, closes; ends when the listener is closed.
    private static func serve(_ listener: Int32, _ response: [UInt8]) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var head: [UInt8] = [], byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]), read(client, &byte, 1) == 1 { head.append(byte) }
        var off = 0
        while off < response.count {
            let n = response.withUnsafeBytes { write(client, $0.baseAddress! + off, response.count - off) }
            if n <= 0 { return }
            off += n
        }
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
}
