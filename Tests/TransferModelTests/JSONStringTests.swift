import Foundation
import Testing
@testable import TransferModel

/// JSON string literals as the exports and the completion journal write them.
@Suite struct JSONStringTests {
    static let cases: [(String, String)] = [
        ("plain.bin", #""plain.bin""#),
        (#""6746d8b0-400""#, #""\"6746d8b0-400\"""#),
        ("a\\b", #""a\\b""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("bell\u{7}esc\u{1B}", #""bell\u0007esc\u001b""#),
        ("sep\u{2028}para\u{2029}end", #""sep\u2028para\u2029end""#),
        ("café ✓ 🚀 \u{2027}", "\"café ✓ 🚀 \u{2027}\""),
        ("", #""""#),
    ]

    @Test(arguments: cases)
    func stringsAreEscapedTheSameAsStringAndAsBytes(_ text: String, _ literal: String) throws {
        #expect(JSONValue.quoted(text) == literal)
        var bytes: [UInt8] = [0x5B]  // appended after what is there
        JSONValue.appendString(text, to: &bytes)
        #expect(bytes == [0x5B] + Array(literal.utf8))
        #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == text)
    }
}
