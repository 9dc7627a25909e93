import BackgroundWire
import Foundation
import TransferKit

extension DaemonPaths {
    /// Where `standard` puts the daemon's files, creating nothing: a local run's monitor only
    /// looks for a daemon (DECISIONS 128) and must not leave directories behind doing so.
    /// Nil when neither XDG_STATE_HOME nor HOME is set.
    package static func located(_ env: [String: String]) -> DaemonPaths? {
        let runtime: String
        if let x = env["XDG_RUNTIME_DIR"], !x.isEmpty { runtime = x + "/transfertop" } else { runtime = "/tmp/transfertop-\(getuid())" }
        guard let given = StatePaths.stateDirectory(nil, environment: env) else { return nil }
        return DaemonPaths(runtimeDirectory: runtime, stateDirectory: URL(fileURLWithPath: given).standardizedFileURL.path)
    }

    /// Whether the socket's directory exists and is this user's: only then can our daemon be
    /// listening there (a directory someone else made in /tmp is never looked into).
    package var runtimeDirectoryIsOurs: Bool {
        var st = stat()
        return lstat(runtimeDirectory, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR && st.st_uid == geteuid()
    }
}
