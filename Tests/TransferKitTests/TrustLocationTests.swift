import CCurl
import Foundation
import LoopbackServer
import Testing
@testable import TransferKit

/// Which of the system's CA bundle and CA directory a session reads (`TrustStore.bundleToParse`,
/// issue 8): the directory's hashed names stand for a bundle no newer than it; otherwise the
/// bundle is parsed as before. Real TLS against the loopback server, with CA locations of the
/// test's own in place of the system's.
@Suite struct TrustLocationTests {
    /// A private CA directory and bundle file.
    struct Locations {
        let root = NSTemporaryDirectory() + "tk-trust-\(UUID().uuidString)"
        var directory: String { root + "/certs" }
        var bundle: String { root + "/bundle.pem" }

        /// `inDirectory`: the test CA under its hashed name (`dangling`: a link to a file that
        /// is not there); `inBundle`: the test CA in the bundle, `bundleCopies` times (else an
        /// empty bundle); `bundleAge`: seconds the bundle's change time lies before the
        /// directory's (negative: after it).
        init(inDirectory: Bool, inBundle: Bool, bundleAge: TimeInterval, hashedNames: Bool = true,
             bundleCopies: Int = 1, dangling: Bool = false) throws {
            let pem = LoopbackServer.caCertificatePEM
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try (inBundle ? String(repeating: pem, count: bundleCopies) : "").write(toFile: bundle, atomically: false, encoding: .utf8)
            let hash = tk_pem_subject_hash(pem)
            #expect(hash != 0)
            let hashedName = directory + "/" + String(format: "%08lx.0", hash)
            if dangling {
                try FileManager.default.createSymbolicLink(atPath: hashedName, withDestinationPath: root + "/not-copied.pem")
            } else if inDirectory {
                try pem.write(toFile: hashedName, atomically: false, encoding: .utf8)
            } else if hashedNames {
                // Another certificate's name: a real directory that does not hold this CA.
                try "not this one".write(toFile: directory + "/" + String(format: "%08lx.0", hash ^ 1), atomically: false, encoding: .utf8)
            } else {
                try pem.write(toFile: directory + "/loopback-ca.pem", atomically: false, encoding: .utf8)
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
        var inDirectory = false, bundleAge: TimeInterval = 100, hashedNames = true, bundleCopies = 1, dangling = false
        var parsesBundle: Bool
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "a newer directory that covers the bundle stands for it", inDirectory: true, parsesBundle: false),
        Case(name: "a bundle changed after the directory", bundleAge: -100, parsesBundle: true),
        Case(name: "a directory without hashed names", hashedNames: false, parsesBundle: true),
        // As after `cat extra.pem >> bundle` followed by a change to the directory.
        Case(name: "more certificates in the bundle than names", inDirectory: true, bundleCopies: 2, parsesBundle: true),
        Case(name: "hashed links to files that were not copied", dangling: true, parsesBundle: true),
    ])
    func theBundleIsParsedUnlessTheDirectoryCoversIt(_ c: Case) async throws {
        let l = try Locations(inDirectory: c.inDirectory, inBundle: true, bundleAge: c.bundleAge, hashedNames: c.hashedNames,
                              bundleCopies: c.bundleCopies, dangling: c.dangling)
        defer { l.remove() }
        if c.dangling { #expect(TrustStore.resolvingHashedNames(l.directory) == 0) }
        #expect(TrustStore.bundleToParse(l.bundle, directory: l.directory) == (c.parsesBundle ? l.bundle : nil))
        // Through the directory alone where the bundle is not parsed, else through the bundle.
        let error = try await fetch(trusting: l)
        #expect(error == nil, "\(String(describing: error))")
    }

    @Test func aCANeitherHoldsIsStillRefused() async throws {
        let l = try Locations(inDirectory: false, inBundle: false, bundleAge: 100)
        defer { l.remove() }
        let error = try await fetch(trusting: l)
        #expect(error?.code == .serverCertificateUntrusted)
    }

    @Test func theRule() {
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
        let three = NSTemporaryDirectory() + "tk-three-\(UUID().uuidString).pem"
        try? String(repeating: LoopbackServer.caCertificatePEM + "\n", count: 3).write(toFile: three, atomically: false, encoding: .utf8)
        defer { unlink(three) }
        #expect(TrustStore.certificateCount(three) == 3)
        #expect(TrustStore.certificateCount("/nonexistent/bundle.pem") == 0)
        #expect(TrustStore.bundleToParse(nil, directory: "/nonexistent") == nil)
        #expect(TrustStore.bundleToParse("/nonexistent/bundle.pem", directory: nil) == "/nonexistent/bundle.pem")
        #expect(TrustStore.bundleToParse("/nonexistent/bundle.pem", directory: NSTemporaryDirectory()) == "/nonexistent/bundle.pem")
    }
}
