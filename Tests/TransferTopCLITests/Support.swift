import Foundation
import LoopbackServer
import TestSupport

/// The built `transfertop` next to the test bundle.
enum Binary {
    static var path: String? { BuiltExecutable.path("transfertop") }
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Run {
    /// Runs the binary with stdout and stderr redirected to files (so it is "not a terminal"),
    /// through TestSupport's `ChildProcess` (why not Foundation's `Process`: see there).
    static func binary(_ args: [String], environment extra: [String: String] = [:],
                       standardInput: String = "/dev/null") async throws -> RunResult {
        try await spawn(args, environment: extra, standardInput: standardInput).wait()
    }

    /// Runs the binary under GNU time and returns its peak resident set in bytes as well.
    ///
    /// Not getrusage on our own child: posix_spawn starts it with vfork semantics, and the
    /// kernel carries the parent's (this test process's) resident peak into the child's
    /// ru_maxrss at exec. GNU time forks from a small process, so its figure is the program's.
    static func binaryMeasuringMemory(_ args: [String], environment extra: [String: String] = [:])
        async throws -> (RunResult, peakResidentBytes: Int64) {
        guard let path = Binary.path else { throw TestFailure("transfertop binary not found") }
        let report = NSTemporaryDirectory() + "tt-time-\(UUID().uuidString)"
        defer { unlink(report) }
        let result = try await spawn(["-f", "%M", "-o", report, path] + args, environment: extra,
                                     executable: "/usr/bin/time").wait()
        let kib = (try? String(contentsOfFile: report, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        return (result, kib * 1024)
    }

    /// Starts the binary without waiting (for signal tests). `standardOutput`: where stdout
    /// goes instead of the file `RunResult.stdout` is read from.
    static func spawn(_ args: [String], environment extra: [String: String] = [:],
                      executable: String? = nil, standardInput: String = "/dev/null",
                      standardOutput: ChildProcess.Stream? = nil) throws -> Spawned {
        guard let path = executable ?? Binary.path else {
            throw TestFailure("transfertop binary not found near \(CommandLine.arguments[0])")
        }
        let outPath = NSTemporaryDirectory() + "tt-out-\(UUID().uuidString)"
        let errPath = outPath + ".err"
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        // Isolation: a run never touches the user's own state or configuration. Each run gets
        // private XDG directories unless the test names its own (to look inside them).
        let isolated = NSTemporaryDirectory() + "tt-xdg-\(getpid())-\(UUID().uuidString.prefix(8))"
        for key in ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"] {
            env[key] = isolated + "/" + key.lowercased()
        }
        for (k, v) in extra { env[k] = v }
        let child = try ChildProcess.spawn([path] + args, environment: env, standardInput: .path(standardInput),
                                           standardOutput: standardOutput ?? .path(outPath), standardError: .path(errPath))
        return Spawned(pid: child.pid, outPath: outPath, errPath: errPath, isolatedDirectory: isolated)
    }

    static func tempDirectory() throws -> String { try privateDirectory("cli") }
}

struct Spawned: Sendable {
    var pid: pid_t
    var outPath: String
    var errPath: String
    var isolatedDirectory: String

    func signal(_ signo: Int32) { kill(pid, signo) }

    /// Whether the process has exited (it stays a zombie, still to be waited for).
    var hasExited: Bool {
        // "PID (comm) S ...": state Z until we reap it. (comm may hold spaces: read after ")".)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Runs `action` the moment the process exits, on a thread started before this returns,
    /// and leaves the process to be reaped by `wait()` (`WNOWAIT`). For a step that must
    /// follow an exit within a deadline that is not the test's: the cooperative pool, and with
    /// it any `await` of the test, can be starved for minutes in a loaded suite
    /// (Tests/TestSupport/OffPool.swift), so an action taken from the test's task may come
    /// after that deadline has passed.
    func onExit(_ action: @escaping @Sendable () -> Void) {
        let pid = self.pid
        let thread = Thread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            action()
        }
        thread.name = "tests.on-exit"
        thread.start()
    }

    /// Waits for the process on a thread of its own (never blocking the cooperative pool).
    func wait() async -> RunResult {
        await offPool { waitBlocking() }
    }

    private func waitBlocking() -> RunResult {
        defer {
            unlink(outPath)
            unlink(errPath)
            try? FileManager.default.removeItem(atPath: isolatedDirectory)
        }
        // A child still running after ten minutes is killed: a hung one then fails its test
        // (exit 137, its output so far) instead of holding the whole run until CI's limit.
        let pid = self.pid
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: watchdog)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        watchdog.cancel()
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return RunResult(status: exit, stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

/// The size of a regular file in bytes (0 when it does not exist).
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// The size of the largest file below `dir` (a partial lives in the state or the output
/// directory, depending on the configuration).
func largestFile(under dir: String) -> Int {
    let all = FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []
    return all.map { fileSize(dir + "/" + $0) }.max() ?? 0
}
