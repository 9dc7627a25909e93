import Testing
import TransferModel

@Suite struct HTTPHeaderNameTests {
    @Test func namesCompareIgnoringASCIICaseOnly() {
        #expect(HTTPHeader.namesEqual("Content-Length", "Content-Length"))
        #expect(HTTPHeader.namesEqual("content-length", "Content-Length"))
        #expect(!HTTPHeader.namesEqual("Content-Length", "Content-Lengts"))
        #expect(!HTTPHeader.namesEqual("ETag", "ETags"))
    }

    /// Names are compared as bytes: two spellings Unicode takes as equivalent (U+0387 and
    /// U+00B7, two bytes each) are different names.
    @Test func canonicallyEquivalentSpellingsAreDifferentNames() {
        #expect("X\u{0387}" == "X\u{00B7}")
        #expect(!HTTPHeader.namesEqual("X\u{0387}", "X\u{00B7}"))
        #expect([HTTPHeader("X\u{0387}", "1")].first(named: "X\u{00B7}") == nil)
    }
}
