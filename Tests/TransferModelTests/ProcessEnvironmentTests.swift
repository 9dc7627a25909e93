import Foundation
import Testing
@testable import TransferModel

/// The environment read from `environ` is Foundation's, entry for entry.
@Suite struct ProcessEnvironmentTests {
    @Test func theWholeEnvironmentIsFoundations() {
        let ours = ProcessEnvironment.current()
        #expect(!ours.isEmpty)
        #expect(ours == ProcessInfo.processInfo.environment)
    }

    @Test func oneVariableIsGetenvs() {
        let path = ProcessEnvironment.value("PATH")
        #expect(path != nil && path == ProcessInfo.processInfo.environment["PATH"])
        #expect(ProcessEnvironment.value("TRANSFERTOP_NOT_SET_\(UUID().uuidString.prefix(8))") == nil)
    }

    /// Split at the first `=`: a value may hold more, a name may be empty, an entry without
    /// one is no variable; bytes that are not UTF-8 are repaired as Foundation repairs them.
    @Test(arguments: [
        ("A=b=c", "A", "b=c"), ("E=", "E", ""), ("=x", "", "x"), ("NOEQUALS", nil, nil), ("N=\u{E9}t\u{E9}", "N", "\u{E9}t\u{E9}"),
    ] as [(String, String?, String?)])
    func entriesSplitAtTheirFirstEquals(_ entry: String, _ name: String?, _ value: String?) {
        let parsed = Array(entry.utf8).withUnsafeBufferPointer { ProcessEnvironment.variable($0) }
        #expect(parsed?.name == name && parsed?.value == value)
    }

    @Test func bytesThatAreNotUTF8AreRepaired() {
        let parsed = [UInt8(ascii: "K"), UInt8(ascii: "="), 0xFF].withUnsafeBufferPointer { ProcessEnvironment.variable($0) }
        #expect(parsed?.name == "K" && parsed?.value == "\u{FFFD}")
    }
}
