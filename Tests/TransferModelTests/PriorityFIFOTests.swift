import Testing
import TransferModel

@Suite struct PriorityFIFOTests {
    private func drain(_ q: inout PriorityFIFO<String>) -> [String] {
        var out: [String] = []
        while let e = q.pop() { out.append(e) }
        return out
    }

    @Test func higherFirstAndFIFOAmongEquals() {
        var q = PriorityFIFO<String>()
        q.push("low1", priority: 0.25)
        q.push("def1", priority: 0.5)
        q.push("high1", priority: 0.75)
        q.push("def2", priority: 0.5)
        q.push("low2", priority: 0.25)
        q.push("high2", priority: 0.75)
        q.push("top", priority: 1)
        q.push("bottom", priority: 0)
        #expect(q.count == 8)
        #expect(q.first == "top")
        #expect(drain(&q) == ["top", "high1", "high2", "def1", "def2", "low1", "low2", "bottom"])
        #expect(q.isEmpty && q.first == nil && q.pop() == nil)
    }

    @Test func onlyCommonPriorityIsPlainFIFO() {
        var q = PriorityFIFO<String>()
        for i in 0..<100 { q.push("\(i)", priority: 0.5) }
        for i in 0..<40 { #expect(q.pop() == "\(i)") }
        for i in 100..<150 { q.push("\(i)", priority: 0.5) }
        #expect(drain(&q) == (40..<150).map { "\($0)" })
    }

    @Test func interleavedPushesAndPopsKeepTheOrder() {
        var q = PriorityFIFO<String>()
        q.push("a", priority: 0.3)
        q.push("b", priority: 0.5)
        #expect(q.pop() == "b")
        q.push("c", priority: 0.3)
        q.push("d", priority: 0.9)
        #expect(q.pop() == "d")
        #expect(q.pop() == "a")
        q.push("e", priority: 0.5)
        #expect(drain(&q) == ["e", "c"])
    }

    @Test func outOfRangeAndNaNAreClamped() {
        var q = PriorityFIFO<String>()
        q.push("nan", priority: .nan)       // the default
        q.push("huge", priority: 7)         // 1
        q.push("negative", priority: -3)    // 0
        q.push("one", priority: 1)
        #expect(drain(&q) == ["huge", "one", "nan", "negative"])
    }

    @Test func manyElementsComeOutSorted() {
        var q = PriorityFIFO<Int>()
        var expected: [(Float, Int)] = []
        var x: UInt32 = 12345
        for i in 0..<5_000 {
            x = x &* 1_103_515_245 &+ 12345
            let p = Float((x >> 16) % 5) / 4  // 0, 0.25, 0.5, 0.75, 1
            q.push(i, priority: p)
            expected.append((p, i))
        }
        let order = expected.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }.map(\.1)
        var out: [Int] = []
        while let e = q.pop() { out.append(e) }
        #expect(out == order)
    }
}
