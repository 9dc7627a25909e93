/// A queue that hands out the highest priority first and, among equal priorities, the
/// earliest pushed (URLSessionTask.priority ordering the tasks waiting for a host).
///
/// Elements at `commonPriority` (the default every task has unless set) go to a FIFO ring:
/// O(1) push and pop, so a list of 100,000 tasks that never set a priority pays nothing for
/// the feature. The others go to a binary heap keyed by (priority, push order): O(log n).
/// `pop` compares the two heads, O(1).
public struct PriorityFIFO<Element> {
    public let commonPriority: Float
    private var ring: [Element?] = []
    private var ringHead = 0
    private var ringCount = 0
    private var heap: [(priority: Float, order: UInt64, element: Element)] = []
    private var pushes: UInt64 = 0

    public init(commonPriority: Float = 0.5) {
        self.commonPriority = commonPriority
    }

    public var count: Int { ringCount + heap.count }
    public var isEmpty: Bool { count == 0 }

    /// Priorities outside 0...1 (and NaN) are clamped, as Apple's setter does not trap either.
    public mutating func push(_ element: Element, priority: Float) {
        let p = Self.clamp(priority)
        if p == commonPriority {
            pushRing(element)
            return
        }
        pushes &+= 1
        heap.append((p, pushes, element))
        siftUp(heap.count - 1)
    }

    /// The element `pop` would return.
    public var first: Element? {
        takesHeap ? heap.first?.element : (ringCount > 0 ? ring[ringHead] : heap.first?.element)
    }

    public mutating func pop() -> Element? {
        if takesHeap { return popHeap() }
        if ringCount > 0 { return popRing() }
        return popHeap()
    }

    public static func clamp(_ p: Float) -> Float { p.isNaN ? 0.5 : min(1, max(0, p)) }

    /// The heap's head outranks the ring's (a common-priority head loses only to a higher
    /// priority: ring elements never tie with heap elements).
    private var takesHeap: Bool {
        guard let top = heap.first else { return false }
        return ringCount == 0 || top.priority > commonPriority
    }

    private mutating func pushRing(_ element: Element) {
        if ringCount == ring.count {
            var bigger = [Element?](repeating: nil, count: max(16, ring.count * 2))
            for i in 0..<ringCount { bigger[i] = ring[(ringHead + i) & (ring.count - 1)] }
            ring = bigger
            ringHead = 0
        }
        ring[(ringHead + ringCount) & (ring.count - 1)] = element
        ringCount += 1
    }

    private mutating func popRing() -> Element? {
        let e = ring[ringHead]
        ring[ringHead] = nil  // lets go of the element at once
        ringHead = (ringHead + 1) & (ring.count - 1)
        ringCount -= 1
        return e
    }

    private func outranks(_ i: Int, _ j: Int) -> Bool {
        heap[i].priority != heap[j].priority ? heap[i].priority > heap[j].priority : heap[i].order < heap[j].order
    }

    private mutating func popHeap() -> Element? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast().element
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count && outranks(l, best) { best = l }
            if r < heap.count && outranks(r, best) { best = r }
            if best == i { break }
            heap.swapAt(i, best)
            i = best
        }
        return top
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard outranks(i, parent) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }
}
