import Foundation
import Testing
@testable import TransferTopRun

/// The journal's fast reader agrees with `JSONDecoder` on every line the writer makes, and
/// declines (for `JSONDecoder`) what it does not know.
@Suite struct CompletionLineReaderTests {
    static func parse(_ text: String) -> CompletionStore.Line? {
        Array(text.utf8).withUnsafeBytes { CompletionLineReader.parse($0) }
    }

    static func decoded(_ text: String) -> CompletionStore.Line? {
        try? JSONDecoder().decode(CompletionStore.Line.self, from: Data(text.utf8))
    }

    @Test func everyLineTheWriterMakesReadsBackAsJSONDecoderReadsIt() {
        let names = ["a.iso", "naïve café.txt", "quote\"and\\slash", "tab\there\nnew", "\u{1}ctl\u{2028}sep", "😀 emoji", ""]
        let tags: [String?] = [nil, "\"6925f0c1-400\"", "W/\"x\\y\""]
        let dates: [String?] = [nil, "Tue, 25 Nov 2026 17:32:01 GMT"]
        var checked = 0
        for name in names {
            for tag in tags {
                for date in dates {
                    for size: Int64 in [0, 1024, Int64.max, -1] {
                        let line = CompletionStore.Line(key: "k\(checked)", record: .init(name: name, size: size, entityTag: tag, lastModified: date))
                        let text = line.json
                        let fast = Self.parse(text)
                        #expect(fast != nil, "the reader declined a line the writer made: \(text)")
                        #expect(fast?.key == line.key)
                        #expect(fast?.record == line.record)
                        #expect(fast?.record == Self.decoded(text)?.record)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 168)
    }

    @Test func otherShapesAreLeftToJSONDecoder() {
        let reordered = #"{"record":{"size":3,"name":"f"},"key":"k"}"#
        #expect(Self.parse(reordered) == nil)
        #expect(Self.decoded(reordered)?.record.size == 3)
        let spaced = #"{"key": "k", "record": {"name": "f", "size": 3}}"#
        #expect(Self.parse(spaced) == nil)
        #expect(Self.decoded(spaced)?.record.name == "f")
        let surrogates = #"{"key":"k","record":{"name":"\ud83d\ude00","size":1}}"#
        #expect(Self.parse(surrogates) == nil)
        #expect(Self.decoded(surrogates)?.record.name == "😀")
    }

    @Test func damagedLinesAreNotRead() {
        for text in [#"{"key":"k","record":{"name":"f","size":1}"#, #"{"key":"k","record":{"name":"f","size":}}"#,
                     #"{"key":"k","record":{"name":"f","size":99999999999999999999}}"#, #"{"key":"k","record":{"name":"f","size":1}}x"#,
                     #"{"key":"k","record":{"name":"f"#, #"{"key":"k","record":{"name":"a\qb","size":1}}"#, "",
                     #"{"key":"k","record":{"name":"f","size":012}}"#, #"{"key":"k","record":{"name":"\u+041","size":1}}"#] {
            #expect(Self.parse(text) == nil, "\(text)")
        }
        let invalidUTF8: [UInt8] = Array(#"{"key":"k","record":{"name":""#.utf8) + [0xFF, 0xFE] + Array(#"","size":1}}"#.utf8)
        #expect(invalidUTF8.withUnsafeBytes { CompletionLineReader.parse($0) } == nil)
    }
}
