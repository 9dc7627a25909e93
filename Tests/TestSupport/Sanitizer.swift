import Foundation

/// Whether this test process runs under the thread or address sanitizer (`swift test
/// --sanitize=…`): their runtimes export these entry points, a plain build does not.
///
/// Only tests that compare durations ask: under a sanitizer every instruction of our code and
/// of the in-process loopback server runs several times slower while libcurl and the curl CLI
/// do not, so a duration says how the build was instrumented, not how the program behaves.
/// Such a test still runs its requests (that is what the sanitizer checks) and asserts what
/// holds in any build; the duration comparison itself is made in the plain run.
public enum Sanitizer {
    public static let isActive: Bool = {
        guard let handle = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(handle) }
        let entryPoints: [String] = ["__tsan_init", "__asan_init"]
        return entryPoints.contains { name in dlsym(handle, name) != nil }
    }()
}

/// The deadline of every wait for an event: it expires only on a bug. 180 s in a plain build;
/// 600 s under a sanitizer, where the whole suite on two cores starves single steps for minutes
/// (the tmux attach test's monitor, a TSan binary talking to a TSan daemon, passed after 229 s
/// in one fresh-clone run and ran out of a 180 s wait in three others).
public let eventDeadline: TimeInterval = Sanitizer.isActive ? 600 : 180
