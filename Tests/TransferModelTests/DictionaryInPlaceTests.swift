import Testing
@testable import TransferModel

@Suite struct DictionaryInPlaceTests {
    struct Entry: Equatable {
        var count = 0
        var items: [Int] = []
        mutating func pop() -> Int? { items.popLast() }
    }

    @Test func mutatesTheStoredValueAndReturnsWhatTheBodyReturns() {
        var d = ["a": Entry(count: 1, items: [1, 2]), "b": Entry()]
        d.inPlace("a") { $0.count += 1 }
        #expect(d["a"]?.count == 2)
        #expect(d.inPlace("a") { $0.pop() } == .some(2))
        #expect(d["a"]?.items == [1])
        #expect(d["b"] == Entry())
    }

    @Test func aMissingKeyIsNotInsertedAndGivesNil() {
        var d = ["a": Entry()]
        var ran = false
        #expect(d.inPlace("z") { _ in ran = true; return 1 } == nil)
        #expect(!ran)
        #expect(d.count == 1 && d["z"] == nil)
    }

    /// The value is mutated where it is stored: an array inside it stays the one buffer, not
    /// a copy (the optional-chained form `d[key]?.items.append(…)` keeps it unique too, but
    /// through an allocating accessor).
    @Test func anArrayInsideTheValueKeepsItsBuffer() {
        var d = ["a": Entry(items: Array(0..<100))]
        let before = d["a"]!.items.withUnsafeBufferPointer { $0.baseAddress }
        d.inPlace("a") { $0.items[0] = 42 }
        let after = d["a"]!.items.withUnsafeBufferPointer { $0.baseAddress }
        #expect(before == after)
        #expect(d["a"]?.items.first == 42)
    }
}
