import BackgroundWire
import Foundation
import Testing
import TransferModel
@testable import TransferKit

/// A library background session's time-outs on their way to the daemon (DECISIONS 131): what
/// this process's engine would do with any Double, in the range the daemon accepts.
@Suite struct BackgroundLinkTimeoutTests {
    static let longest = NumericBounds.maximumSeconds

    @Test(arguments: [
        (5.0, 5.0), (1e-9, 0.001), (1e12, longest), (Double.infinity, longest),
        (0.0, longest), (-1.0, longest), (-Double.infinity, longest), (Double.nan, longest),
    ])
    func anIdleTimeOutThatIsNotPositiveIsNone(_ given: Double, _ sent: Double) {
        #expect(BackgroundLink.daemonIdleSeconds(given) == sent)
    }

    @Test(arguments: [
        (5.0, 5.0), (1e-9, 0.001), (1e12, longest), (Double.infinity, longest),
        (0.0, 0.001), (-1.0, 0.001), (-Double.infinity, 0.001), (Double.nan, 0.001),
    ])
    func aResourceTimeOutThatIsNotPositiveEndsTheTaskAtOnce(_ given: Double, _ sent: Double) {
        #expect(BackgroundLink.daemonResourceSeconds(given) == sent)
    }

    /// Every value sent is one the daemon's check accepts.
    @Test func everyValueSentIsInTheDaemonsRange() {
        for t in [0, -1, 1e-300, 1e300, .infinity, -.infinity, .nan, 0.0005, 42] as [Double] {
            #expect(NumericBounds.validSeconds(BackgroundLink.daemonIdleSeconds(t)), "\(t)")
            #expect(NumericBounds.validSeconds(BackgroundLink.daemonResourceSeconds(t)), "\(t)")
        }
    }

    /// A download from a library that sends no time-outs (an older one) still reads, without
    /// them: the daemon's defaults apply.
    @Test func aDownloadWithoutTimeOutsReadsAsNone() throws {
        let old = #"{"url":"http://127.0.0.1/x","headers":["A: b"]}"#
        let download = try JSONDecoder().decode(LibraryDownload.self, from: Data(old.utf8))
        #expect(download.requestTimeout == nil && download.resourceTimeout == nil)
        let sent = LibraryDownload(url: "http://127.0.0.1/x", headers: [], requestTimeout: 3.5, resourceTimeout: 60)
        #expect(try JSONDecoder().decode(LibraryDownload.self, from: JSONEncoder().encode(sent)) == sent)
    }
}
