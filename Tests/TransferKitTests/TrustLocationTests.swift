import CCurl
import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Another public root (ISRG Root X2, as Debian's bundle has it), for a bundle or directory
/// that holds a certificate other than the loopback server's CA.
private let otherRootPEM = """
-----BEGIN CERTIFICATE-----
MIICGzCCAaGgAwIBAgIQQdKd0XLq7qeAwSxs6S+HUjAKBggqhkjOPQQDAzBPMQsw
CQYDVQQGEwJVUzEpMCcGA1UEChMgSW50ZXJuZXQgU2VjdXJpdHkgUmVzZWFyY2gg
R3JvdXAxFTATBgNVBAMTDElTUkcgUm9vdCBYMjAeFw0yMDA5MDQwMDAwMDBaFw00
MDA5MTcxNjAwMDBaME8xCzAJBgNVBAYTAlVTMSkwJwYDVQQKEyBJbnRlcm5ldCBT
ZWN1cml0eSBSZXNlYXJjaCBHcm91cDEVMBMGA1UEAxMMSVNSRyBSb290IFgyMHYw
EAYHKoZIzj0CAQYFK4EEACIDYgAEzZvVn4CDCuwJSvMWSj5cz3es3mcFDR0HttwW
+1qLFNvicWDEukWVEYmO6gbf9yoWHKS5xcUy4APgHoIYOIvXRdgKam7mAHf7AlF9
ItgKbppbd9/w+kHsOdx1ymgHDB/qo0IwQDAOBgNVHQ8BAf8EBAMCAQYwDwYDVR0T
AQH/BAUwAwEB/zAdBgNVHQ4EFgQUfEKWrt5LSDv6kviejM9ti6lyN5UwCgYIKoZI
zj0EAwMDaAAwZQIwe3lORlCEwkSHRhtFcP9Ymd70/aTSVaYgLXTWNLxBo1BfASdW
tL4ndQavEi51mI38AjEAi/V3bNTIZargCyzuFJ0nN6T5U6VR5CmD1/iQMVtCnwr1
/q4AaOeMSQ+2b1tbFfLn
-----END CERTIFICATE-----
"""

/// The loopback server's CA.
private let ca = LoopbackServer.caCertificatePEM
private let crlfCA = ca.replacingOccurrences(of: "\n", with: "\r\n")

/// Which of the system's CA bundle and CA directory a session reads (`TrustStore.bundleToParse`):
/// the directory's hashed names stand for a bundle no newer than it whose every
/// certificate they lead to; otherwise the bundle is parsed as before. Real TLS against the
/// loopback server, with CA locations of the test's own in place of the system's.
@Suite struct TrustLocationTests {
    /// A file of the CA directory.
    enum Entry {
        /// `pem` under its subject's hashed name, as `c_rehash` names it.
        case hashed(String)
        /// Text that is no certificate under a hashed name (another CA's name in a real directory).
        case stray
        /// A hashed name linking to a file that was not copied.
        case dangling
        /// `pem` under a name OpenSSL does not look up.
        case unhashed(String)
    }

    /// A private CA directory and bundle file.
    struct Locations {
        let root = NSTemporaryDirectory() + "tk-trust-\(UUID().uuidString)"
        var directory: String { root + "/certs" }
        var bundle: String { root + "/bundle.pem" }

        /// `bundleAge`: seconds the bundle's change time lies before the directory's (negative:
        /// after it).
        init(bundle pems: [String], directory entries: [Entry], bundleAge: TimeInterval = 100) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try pems.map { $0 + "\n" }.joined().write(toFile: bundle, atomically: false, encoding: .utf8)
            func hashedName(_ pem: String) throws -> String {
                let hash = tk_pem_subject_hash(pem)
                try #require(hash != 0)
                return directory + "/" + String(format: "%08lx.0", hash)
            }
            for entry in entries {
                switch entry {
                case .hashed(let pem): try pem.write(toFile: try hashedName(pem), atomically: false, encoding: .utf8)
                case .stray: try "not this one".write(toFile: directory + "/0badc0de.0", atomically: false, encoding: .utf8)
                case .dangling:
                    try FileManager.default.createSymbolicLink(atPath: try hashedName(ca), withDestinationPath: root + "/not-copied.pem")
                case .unhashed(let pem): try pem.write(toFile: directory + "/loopback-ca.pem", atomically: false, encoding: .utf8)
                }
            }
            let directoryChanged = try #require(try FileManager.default.attributesOfItem(atPath: directory)[.modificationDate] as? Date)
            try FileManager.default.setAttributes([.modificationDate: directoryChanged.addingTimeInterval(-bundleAge)],
                                                  ofItemAtPath: bundle)
        }

        var system: TrustStore.SystemTrustLocations { .init(bundle: bundle, directory: directory) }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    /// The outcome of one https request trusting only `locations` (no extra CA file).
    func fetch(trusting locations: Locations) async throws -> TransferError? {
        let server = try await TestServer.get()
        let session = TransferSession(configuration: ephemeralConfig {
            $0.additionalTrustedCAFile = nil
            $0.systemTrustLocations = locations.system
        })
        defer { session.finishTasksAndInvalidate() }
        let outcome = Box<TransferError?>()
        session.dataTask(with: TransferRequest(url: url("\(server.httpsBase)/bytes/10"))) { _, _, error in outcome.set(error) }.resume()
        return try await outcome.wait()
    }

    /// A layout of the CA locations, and whether the bundle must be parsed for it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bundle: [String] = [ca]
        var directory: [Entry]
        var bundleAge: TimeInterval = 100
        var parsesBundle: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "a newer directory holding the bundle's certificates stands for it",
             directory: [.hashed(ca), .stray], parsesBundle: false),
        Case(name: "the same, with the same certificate twice in the bundle", bundle: [ca, ca],
             directory: [.hashed(ca)], parsesBundle: false),
        Case(name: "the same, with CRLF line ends in both", bundle: [crlfCA],
             directory: [.hashed(crlfCA)], parsesBundle: false),
        // Not what `update-ca-certificates` writes: the safe side, the bundle parsed.
        Case(name: "other line ends in the directory's copy", directory: [.hashed(crlfCA)], parsesBundle: true),
        Case(name: "a bundle changed after the directory", directory: [.hashed(otherRootPEM)], bundleAge: -100, parsesBundle: true),
        Case(name: "a directory without hashed names", directory: [.unhashed(ca)], parsesBundle: true),
        // As after `cat extra.pem >> bundle` followed by a change to the directory.
        Case(name: "a certificate appended to the bundle", bundle: [otherRootPEM, ca],
             directory: [.hashed(otherRootPEM)], parsesBundle: true),
        // As many names as certificates, but not the bundle's: the CA is trusted through the
        // bundle alone (a rule that counted names let the directory stand for it and refused it).
        Case(name: "as many names as certificates, one of them another's", bundle: [otherRootPEM, ca],
             directory: [.hashed(otherRootPEM), .stray], parsesBundle: true),
        Case(name: "hashed links to files that were not copied", directory: [.dangling], parsesBundle: true),
    ])
    func theBundleIsParsedUnlessTheDirectoryHoldsIt(_ c: Case) async throws {
        let l = try Locations(bundle: c.bundle, directory: c.directory, bundleAge: c.bundleAge)
        defer { l.remove() }
        #expect(TrustStore.bundleToParse(l.bundle, directory: l.directory) == (c.parsesBundle ? l.bundle : nil))
        // Through the directory alone where the bundle is not parsed, else through the bundle.
        let error = try await fetch(trusting: l)
        #expect(error == nil, "\(String(describing: error))")
    }

    @Test func aCANeitherHoldsIsStillRefused() async throws {
        let l = try Locations(bundle: [otherRootPEM], directory: [.hashed(otherRootPEM), .stray])
        defer { l.remove() }
        let error = try await fetch(trusting: l)
        #expect(error?.code == .serverCertificateUntrusted)
    }

    @Test func theRule() throws {
        let t = { (s: Int, ns: Int) in timespec(tv_sec: s, tv_nsec: ns) }
        #expect(!TrustStore.isNewer(t(10, 5), than: t(10, 5)), "a tie does not tell")
        #expect(TrustStore.isNewer(t(11, 0), than: t(10, 5)))
        #expect(TrustStore.isNewer(t(10, 6), than: t(10, 5)))
        #expect(!TrustStore.isNewer(t(10, 9), than: t(11, 0)))
        let names: [(String, Bool)] = [("5ed36f99.0", true), ("002c0b4f.1", true), ("5ED36F99.0", false), ("5ed36f9.0", false),
                                       ("5ed36f99.x", false), ("5ed36f99.r0", false), ("ca-certificates.crt", false), ("", false)]
        for (name, hashed) in names {
            #expect(TrustStore.isHashedName(Array(name.utf8)) == hashed, "\(name)")
        }
        let text: String = "# a comment\r\n" + ca + "\n" + otherRootPEM + "\n-----BEGIN CERTIFICATE-----\nAAAA"
        let blocks = TrustStore.certificateBlocks(Data(text.utf8))
        #expect(blocks.count == 2, "the unterminated third is no certificate")
        let inner = try #require(ca.range(of: "CERTIFICATE-----").map { ca[$0.upperBound...] }?.components(separatedBy: "-----END").first)
        #expect(blocks.first == Data(inner.utf8))
        #expect(blocks.last == TrustStore.certificateBlocks(Data(otherRootPEM.utf8)).first)
        #expect(TrustStore.bundleToParse(nil, directory: "/nonexistent") == nil)
        #expect(TrustStore.bundleToParse("/nonexistent/bundle.pem", directory: nil) == "/nonexistent/bundle.pem")
        #expect(TrustStore.bundleToParse("/nonexistent/bundle.pem", directory: NSTemporaryDirectory()) == "/nonexistent/bundle.pem")
    }
}
