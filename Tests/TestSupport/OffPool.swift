import Foundation

/// Runs blocking work (waitpid, a child process, usleep polling of tmux) on a thread of its
/// own and suspends the caller until it is done.
///
/// Swift concurrency's cooperative pool has one thread per core: two on the CI machine. A test
/// that blocks a pool thread for seconds (waiting for a child process) stalls every other
/// suite's awaits in the same `swift test` process, and their waits for events turn into
/// waits for time. Blocking work therefore never runs on the pool.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        let thread = Thread { c.resume(with: Result { try body() }) }
        thread.name = "tests.off-pool"
        thread.start()
    }
}

/// The same, for work that cannot fail.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
        let thread = Thread { c.resume(returning: body()) }
        thread.name = "tests.off-pool"
        thread.start()
    }
}

public struct WaitTimeout: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls a condition until it holds: tests wait for facts (delegate callbacks, server-side
/// counters, files), not for time. The deadline is generous and expires only on a bug
/// (`eventDeadline`), because under the thread sanitizer the whole suite on two cores starves
/// single tests for minutes (fresh-clone runs failed 30 s and 60 s deadlines on passing behaviour).
public func waitFor(_ what: String, _ condition: @Sendable () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(eventDeadline)
    while try !condition() {
        if Date() > deadline { throw WaitTimeout(what: what) }
        try await Task.sleep(nanoseconds: 5_000_000)
    }
}

/// The same for a condition that awaits (a program run off the pool, a server's answer).
public func waitFor(_ what: String, checking condition: @Sendable () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(eventDeadline)
    while try await !condition() {
        if Date() > deadline { throw WaitTimeout(what: what) }
        try await Task.sleep(nanoseconds: 5_000_000)
    }
}

/// Waits until a count reaches `target`, failing only when it stops moving for `stall`
/// seconds. For batches of hundreds of transfers: their total time depends on the machine (a
/// sanitizer build beside other suites on two cores), but a batch that makes no progress for a
/// minute is a hang, which is what such a wait must catch.
public func waitForCount(_ what: String, reaches target: Int, stall: TimeInterval = 60,
                         _ count: @Sendable () -> Int) async throws {
    var last = count()
    var deadline = Date().addingTimeInterval(stall)
    while last < target {
        if Date() > deadline { throw WaitTimeout(what: "\(what) (stuck at \(last) of \(target))") }
        try await Task.sleep(nanoseconds: 5_000_000)
        let now = count()
        if now != last { last = now; deadline = Date().addingTimeInterval(stall) }
    }
}

/// A private temporary directory for one test (its own XDG directories go inside it).
public func privateDirectory(_ label: String = "t") throws -> String {
    let d = NSTemporaryDirectory() + "tt-\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}
