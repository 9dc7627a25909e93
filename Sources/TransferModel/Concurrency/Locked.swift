#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex system calls, which the
/// thread sanitizer cannot see, so every access it guards is reported as a race and the
/// `--sanitize=thread` run is useless. A pthread mutex is intercepted by the sanitizer and
/// costs the same uncontended.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written between lock and unlock.
    // The mutex pointer comes first: a zero-sized `Value` (a `Locked<Void>` guarding a file
    // descriptor's writes) would otherwise share its address with the pointer, and the thread
    // sanitizer reported the `inout` access to it as racing with another thread's `lock()`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    @usableFromInline func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline func unlock() { pthread_mutex_unlock(mutex) }
}
