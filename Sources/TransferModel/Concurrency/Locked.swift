#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex. Give it a value with a size: a zero-sized one (`Void`) shares
/// its address with the mutex pointer, and the thread sanitizer reports a false race.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex system calls, which the
/// thread sanitizer cannot see, so every access it guards is reported as a race and the
/// `--sanitize=thread` run is useless. A pthread mutex is intercepted by the sanitizer and
/// costs the same uncontended.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written between lock and unlock.
    @usableFromInline var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
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
